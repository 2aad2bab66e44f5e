-- Revocation of OAuth grants and of single access tokens. Access tokens are JWTs that are not stored, so ending a
-- grant has to reach the MCP check, which reads these tables in its one statement per request:
-- * oauth_grant_cutoffs: per connection (person, app) the moment every grant of it ended; access tokens issued
--   before it are refused. Written by the triggers below whenever a grant ends in better-auth's tables or ours:
--   a live refresh token deleted (a reused refresh token deletes the whole family, a replayed code the tokens it
--   gave, "Trennen" all of them), a refresh token revoked without being rotated (RFC 7009), a consent deleted.
--   Rows are needed only while an access token issued before them can be alive (10 minutes); a day is kept.
--   No foreign keys: the triggers also run while a person or an app is being deleted.
-- * oauth_revoked_access_tokens: the jti of each access token revoked by RFC 7009, until the token expires.
-- * oauth_code_exchanges: which connection an authorization code was exchanged for, while the access token it
--   gave is alive, so that a replay of the code can end that connection's grants (the code itself is gone).
-- Times come from the database clock (clock_timestamp), as does the issue time the access tokens carry (iat_us).
create table oauth_grant_cutoffs (
  user_id text not null,
  client_id text not null,
  not_before timestamptz not null,
  primary key (user_id, client_id)
);
create index oauth_grant_cutoffs_age on oauth_grant_cutoffs (not_before);

create table oauth_revoked_access_tokens (
  jti text primary key,
  expires_at timestamptz not null
);
create index oauth_revoked_access_tokens_expiry on oauth_revoked_access_tokens (expires_at);

create table oauth_code_exchanges (
  code_hash text primary key,
  user_id text not null,
  client_id text not null,
  expires_at timestamptz not null
);
create index oauth_code_exchanges_expiry on oauth_code_exchanges (expires_at);

-- Ends every grant of the connections (user_id, client_id) in the transition table `gone` (deleted rows) or of
-- the one row NEW (a revoked refresh token) now, and forgets cutoffs older than a day.
create function oauth_grants_ended() returns trigger language plpgsql as $$
declare
  cut_at timestamptz := clock_timestamp();
begin
  if tg_op = 'UPDATE' then
    insert into oauth_grant_cutoffs values (new."userId", new."clientId", cut_at)
      on conflict (user_id, client_id) do update set not_before = greatest(oauth_grant_cutoffs.not_before, cut_at);
  elsif tg_table_name = 'oauthRefreshToken' then
    insert into oauth_grant_cutoffs
      select distinct "userId", "clientId", cut_at from gone where "expiresAt" > cut_at
      on conflict (user_id, client_id) do update set not_before = greatest(oauth_grant_cutoffs.not_before, cut_at);
  else
    insert into oauth_grant_cutoffs
      select distinct "userId", "clientId", cut_at from gone where "userId" is not null
      on conflict (user_id, client_id) do update set not_before = greatest(oauth_grant_cutoffs.not_before, cut_at);
  end if;
  delete from oauth_grant_cutoffs where not_before < cut_at - interval '1 day';
  return null;
end
$$;

create trigger oauth_refresh_tokens_deleted after delete on "oauthRefreshToken"
  referencing old table as gone for each statement execute function oauth_grants_ended();
-- Rotation sets "revoked" and "rotatedAt" together; RFC 7009 revocation (and back-channel logout) only "revoked".
create trigger oauth_refresh_token_revoked after update of revoked on "oauthRefreshToken" for each row
  when (old.revoked is null and new.revoked is not null and new."rotatedAt" is null)
  execute function oauth_grants_ended();
create trigger oauth_consents_deleted after delete on "oauthConsent"
  referencing old table as gone for each statement execute function oauth_grants_ended();
