-- Enquiries and their messages, viewing slots and bookings, saved searches and their matches, and the event
-- outbox that every triggering action writes in the same transaction.

create table inquiries (
  id uuid primary key default gen_random_uuid(),
  listing_id uuid not null references listings (id),
  -- The listing's office when the enquiry arrived: a provider sees the enquiries of its office.
  office_id uuid not null references offices (id),
  quelle text not null check (quelle in ('service', 'portal', 'email')),
  -- The enquirer: a seeker account, or (form, portal, e-mail) only name + e-mail + optional phone.
  seeker_id text references users (id) on delete set null,
  name text check (length(name) <= 200),
  -- Lower-cased; the per-address limit of spec §8 counts on it.
  email text not null check (length(email) between 3 and 320),
  phone text check (length(phone) <= 50),
  status text not null default 'open' check (status in ('open', 'answered', 'rejected', 'closed')),
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);
create index inquiries_office on inquiries (office_id, created_at desc, id desc);
create index inquiries_seeker on inquiries (seeker_id, created_at desc, id desc) where seeker_id is not null;
create index inquiries_listing on inquiries (listing_id, created_at desc);
create index inquiries_email on inquiries (email, created_at desc);

create table inquiry_messages (
  id uuid primary key default gen_random_uuid(),
  inquiry_id uuid not null references inquiries (id) on delete cascade,
  sender text not null check (sender in ('seeker', 'provider')),
  -- The person who wrote it, when known (a provider, or a seeker with an account).
  author_id text references users (id) on delete set null,
  body text not null check (length(body) between 1 and 10000),
  created_at timestamptz not null default now()
);
create index inquiry_messages_thread on inquiry_messages (inquiry_id, created_at, id);

create table viewing_slots (
  id uuid primary key default gen_random_uuid(),
  listing_id uuid not null references listings (id),
  office_id uuid not null references offices (id),
  starts_at timestamptz not null,
  ends_at timestamptz not null,
  places integer not null check (places between 1 and 500),
  status text not null default 'open' check (status in ('open', 'cancelled')),
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  check (ends_at > starts_at)
);
create index viewing_slots_listing on viewing_slots (listing_id, starts_at);
create index viewing_slots_office on viewing_slots (office_id, starts_at);
create index viewing_slots_upcoming on viewing_slots (starts_at) where status = 'open';

create table viewing_bookings (
  id uuid primary key default gen_random_uuid(),
  slot_id uuid not null references viewing_slots (id),
  inquiry_id uuid not null references inquiries (id) on delete cascade,
  status text not null default 'booked' check (status in ('booked', 'cancelled')),
  created_at timestamptz not null default now(),
  cancelled_at timestamptz
);
-- One booked slot per enquiry at a time; a move cancels the old booking and books the new slot.
create unique index viewing_bookings_one_active on viewing_bookings (inquiry_id) where status = 'booked';
create index viewing_bookings_slot on viewing_bookings (slot_id) where status = 'booked';

-- viewing.upcoming fired for a slot, per window and start time: exactly once each (a moved slot fires again).
create table viewing_reminders (
  slot_id uuid not null references viewing_slots (id) on delete cascade,
  fenster text not null check (fenster in ('24h', '1h')),
  starts_at timestamptz not null,
  created_at timestamptz not null default now(),
  primary key (slot_id, fenster, starts_at)
);

create table saved_searches (
  id uuid primary key default gen_random_uuid(),
  seeker_id text not null references users (id) on delete cascade,
  name text check (length(name) <= 200),
  -- The catalogue's filters (spec 4.1 without paging), validated by the domain module.
  filters jsonb not null,
  -- Listings published after this moment are new for the next run.
  last_run_at timestamptz not null default now(),
  created_at timestamptz not null default now()
);
create index saved_searches_seeker on saved_searches (seeker_id, created_at);
create index saved_searches_due on saved_searches (last_run_at);

create table saved_search_matches (
  saved_search_id uuid not null references saved_searches (id) on delete cascade,
  listing_id uuid not null references listings (id) on delete cascade,
  found_at timestamptz not null default now(),
  primary key (saved_search_id, listing_id)
);
create index saved_search_matches_recent on saved_search_matches (saved_search_id, found_at desc);

-- Events waiting for delivery (DESIGN §5). `data` holds exactly the spec's fields (IDs and `satz`).
create table event_outbox (
  id uuid primary key default gen_random_uuid(),
  server text not null check (server in ('anbieter', 'suche')),
  name text not null check (length(name) <= 100),
  data jsonb not null,
  -- Whom it concerns: an office (provider server) or a seeker (seeker server).
  owner_office_id uuid references offices (id) on delete cascade,
  owner_user_id text references users (id) on delete cascade,
  -- The app that caused it (not sent back to it); both null when a person acted in a browser or the service did.
  origin_client_id text,
  origin_api_key_id uuid,
  created_at timestamptz not null default now(),
  dispatched_at timestamptz,
  check ((owner_office_id is null) <> (owner_user_id is null))
);
create index event_outbox_pending on event_outbox (created_at, id) where dispatched_at is null;
create index event_outbox_recent on event_outbox (created_at desc, id desc);
