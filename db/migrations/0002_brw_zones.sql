-- Official land values (Bodenrichtwerte): one row per zone and Stichtag, geometry in WGS84 as GeoJSON.
--
-- Point lookup without PostGIS: `bbox` is the zone's bounding box as a core Postgres `box` (x = lng, y = lat) with
-- a GiST index (core access method and operator class, identical on PGlite and a server). A lookup asks for the
-- boxes that contain the degenerate box of the point (`bbox @> box(p, p)`, index-backed; core geometric
-- comparisons are fuzzy by 1e-6, so the candidate set can only be larger, never smaller), then valuation/geometry.ts
-- tests each candidate exactly.
create table brw_zones (
  id bigint generated always as identity primary key,
  state text not null check (state ~ '^[A-Z]{2}$'),
  stichtag date not null,
  brw numeric not null check (brw > 0),
  gfz numeric check (gfz > 0 and gfz <= 50),
  wgfz numeric check (wgfz > 0 and wgfz <= 50),
  nutzung text check (length(nutzung) between 1 and 20),
  entwicklung text check (length(entwicklung) between 1 and 10),
  zone_name text check (length(zone_name) <= 300),
  zone_number text check (length(zone_number) <= 50),
  municipality_name text check (length(municipality_name) <= 200),
  municipality_key text check (municipality_key ~ '^[0-9]{2,12}$'),
  -- Normalised municipality for matching by name, the same normalisation as listings.city_key.
  municipality_norm text generated always as (city_key(municipality_name)) stored,
  source text not null check (length(source) between 1 and 500),
  licence text not null check (length(licence) between 1 and 500),
  geometry jsonb not null
    check (jsonb_typeof(geometry) = 'object' and geometry ->> 'type' in ('Polygon', 'MultiPolygon')),
  min_lat double precision not null check (min_lat between -90 and 90),
  max_lat double precision not null check (max_lat between -90 and 90),
  min_lng double precision not null check (min_lng between -180 and 180),
  max_lng double precision not null check (max_lng between -180 and 180),
  bbox box generated always as (box(point(min_lng, min_lat), point(max_lng, max_lat))) stored,
  imported_at timestamptz not null default now(),
  check (min_lat <= max_lat and min_lng <= max_lng)
);

create index brw_zones_bbox on brw_zones using gist (bbox);
-- Replacing one state's Stichtag.
create index brw_zones_state_stichtag on brw_zones (state, stichtag);
-- The municipality median (lookup by normalised name, optionally by state).
create index brw_zones_municipality on brw_zones (municipality_norm, state, stichtag);
