-- Sorted searches in one town (issue 31): a town's listings of one transaction type, with their price, rooms and
-- area, so that a sorted search for a city and a transaction type reads its matches from here (an index-only
-- scan bounded by that town's listings of that kind, with the price range as an index condition) and sorts
-- them, instead of walking an order's index past every other town first when prices differ between towns
-- (db/listings.ts pageShape; docs/benchmarks.md §3.2).
create index listings_pub_city_tx_price on listings (city_key, transaction_type, asked_price)
  include (id, property_type, total_rooms, square_meters) where status = 'published';
