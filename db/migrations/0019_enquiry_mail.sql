-- Mails to enquirers and retries of every outgoing mail (issue 21).
--
-- mail_outbox gets the state of its sending: attempts so far, when the next one is due (null: nothing to do:
-- sent, given up, stopped, or recorded without SMTP), who holds it (a lease in domain time, so two instances never
-- send one mail at once), the last error (redacted), when it was given up; and for a mail to an enquirer the
-- enquiry (its Reply-To address and stop line are added when it is sent, from inquiry_mail_tokens).
alter table mail_outbox
  add column attempts int not null default 0,
  add column next_attempt_at timestamptz,
  add column lease_until timestamptz,
  add column last_error text,
  add column given_up_at timestamptz,
  add column inquiry_id uuid references inquiries (id) on delete set null;
create index mail_outbox_due on mail_outbox (next_attempt_at) where sent_at is null and next_attempt_at is not null;
create index mail_outbox_given_up on mail_outbox (given_up_at) where given_up_at is not null and sent_at is null;
create index mail_outbox_inquiry on mail_outbox (inquiry_id) where inquiry_id is not null;

-- Per enquiry: the token of its reply address (anfrage-<id>-<token>@INTAKE_MAIL_DOMAIN) and of its stop link,
-- both 20 base32 characters (100 bits), and when the enquirer stopped mails about it.
create table inquiry_mail_tokens (
  inquiry_id uuid primary key references inquiries (id) on delete cascade,
  reply_token text not null check (reply_token ~ '^[a-z2-7]{20}$'),
  stop_token text not null check (stop_token ~ '^[a-z2-7]{20}$'),
  stopped_at timestamptz,
  created_at timestamptz not null default now()
);

-- A seeker account's choice about mails on their enquiries (absent: mails on).
create table enquiry_mail_settings (
  user_id text primary key references "users" ("id") on delete cascade,
  mails_off boolean not null,
  updated_at timestamptz not null default now()
);
