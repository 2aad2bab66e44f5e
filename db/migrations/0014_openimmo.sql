-- OpenImmo stock import: a listing's external object number (objektnr_extern), unique per office where set.
alter table listings add column external_number text check (length(external_number) between 1 and 100);

create unique index listings_office_external_number on listings (office_id, external_number)
  where external_number is not null;
