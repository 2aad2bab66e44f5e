-- Background work lives in Postgres and is woken through Postgres (docs/architecture.md §8).
--
-- Every kind of job is a row with a due time, claimed by whichever instance comes first (`for update skip locked`
-- plus a lease): outbox rows, delivery attempts, owed `terminated` messages, uploaded documents, mails, and the
-- periodic runs below. A commit that creates work wakes the instances with `pg_notify('jobs', <kind>)` from the
-- triggers here: notifications are sent at commit only (never for a rolled-back transaction), once per kind and
-- transaction, to every listening instance.

-- Periodic runs (viewing reminders, saved-search runs): one row each; whoever claims a due row runs it once for
-- its period, and the row moves on to the next period at the claim.
create table job_schedules (
  name text primary key,
  next_run_at timestamptz not null
);
insert into job_schedules (name, next_run_at) values ('viewing_reminders', now()), ('saved_searches', now());

-- Documents: `queued_at` was "when the job was last asked for"; it is now when the file is due to be read (the
-- upload time, then a lease while an instance reads it).
alter table files rename column queued_at to due_at;
alter index files_pending rename to files_due;

-- A claimed delivery attempt or mail is due again when its claim runs out (its holder died), so one column says
-- when each row next needs attention and the next due time is one index read.
update event_deliveries set next_attempt_at = lease_until where state = 'sending' and lease_until is not null;
update mail_outbox set next_attempt_at = lease_until
  where sent_at is null and next_attempt_at is not null and lease_until > next_attempt_at;

-- Statement-level for inserts (one notification per statement that inserted rows; none for a statement that
-- inserted nothing), row-level for the owed `terminated` message (only when a row became owed, so the job that
-- takes the owed messages, which updates the same column, does not wake itself).
create function jobs_notify_inserted() returns trigger language plpgsql as $$
begin
  if exists (select 1 from new_rows) then
    perform pg_notify('jobs', tg_argv[0]);
  end if;
  return null;
end $$;

create function jobs_notify() returns trigger language plpgsql as $$
begin
  perform pg_notify('jobs', tg_argv[0]);
  return null;
end $$;

create trigger event_outbox_jobs after insert on event_outbox referencing new table as new_rows
  for each statement execute function jobs_notify_inserted('outbox');
create trigger mail_outbox_jobs after insert on mail_outbox referencing new table as new_rows
  for each statement execute function jobs_notify_inserted('mail');
create trigger files_jobs after insert on files referencing new table as new_rows
  for each statement execute function jobs_notify_inserted('document');
create trigger event_subscriptions_jobs after update of terminate_pending on event_subscriptions
  for each row when (new.terminate_pending and not old.terminate_pending) execute function jobs_notify('terminate');
