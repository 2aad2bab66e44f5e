-- Event subscriptions of connected apps (spec 2.5, 4.4, 6), address verifications, the person's switched-off
-- events per app, and the deliveries of outbox events with every attempt logged (DESIGN 5).

create table event_subscriptions (
  -- sub_ followed by 26 random base32 characters; also sent as x-mcp-subscription-id.
  id text primary key check (id ~ '^sub_[a-z2-7]{26}$'),
  user_id text not null references users (id) on delete cascade,
  -- The OAuth client (app) of the connection the subscription was made through.
  client_id text not null,
  server text not null check (server in ('anbieter', 'suche')),
  -- The provider's office when subscribing (provider server); events of other offices never match.
  office_id uuid references offices (id) on delete cascade,
  name text not null check (length(name) <= 100),
  -- The filter (validated against the event's filter schema); matched by containment in the event's data.
  arguments jsonb not null,
  -- Canonical JSON of arguments (sorted keys): part of the subscription's identity.
  arguments_key text not null check (length(arguments_key) <= 2000),
  url text not null check (length(url) <= 2048),
  -- Webhook secrets, AES-256-GCM encrypted with a key derived from AUTH_SECRET (never stored in clear).
  secret_enc text not null,
  previous_secret_enc text,
  previous_secret_until timestamptz,
  created_at timestamptz not null,
  renewed_at timestamptz not null,
  expires_at timestamptz not null,
  ended_at timestamptz,
  end_reason text check (end_reason in (
    'unsubscribed', 'ended_by_user', 'disconnected', 'access_closed', 'insufficient_scope', 'gone'
  )),
  -- A terminated control message is owed (revoked by the service) and when it was sent.
  terminate_pending boolean not null default false,
  terminated_sent_at timestamptz,
  check ((server = 'anbieter') = (office_id is not null))
);
-- One live subscription per identity (person, app, server, event, filter, address).
create unique index event_subscriptions_identity on event_subscriptions
  (user_id, client_id, server, name, arguments_key, url) where ended_at is null;
create index event_subscriptions_match on event_subscriptions (server, name) where ended_at is null;
create index event_subscriptions_app on event_subscriptions (user_id, client_id) where ended_at is null;
create index event_subscriptions_terminate on event_subscriptions (ended_at) where terminate_pending;

-- A verified address holds for 24 hours per person, app and address (spec 6.1).
create table webhook_verifications (
  user_id text not null references users (id) on delete cascade,
  client_id text not null,
  url text not null check (length(url) <= 2048),
  verified_at timestamptz not null,
  primary key (user_id, client_id, url)
);

-- Events a person switched off for one app on the connected-apps page (renewal fails with ended_by_user).
create table event_opt_outs (
  user_id text not null references users (id) on delete cascade,
  client_id text not null,
  name text not null check (length(name) <= 100),
  created_at timestamptz not null,
  primary key (user_id, client_id, name)
);

-- One row per (event, subscription): the state machine of its up to four attempts.
create table event_deliveries (
  id uuid primary key default gen_random_uuid(),
  outbox_id uuid not null references event_outbox (id) on delete cascade,
  subscription_id text not null references event_subscriptions (id) on delete cascade,
  state text not null default 'pending' check (state in ('pending', 'sending', 'delivered', 'failed', 'dropped')),
  -- The attempt to make next (1..4) while pending or sending; the last one made afterwards.
  next_attempt integer not null default 1 check (next_attempt between 1 and 10),
  -- Machine time (not the domain clock): when the next attempt is due, and until when a sender holds it.
  next_attempt_at timestamptz not null,
  lease_until timestamptz,
  created_at timestamptz not null,
  finished_at timestamptz,
  unique (outbox_id, subscription_id)
);
create index event_deliveries_due on event_deliveries (next_attempt_at) where state in ('pending', 'sending');
create index event_deliveries_subscription on event_deliveries (subscription_id, created_at desc);

-- Every attempt: when, how long, the status or the error class, and what followed.
create table event_delivery_attempts (
  id bigint generated always as identity primary key,
  delivery_id uuid not null references event_deliveries (id) on delete cascade,
  attempt integer not null,
  started_at timestamptz not null,
  duration_ms integer not null,
  status integer,
  error_class text check (length(error_class) <= 60),
  outcome text not null check (outcome in ('delivered', 'retry', 'failed', 'gone', 'dropped'))
);
create index event_delivery_attempts_delivery on event_delivery_attempts (delivery_id, attempt);
