-- Sorting and place search (issue 31): an index per sort order of catalogue/sort.ts, each ending in the id (the
-- tiebreak of every order) and carrying the filter columns, so that a sorted page takes its ids from an
-- index-only scan whatever the filters; listings without the sorted value come last in either direction.
-- The price and area indexes of migration 0021 gain the id and keep serving the counts' boundary scans.
drop index listings_pub_price;
create index listings_pub_price on listings (asked_price, id)
  include (city_key, transaction_type, property_type, total_rooms, square_meters) where status = 'published';
create index listings_pub_price_desc on listings (asked_price desc nulls last, id desc)
  include (city_key, transaction_type, property_type, total_rooms, square_meters) where status = 'published';

drop index listings_pub_sqm;
create index listings_pub_sqm on listings (square_meters, id)
  include (city_key, transaction_type, property_type, asked_price, total_rooms) where status = 'published';
create index listings_pub_sqm_desc on listings (square_meters desc nulls last, id desc)
  include (city_key, transaction_type, property_type, asked_price, total_rooms) where status = 'published';

-- Price per m²: asked price / area, null when either is unknown or the area is 0 (db/listings.ts orderSql).
create index listings_pub_price_per_sqm on listings ((asked_price / nullif(square_meters, 0)), id)
  include (city_key, transaction_type, property_type, asked_price, total_rooms, square_meters)
  where status = 'published';

-- The same orders within a transaction type (prices) or a property type (areas): a rent's price and a buy's
-- differ a thousandfold and land has the largest areas, so walking the indexes above for "rent, highest price
-- first" or "apartments, largest first" would skip hundreds of thousands of listings of the other kind first
-- (docs/benchmarks.md §3.2).
create index listings_pub_tx_price on listings (transaction_type, asked_price, id)
  include (city_key, property_type, total_rooms, square_meters) where status = 'published';
create index listings_pub_tx_price_desc on listings (transaction_type, asked_price desc nulls last, id desc)
  include (city_key, property_type, total_rooms, square_meters) where status = 'published';
create index listings_pub_tx_price_per_sqm on listings (transaction_type, (asked_price / nullif(square_meters, 0)), id)
  include (city_key, property_type, asked_price, total_rooms, square_meters) where status = 'published';
create index listings_pub_type_sqm on listings (property_type, square_meters, id)
  include (city_key, transaction_type, asked_price, total_rooms) where status = 'published';
create index listings_pub_type_sqm_desc on listings (property_type, square_meters desc nulls last, id desc)
  include (city_key, transaction_type, asked_price, total_rooms) where status = 'published';

-- The place filters of the search page and MCP: a postcode (newest first within it), and a radius read by the
-- bounding box of its circle.
create index listings_pub_postcode on listings (postal_code, published_at desc, id desc)
  include (transaction_type, property_type, asked_price, total_rooms, square_meters) where status = 'published';
create index listings_pub_coords on listings (latitude, longitude)
  include (city_key, transaction_type, property_type, asked_price, total_rooms, square_meters)
  where status = 'published' and latitude is not null and longitude is not null;
