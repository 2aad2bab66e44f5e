-- The exact number of published listings, kept by statement-level triggers, so the unfiltered catalogue page
-- (the most common request) needs no count over the whole table. A statement that does not change the number
-- does not touch the row, so ordinary edits do not serialise on it.
create table listing_stats (
  id boolean primary key default true check (id),
  published integer not null check (published >= 0)
);
insert into listing_stats (published) select count(*)::int from listings where status = 'published';

create function listing_stats_add(delta bigint) returns void language plpgsql as $$
begin
  if delta <> 0 then
    update listing_stats set published = published + delta;
  end if;
end $$;

create function listing_stats_after_insert() returns trigger language plpgsql as $$
begin
  perform listing_stats_add((select count(*) from new_rows where status = 'published'));
  return null;
end $$;

create function listing_stats_after_update() returns trigger language plpgsql as $$
begin
  perform listing_stats_add(
    (select count(*) from new_rows where status = 'published') -
    (select count(*) from old_rows where status = 'published'));
  return null;
end $$;

create function listing_stats_after_delete() returns trigger language plpgsql as $$
begin
  perform listing_stats_add(-(select count(*) from old_rows where status = 'published'));
  return null;
end $$;

create function listing_stats_after_truncate() returns trigger language plpgsql as $$
begin
  update listing_stats set published = 0;
  return null;
end $$;

create trigger listing_stats_insert after insert on listings
  referencing new table as new_rows for each statement execute function listing_stats_after_insert();
create trigger listing_stats_update after update on listings
  referencing old table as old_rows new table as new_rows for each statement execute function listing_stats_after_update();
create trigger listing_stats_delete after delete on listings
  referencing old table as old_rows for each statement execute function listing_stats_after_delete();
create trigger listing_stats_truncate after truncate on listings
  for each statement execute function listing_stats_after_truncate();
