-- Sorted searches whose filter goes with the order (issue 31, docs/benchmarks.md §3.2): walking an order's index
-- skips every listing the filter drops, and when the filter keeps the far end of the order that is most of them.
--
-- Rooms with the smallest area first: few rooms mean small areas, so "at least 4 rooms, smallest first" walked
-- 280,000 small flats (100 ms at 1,000,000 listings). The rooms index now holds each rooms value's listings in area
-- order, so such a page merges the first entries of each rooms value (db/listing_cells.ts, `per_rooms`); it keeps
-- serving the counts' boundary scans on rooms (migration 0021), as the index it replaces did.
drop index listings_pub_rooms;
create index listings_pub_rooms on listings (total_rooms, square_meters, id)
  include (city_key, transaction_type, property_type, asked_price) where status = 'published';

-- Prices within a town of one transaction type, in both directions and to the id: such a page is now a short walk
-- in its own order (0.2 ms) where migration 0032's index served to read all of the town's matches and sort them
-- (20-40 ms for 25,000 matches, db/listings.ts pageShape).
drop index listings_pub_city_tx_price;
create index listings_pub_city_tx_price on listings (city_key, transaction_type, asked_price, id)
  include (property_type, total_rooms, square_meters) where status = 'published';
create index listings_pub_city_tx_price_desc on listings (city_key, transaction_type, asked_price desc nulls last, id desc)
  include (property_type, total_rooms, square_meters) where status = 'published';

-- Price per m² within a town: it is mostly the town, so an expensive town's cheapest per m² came after most other
-- towns' listings (261,107 entries walked for one Munich page, 113 ms); within the town the walk is short.
create index listings_pub_city_price_per_sqm on listings (city_key, (asked_price / nullif(square_meters, 0)), id)
  include (transaction_type, property_type, asked_price, total_rooms, square_meters) where status = 'published';

-- Areas within a price range: a price goes with an area, so "rent 800-1,200 EUR, largest first" passed the large
-- plots and buildings for sale and the dear rents first (207,508 entries, 83 ms), and "at least 4 rooms, 1,000 to
-- 2,200 EUR, smallest first" the cheap small flats (249,115 entries, 145 ms). Within one cell of the price grid
-- of migration 0021 (two significant digits) the price hardly changes, so such a page merges the first entries
-- of each cell of the range (db/listing_cells.ts, `per_price`).
create index listings_pub_price_cells on listings
  (transaction_type, listing_grid_floor('price', asked_price, false), square_meters, id)
  include (city_key, property_type, asked_price, total_rooms) where status = 'published';
