-- The service's agent: proposals (`vorschlag`) awaiting a provider's approval, the offices' own text templates,
-- and the listing status `reserved` (kept in the stock, not shown publicly, like `withdrawn` but marked).

alter table listings drop constraint listings_status_check;
alter table listings add constraint listings_status_check
  check (status in ('draft', 'published', 'withdrawn', 'reserved'));

create table proposals (
  id uuid primary key default gen_random_uuid(),
  office_id uuid not null references offices (id) on delete cascade,
  listing_id uuid not null references listings (id) on delete cascade,
  -- The enquiry a reply or rejection answers; null for a property change.
  inquiry_id uuid references inquiries (id) on delete cascade,
  -- The document a property change comes from (table `files`; no foreign key, its migration is separate).
  file_id uuid,
  vorschlag_art text not null check (vorschlag_art in ('reply', 'rejection', 'property_change')),
  -- Whether approving sends something to the enquirer.
  geht_hinaus boolean not null,
  -- The message of a reply or rejection.
  text text check (length(text) between 1 and 10000),
  -- A property change: field -> {alt, neu}.
  aenderungen jsonb,
  status text not null default 'offen' check (status in ('offen', 'freigegeben', 'verworfen')),
  created_at timestamptz not null default now(),
  decided_at timestamptz,
  decided_by text references users (id) on delete set null,
  check ((vorschlag_art = 'property_change') = (aenderungen is not null)),
  check ((vorschlag_art = 'property_change') = (text is null)),
  check ((vorschlag_art = 'property_change') = (inquiry_id is null)),
  check ((status = 'offen') = (decided_at is null))
);
create index proposals_office on proposals (office_id, created_at desc, id desc);
create index proposals_office_status on proposals (office_id, status, created_at desc, id desc);
create index proposals_listing on proposals (listing_id, created_at desc, id desc);
create index proposals_inquiry on proposals (inquiry_id) where inquiry_id is not null;

-- An office's own text of reply or rejection drafts (placeholders such as {name}, {titel}, {termine});
-- without a row the built-in German default applies.
create table office_templates (
  office_id uuid not null references offices (id) on delete cascade,
  art text not null check (art in ('reply', 'rejection')),
  text text not null check (length(text) between 1 and 4000),
  updated_at timestamptz not null default now(),
  primary key (office_id, art)
);
