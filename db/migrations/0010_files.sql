-- Documents on listings (issue 7 item 2): the uploaded PDF itself with its SHA-256 hash, and the result of the
-- queued job that reads it (status, error code, extracted values). A file is stored once per listing and hash.

create table files (
  id uuid primary key default gen_random_uuid(),
  listing_id uuid not null references listings (id) on delete cascade,
  -- The listing's office at upload: a provider sees the files of its office only.
  office_id uuid not null references offices (id),
  name text not null check (length(name) between 1 and 200),
  -- The provider's claim of what the document is.
  sorte text not null check (sorte in ('brochure', 'energy_certificate', 'other')),
  content bytea not null,
  size_bytes int not null check (size_bytes >= 0),
  -- Lower-case hex SHA-256 of content.
  sha256 text not null check (sha256 ~ '^[0-9a-f]{64}$'),
  status text not null default 'pending' check (status in ('pending', 'processed', 'failed')),
  -- Why the job could not read it (status failed only).
  fehler text check (fehler in ('not_pdf', 'encrypted', 'empty', 'no_text', 'unreadable')),
  -- The values read from it (status processed; {} otherwise).
  angaben jsonb not null default '{}'::jsonb,
  -- What the text says the document is (status processed), and a German note when it contradicts sorte.
  erkannte_sorte text check (erkannte_sorte in ('brochure', 'energy_certificate', 'other')),
  hinweis text check (length(hinweis) <= 300),
  -- The app that uploaded it: its file.processed event is not sent back to it.
  origin_client_id text,
  origin_api_key_id uuid,
  uploaded_at timestamptz not null,
  -- When the job was last asked for (upload or sweep); the sweep re-asks for pending files after ~30 s.
  queued_at timestamptz not null,
  processed_at timestamptz,
  unique (listing_id, sha256),
  check ((status = 'failed') = (fehler is not null)),
  check ((status = 'pending') = (processed_at is null))
);
create index files_office on files (office_id, uploaded_at desc, id desc);
create index files_listing on files (listing_id, uploaded_at desc, id desc);
create index files_pending on files (queued_at) where status = 'pending';
