-- E-mail alerts of saved searches (issue 31, docs/contract.md §4.9).
--
-- alert: off, daily (at most one mail in 24 hours with every new match since the last) or instant (one mail per run
-- that found new matches). alert_token: the 20 base32 characters (100 bits) of the alert's stop link, new each
-- time the alert is switched on, so a link of an earlier mail or of another search stops nothing else.
-- alert_since: matches found after it are not mailed yet (the last alert mail, or when the alert was switched on).
alter table saved_searches
  add column alert text not null default 'off' check (alert in ('off', 'daily', 'instant')),
  add column alert_token text check (alert_token ~ '^[a-z2-7]{20}$'),
  add column alert_since timestamptz;

-- An alert mail names its saved search: its stop line is added when it is sent, an alert switched off meanwhile
-- keeps it from being sent, and deleting the search deletes its mails.
alter table mail_outbox
  add column saved_search_id uuid references saved_searches (id) on delete cascade;
create index mail_outbox_saved_search on mail_outbox (saved_search_id) where saved_search_id is not null;
