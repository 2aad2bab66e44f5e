-- The social inbox (issue 7 item 3): pages of a social network connected to an office, and the comments and
-- messages received on them through the network's webhooks.

-- A page (Facebook page or Instagram account) belongs to at most one office; reconnecting moves it.
create table social_pages (
  netz text not null check (netz in ('facebook', 'instagram')),
  page_id text not null check (page_id ~ '^[0-9A-Za-z_.-]{1,100}$'),
  office_id uuid not null references offices (id) on delete cascade,
  name text check (length(name) between 1 and 200),
  connected_at timestamptz not null,
  primary key (netz, page_id)
);
create index social_pages_office on social_pages (office_id);

-- One row per comment or message; the network's id of it is unique per network (a replayed webhook adds nothing).
create table social_entries (
  id uuid primary key default gen_random_uuid(),
  office_id uuid not null references offices (id) on delete cascade,
  netz text not null check (netz in ('facebook', 'instagram')),
  art text not null check (art in ('comment', 'message')),
  -- comment_id (Facebook), the comment's id (Instagram) or the message's mid.
  external_id text not null check (length(external_id) between 1 and 300),
  page_id text not null check (length(page_id) between 1 and 100),
  -- The post or media a comment is on (null for messages).
  post_id text check (length(post_id) <= 300),
  -- The author's id in the network and the name or username the network sent (messages carry no name).
  author_id text check (length(author_id) <= 300),
  author_name text check (length(author_name) <= 300),
  -- Empty for a message that holds only attachments.
  text text not null check (length(text) <= 20000),
  -- The office's listing named by a link or reference in the text, else null.
  listing_id uuid references listings (id) on delete set null,
  received_at timestamptz not null,
  unique (netz, external_id)
);
create index social_entries_office on social_entries (office_id, received_at desc, id desc);
create index social_entries_listing on social_entries (listing_id, received_at desc) where listing_id is not null;
