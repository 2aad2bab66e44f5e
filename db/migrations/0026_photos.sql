-- Photos of listings (issue 31, docs/architecture.md §15). A photo belongs to one listing and its office and has
-- a place in the listing's order (position 0 is the title image) and an alt text. What is stored is only what the
-- service derived from the upload (re-encoded pixels, no metadata): its variants, each addressed by the SHA-256
-- of its bytes. The uploaded bytes themselves are not kept; their hash keeps one listing from getting the same
-- upload twice.

create table photos (
  id uuid primary key default gen_random_uuid(),
  listing_id uuid not null references listings (id) on delete cascade,
  -- The listing's office: a provider sees and changes the photos of its office only.
  office_id uuid not null references offices (id),
  -- 0 is the title image; the positions of a listing are 0 … n-1 (kept so by photos/photos.ts). Checked at the
  -- end of each statement, so one statement can move several photos.
  position int not null check (position >= 0),
  alt_text text check (length(alt_text) between 1 and 300),
  -- What was uploaded: its type told by content, its size and its hash (lower-case hex SHA-256).
  source_type text not null check (source_type in ('jpeg', 'png', 'webp')),
  source_bytes int not null check (source_bytes > 0),
  source_sha256 text not null check (source_sha256 ~ '^[0-9a-f]{64}$'),
  -- Width and height of the largest variant (upright).
  width int not null check (width > 0),
  height int not null check (height > 0),
  created_at timestamptz not null,
  unique (listing_id, source_sha256),
  constraint photos_listing_position unique (listing_id, position) deferrable initially immediate
);
create index photos_office on photos (office_id);

create table photo_variants (
  photo_id uuid not null references photos (id) on delete cascade,
  mime text not null check (mime in ('image/webp', 'image/jpeg')),
  width int not null check (width > 0),
  height int not null check (height > 0),
  -- Lower-case hex SHA-256 of bytes: the variant's address (/fotos/<sha256>-<width>.<webp|jpg>) and ETag.
  sha256 text not null check (sha256 ~ '^[0-9a-f]{64}$'),
  size_bytes int not null check (size_bytes > 0),
  bytes bytea not null,
  primary key (photo_id, mime, width)
);
create index photo_variants_sha256 on photo_variants (sha256);
