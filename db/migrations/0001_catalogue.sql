-- The public catalogue: offices, listings (public + internal fields) and the providers' contacts.

-- Normalised city for matching: case-insensitive, umlauts and their ae/oe/ue spellings equal, punctuation and
-- spaces ignored ("München" = "münchen" = "Muenchen"; "Neu-Ulm" = "Neu Ulm").
create function city_key(t text) returns text
  language sql immutable parallel safe strict
  return nullif(
    regexp_replace(
      replace(replace(replace(replace(lower(normalize(t, NFC)), 'ä', 'ae'), 'ö', 'oe'), 'ü', 'ue'), 'ß', 'ss'),
      '[^a-z0-9]+', '', 'g'),
    '');

create table offices (
  id uuid primary key default gen_random_uuid(),
  name text not null check (length(name) between 1 and 200),
  created_at timestamptz not null default now()
);

create table listings (
  id uuid primary key default gen_random_uuid(),
  office_id uuid not null references offices (id),
  status text not null default 'draft' check (status in ('draft', 'published', 'withdrawn')),
  reference text check (length(reference) <= 100),
  title text check (length(title) <= 300),
  description text check (length(description) <= 20000),
  city text check (length(city) <= 100),
  city_key text generated always as (city_key(city)) stored,
  postal_code text check (postal_code ~ '^[0-9]{5}$'),
  property_type text check (property_type in ('apartment', 'house', 'land', 'commercial')),
  transaction_type text check (transaction_type in ('buy', 'rent')),
  asked_price numeric(14, 2) check (asked_price >= 0),
  total_rooms numeric(6, 1) check (total_rooms >= 0),
  square_meters numeric(12, 2) check (square_meters >= 0),
  latitude double precision check (latitude between -90 and 90),
  longitude double precision check (longitude between -180 and 180),
  beispiel boolean not null default false,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  published_at timestamptz,
  check (status <> 'published' or published_at is not null)
);

create unique index listings_office_reference on listings (office_id, reference) where reference is not null;
create index listings_office_status on listings (office_id, status);

-- Public search: every index is partial on published listings and the newest-first order ends in the id tiebreak.
create index listings_pub_order on listings (published_at desc, id desc) where status = 'published';
create index listings_pub_city on listings (city_key, published_at desc, id desc) where status = 'published';
create index listings_pub_kind on listings (transaction_type, property_type, published_at desc, id desc)
  where status = 'published';
create index listings_pub_ptype on listings (property_type, published_at desc, id desc) where status = 'published';
create index listings_pub_price on listings (asked_price) where status = 'published';
create index listings_pub_rooms on listings (total_rooms) where status = 'published';
create index listings_pub_sqm on listings (square_meters) where status = 'published';

-- Provider name and contact: a table of its own that no public query reads.
create table listing_contacts (
  listing_id uuid primary key references listings (id) on delete cascade,
  provider_name text check (length(provider_name) <= 200),
  contact_name text check (length(contact_name) <= 200),
  contact_email text check (length(contact_email) <= 320),
  contact_phone text check (length(contact_phone) <= 50)
);
