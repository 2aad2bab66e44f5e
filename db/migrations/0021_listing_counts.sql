-- Exact search totals in flat time (docs/architecture.md §11.15): the number of published
-- listings per combination of the categorical filters (city, transaction type, property type, each also "any")
-- and a bucket of the range filters, kept by statement-level triggers in the writing transaction. A search adds
-- the counts of the buckets that lie wholly inside its ranges and counts the rows of the boundary buckets
-- exactly (db/listings.ts).

-- The grids of the range buckets, one place for the triggers and the searches. A bucket is [floor, floor + step).
-- Fine (shapes 1 and 3): price and area on two significant digits (125,000 lies in [120,000, 130,000); 85 in
-- [85, 86)). Coarse (shape 4, two or more range filters): the same but never finer than tens (85 lies in [80, 90)),
-- so small areas do not multiply the combinations. Rooms in half rooms for both.
create function listing_grid_step(dim text, v numeric, coarse boolean) returns numeric
  language sql immutable parallel safe strict
  return case when dim = 'rooms' then 0.5
    else 10::numeric ^ greatest(length(trunc(v)::bigint::text) - 2, case when coarse then 1 else 0 end) end;

-- The grid point at or below v: the bucket's lower bound.
create function listing_grid_floor(dim text, v numeric, coarse boolean) returns numeric
  language sql immutable parallel safe strict
  return floor(v / listing_grid_step(dim, v, coarse)) * listing_grid_step(dim, v, coarse);

-- The grid point at or above v.
create function listing_grid_ceil(dim text, v numeric, coarse boolean) returns numeric
  language sql immutable parallel safe strict
  return case when listing_grid_floor(dim, v, coarse) = v then v
    else listing_grid_floor(dim, v, coarse) + listing_grid_step(dim, v, coarse) end;

-- shape: 0 categorical filters only, 1 price buckets (fine), 2 room buckets, 3 area buckets (fine), 4 all three
-- (coarse grid) for searches with two or more range filters. Categories: '*' = any, '-' = the listing has none.
-- Buckets: the lower bound, -1 = the listing has no value, -2 = not part of the shape.
-- Byte order (collate "C") puts the row every change of the counts touches, (0, '*', '*', '*', -2, -2, -2),
-- first: writers lock rows in key order, so a transaction holding any count row holds that one and two writers
-- never wait for each other in a circle.
create table listing_counts (
  shape smallint not null check (shape between 0 and 4),
  city_key text collate "C" not null,
  transaction_type text collate "C" not null,
  property_type text collate "C" not null,
  price_bucket numeric not null,
  rooms_bucket numeric not null,
  sqm_bucket numeric not null,
  n bigint not null,
  primary key (shape, city_key, transaction_type, property_type, price_bucket, rooms_bucket, sqm_bucket)
);

-- One published listing entering (+1) or leaving (-1) the counts, with the fields the counts read.
create type listing_count_delta as (
  city_key text, transaction_type text, property_type text,
  asked_price numeric, total_rooms numeric, square_meters numeric, delta integer
);

