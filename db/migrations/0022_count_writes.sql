-- Publishing and withdrawing do less (docs/architecture.md §11.15).

-- listing_stats (migration 0004) is read by nothing since the search totals come from listing_counts (0021). Its
-- one row was changed by every publish and withdrawal, so concurrent writers queued on it for nothing.
drop trigger listing_stats_insert on listings;
drop trigger listing_stats_update on listings;
drop trigger listing_stats_delete on listings;
drop trigger listing_stats_truncate on listings;
drop function listing_stats_after_insert();
drop function listing_stats_after_update();
drop function listing_stats_after_delete();
drop function listing_stats_after_truncate();
drop function listing_stats_add(bigint);
drop table listing_stats;
