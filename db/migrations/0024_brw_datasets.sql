-- Land-value datasets (issue 33): every import of official land values records where they came from, under
-- which licence, how many zones and of which Stichtag. A state has at most one ACTIVE dataset; lookups read only
-- the zones of active datasets. An import loads its zones into a LOADING dataset in small statements (the
-- service keeps answering meanwhile, also on the shared embedded database), then one short transaction makes it
-- active and the previous one REPLACED; the replaced zones are deleted afterwards in batches.
create table brw_datasets (
  id bigint generated always as identity primary key,
  state text not null check (state ~ '^[A-Z]{2}$'),
  status text not null default 'loading' check (status in ('loading', 'active', 'replaced')),
  -- The newest Stichtag among the dataset's zones; set when it becomes active.
  stichtag date,
  -- Who published the values (named where a value is shown, as the licence requires) and where.
  source text not null check (length(source) between 1 and 500),
  source_url text check (length(source_url) <= 500 and source_url ~ '^https?://'),
  -- A licence identifier such as dl-de/by-2-0, or the licence's name.
  licence text not null check (length(licence) between 1 and 200),
  -- The file layout it was read from (brm_gml, hamburg_wfs, nrw_shape, …).
  layout text not null check (length(layout) between 1 and 40),
  file_name text check (length(file_name) <= 500),
  file_sha256 text check (file_sha256 ~ '^[0-9a-f]{64}$'),
  zone_count integer not null default 0 check (zone_count >= 0),
  created_at timestamptz not null default now(),
  -- When it became active.
  imported_at timestamptz,
  check (status = 'loading' or (stichtag is not null and imported_at is not null))
);

-- One active dataset per state.
create unique index brw_datasets_active on brw_datasets (state) where status = 'active';

alter table brw_zones add column dataset_id bigint references brw_datasets (id);
-- The zone's identity across Stichtage (municipality and zone number, or the geometry): a file holding several
-- Stichtage keeps only the newest value per zone.
alter table brw_zones add column zone_key text check (length(zone_key) <= 200);

-- Zones imported before datasets existed: one active dataset per state, naming the sources and licences they
-- carried.
insert into brw_datasets (state, status, stichtag, source, licence, layout, zone_count, created_at, imported_at)
select state, 'active', max(stichtag), left(string_agg(distinct source, '; '), 500),
  left(string_agg(distinct licence, '; '), 200), 'before_datasets', count(*), min(imported_at), max(imported_at)
from brw_zones
group by state;

update brw_zones z set dataset_id = d.id from brw_datasets d where d.state = z.state;

alter table brw_zones alter column dataset_id set not null;
-- Source and licence belong to the dataset now.
alter table brw_zones drop column source;
alter table brw_zones drop column licence;
-- Replacing a state's Stichtag is replacing its dataset; superseding older values and deleting a replaced
-- dataset go by dataset.
drop index brw_zones_state_stichtag;
create index brw_zones_dataset on brw_zones (dataset_id, zone_key, stichtag);
