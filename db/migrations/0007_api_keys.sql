-- API keys: a person's long-lived credentials for the MCP endpoint. Only the SHA-256 hex of the whole key is
-- stored (plus its first 12 characters for lists); the plain key is shown once at creation (auth/api_keys.ts).
create table api_keys (
  id uuid primary key default gen_random_uuid(),
  user_id text not null references "users" ("id") on delete cascade,
  name text not null check (length(name) between 1 and 100),
  key_hash text not null unique,
  display_prefix text not null,
  created_at timestamptz not null default now(),
  last_used_at timestamptz,
  revoked_at timestamptz
);
create index api_keys_user on api_keys (user_id, created_at);
