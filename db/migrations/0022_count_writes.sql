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

-- The service plans every statement for its values (plan_cache_mode = force_custom_plan, db/connection.ts), which
-- searches need. The count triggers' statements do not depend on their values: they keep one plan per session,
-- instead of planning the 40-row upsert at every publish (0.3 ms of a 1.5 ms publish at 1,000,000 listings).
alter function listing_counts_add(listing_count_delta[]) set plan_cache_mode = force_generic_plan;
alter function listing_counts_after() set plan_cache_mode = force_generic_plan;
