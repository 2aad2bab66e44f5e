-- Counts of combined filters as index-only scans: the city and kind indexes also carry the other filter columns,
-- so an exact `total` for "city + transaction type", "type + price range" and the like reads only the index.
drop index listings_pub_city;
create index listings_pub_city on listings (city_key, published_at desc, id desc)
  include (transaction_type, property_type, asked_price, total_rooms, square_meters) where status = 'published';
drop index listings_pub_kind;
create index listings_pub_kind on listings (transaction_type, property_type, published_at desc, id desc)
  include (asked_price, total_rooms, square_meters) where status = 'published';
