-- Enquiries that arrived by e-mail or from a portal: the message id of each accepted one, written in the same
-- transaction as its enquiry, so a repeat (same quelle and message id) is recognised and never creates a second.

create table intake_messages (
  quelle text not null check (quelle in ('email', 'portal')),
  -- E-mail: the Message-ID without angle brackets (case kept), or "sha256:<hex>" of the raw message when it has
  -- none. Portal: "<sender>:<int_id>" or "sha256:<hex>" of sender, oobj_id, e-mail and text.
  message_id text not null check (length(message_id) between 1 and 500),
  inquiry_id uuid not null references inquiries (id) on delete cascade,
  received_at timestamptz not null default now(),
  unique (quelle, message_id)
);
create index intake_messages_inquiry on intake_messages (inquiry_id);
