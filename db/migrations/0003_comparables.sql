-- Comparables for the location baseline: real (non-sample) published listings by PLZ or city and segment.
create index listings_cmp_plz on listings (postal_code, transaction_type, property_type, published_at desc)
  where status = 'published' and not beispiel;
create index listings_cmp_city on listings (city_key, transaction_type, property_type, published_at desc)
  where status = 'published' and not beispiel;
