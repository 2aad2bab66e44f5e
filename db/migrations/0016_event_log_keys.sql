-- The event bookkeeping rows (issue 6, bench:events) are written several thousand times a second: one outbox row
-- per event, one delivery row and one attempt row per webhook. Their foreign keys were checked row by row, each
-- check a locking lookup of the parent (EXPLAIN ANALYZE of a 70-delivery record statement: 2.4 of 5.5 ms), and
-- every event of one office took a KEY SHARE lock on the same office row (pgbench, 16 clients, the outbox insert:
-- 7,341 transactions/s with that key, 9,142 without). These four keys are dropped:
-- * an outbox row names the office of the action that recorded it, in that action's transaction;
-- * a delivery is written by the dispatcher from an outbox row and a subscription it has just read in one
--   statement, and the record statement writes it only while both still exist;
-- * an attempt row is written in the same statement as its delivery or against an existing one.
-- What the keys also did, remove the dependent rows with their parent, is kept by statement-level triggers (they
-- run once per deleting statement, not per written row). The owner_user_id key stays: seekers are one row each.
alter table event_outbox drop constraint event_outbox_owner_office_id_fkey;
alter table event_deliveries drop constraint event_deliveries_outbox_id_fkey,
  drop constraint event_deliveries_subscription_id_fkey;
alter table event_delivery_attempts drop constraint event_delivery_attempts_delivery_id_fkey;

create function event_rows_cascade() returns trigger language plpgsql as $$
begin
  if tg_table_name = 'offices' then
    delete from event_outbox where owner_office_id in (select id from gone);
  elsif tg_table_name = 'event_outbox' then
    delete from event_deliveries where outbox_id in (select id from gone);
  elsif tg_table_name = 'event_subscriptions' then
    delete from event_deliveries where subscription_id in (select id from gone);
  elsif tg_table_name = 'event_deliveries' then
    delete from event_delivery_attempts where delivery_id in (select id from gone);
  end if;
  return null;
end
$$;

create trigger offices_event_rows after delete on offices
  referencing old table as gone for each statement execute function event_rows_cascade();
create trigger event_outbox_event_rows after delete on event_outbox
  referencing old table as gone for each statement execute function event_rows_cascade();
create trigger event_subscriptions_event_rows after delete on event_subscriptions
  referencing old table as gone for each statement execute function event_rows_cascade();
create trigger event_deliveries_event_rows after delete on event_deliveries
  referencing old table as gone for each statement execute function event_rows_cascade();