-- Adds `deltas` to the counts: per shape one aggregation over all 8 combinations of the categories and "any"
-- (group by cube), so a listing changes 40 rows. Nothing is written when no count changes (a price edit within
-- its buckets); otherwise the rows are locked in key order, the first row always included (see above).
create function listing_counts_add(deltas listing_count_delta[]) returns void language plpgsql as $$
begin
  insert into listing_counts as lc
    (shape, city_key, transaction_type, property_type, price_bucket, rooms_bucket, sqm_bucket, n)
  select shape, city_key, transaction_type, property_type, price_bucket, rooms_bucket, sqm_bucket, n
  from (
    select g.*, bool_or(g.n <> 0) over () as changed
    from (
      with b as (
        select coalesce(d.city_key, '-') as c, coalesce(d.transaction_type, '-') as t,
          coalesce(d.property_type, '-') as p,
          coalesce(listing_grid_floor('price', d.asked_price, false), -1) as fp,
          coalesce(listing_grid_floor('price', d.asked_price, true), -1) as cp,
          coalesce(listing_grid_floor('rooms', d.total_rooms, false), -1) as r,
          coalesce(listing_grid_floor('sqm', d.square_meters, false), -1) as fs,
          coalesce(listing_grid_floor('sqm', d.square_meters, true), -1) as cs,
          d.delta
        from unnest(deltas) d
      )
      select 0::smallint as shape, coalesce(c, '*') as city_key, coalesce(t, '*') as transaction_type,
        coalesce(p, '*') as property_type, -2::numeric as price_bucket, -2::numeric as rooms_bucket,
        -2::numeric as sqm_bucket, sum(delta)::bigint as n
      from b group by cube (c, t, p)
      union all
      select 1::smallint, coalesce(c, '*'), coalesce(t, '*'), coalesce(p, '*'), fp, -2, -2, sum(delta)::bigint
      from b group by cube (c, t, p), fp
      union all
      select 2::smallint, coalesce(c, '*'), coalesce(t, '*'), coalesce(p, '*'), -2, r, -2, sum(delta)::bigint
      from b group by cube (c, t, p), r
      union all
      select 3::smallint, coalesce(c, '*'), coalesce(t, '*'), coalesce(p, '*'), -2, -2, fs, sum(delta)::bigint
      from b group by cube (c, t, p), fs
      union all
      select 4::smallint, coalesce(c, '*'), coalesce(t, '*'), coalesce(p, '*'), cp, r, cs, sum(delta)::bigint
      from b group by cube (c, t, p), cp, r, cs
    ) g
  ) h
  where h.n <> 0 or (h.changed and h.shape = 0 and h.city_key = '*' and h.transaction_type = '*'
    and h.property_type = '*')
  order by 1, 2, 3, 4, 5, 6, 7
  on conflict (shape, city_key, transaction_type, property_type, price_bucket, rooms_bucket, sqm_bucket)
    do update set n = lc.n + excluded.n;
end $$;

-- After every statement on listings: the published rows among its new rows enter the counts, those among its old
-- rows leave them. Rows that enter and leave with the same fields (an edit of the title) cancel out first.
create function listing_counts_after() returns trigger language plpgsql as $$
declare
  deltas listing_count_delta[];
begin
  if tg_op = 'INSERT' then
    deltas := array(
      select row(city_key, transaction_type, property_type, asked_price, total_rooms, square_meters, 1)
      from new_rows where status = 'published');
  elsif tg_op = 'DELETE' then
    deltas := array(
      select row(city_key, transaction_type, property_type, asked_price, total_rooms, square_meters, -1)
      from old_rows where status = 'published');
  else
    deltas := array(
      select row(city_key, transaction_type, property_type, asked_price, total_rooms, square_meters, sum(delta))
      from (
        select *, 1 as delta from new_rows where status = 'published'
        union all
        select *, -1 as delta from old_rows where status = 'published'
      ) d
      group by city_key, transaction_type, property_type, asked_price, total_rooms, square_meters
      having sum(delta) <> 0);
  end if;
  if cardinality(deltas) > 0 then
    perform listing_counts_add(deltas);
  end if;
  return null;
end $$;

create function listing_counts_after_truncate() returns trigger language plpgsql as $$
begin
  delete from listing_counts;
  return null;
end $$;

create trigger listing_counts_insert after insert on listings
  referencing new table as new_rows for each statement execute function listing_counts_after();
create trigger listing_counts_update after update on listings
  referencing old table as old_rows new table as new_rows for each statement execute function listing_counts_after();
create trigger listing_counts_delete after delete on listings
  referencing old table as old_rows for each statement execute function listing_counts_after();
create trigger listing_counts_truncate after truncate on listings
  for each statement execute function listing_counts_after_truncate();

select listing_counts_add(array(
  select row(city_key, transaction_type, property_type, asked_price, total_rooms, square_meters, 1)::listing_count_delta
  from listings where status = 'published'));

-- The exact counts of the boundary buckets read only the index: each range column's index carries the other
-- filter columns, so counting the listings priced exactly at a popular round bound touches no table row.
drop index listings_pub_price;
create index listings_pub_price on listings (asked_price)
  include (city_key, transaction_type, property_type, total_rooms, square_meters) where status = 'published';
drop index listings_pub_rooms;
create index listings_pub_rooms on listings (total_rooms)
  include (city_key, transaction_type, property_type, asked_price, square_meters) where status = 'published';
drop index listings_pub_sqm;
create index listings_pub_sqm on listings (square_meters)
  include (city_key, transaction_type, property_type, asked_price, total_rooms) where status = 'published';
