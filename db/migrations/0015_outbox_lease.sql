-- Event delivery writes each delivery once, when its first attempt is recorded (issue 6, bench:events): until
-- then the drainer holds the outbox row with a lease (machine time). A drainer that dies leaves the row to the
-- sweep once the lease ran out; the sweep creates only the deliveries that are still missing.
alter table event_outbox add column lease_until timestamptz;
