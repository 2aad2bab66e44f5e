-- Delivery state of a subscription (issue 32, the `deliveryStatus` of the MCP events draft) and suspended
-- delivery with replay (docs/contract.md §6.4, docs/architecture.md §6.6).
--
-- What the attempts of a subscription told, kept on the subscription so a renewal and the connected-apps page read
-- it with one row instead of the attempt log: when an attempt last succeeded (written at most about once a second
-- while deliveries succeed), when one last failed and its category, since when deliveries have been failing
-- without a success in between, and since when delivery is suspended (the fourth attempt of a delivery failed;
-- null while active). All are machine times of the attempts' ends.
alter table event_subscriptions
  add column last_delivery_at timestamptz,
  add column last_failure_at timestamptz,
  add column last_error text check (last_error in (
    'connection_refused', 'timeout', 'tls_error', 'http_4xx', 'http_5xx', 'challenge_failed'
  )),
  add column failing_since timestamptz,
  add column suspended_at timestamptz,
  -- Missed events are sent again one at a time: the next may not start before this time (10 per second).
  add column next_replay_at timestamptz;

-- `held`: an event kept for a suspended subscription, not sent; released (attempt 1 again) when the subscription
-- is reactivated, dropped when it is older than 24 hours by then.
alter table event_deliveries drop constraint event_deliveries_state_check;
alter table event_deliveries add constraint event_deliveries_state_check
  check (state in ('pending', 'sending', 'delivered', 'failed', 'dropped', 'held'));

-- The kept events of a subscription (few rows: only while suspended).
create index event_deliveries_held on event_deliveries (subscription_id) where state = 'held';
-- Events sent again (a replay after a reactivation, a resend from the page or the operator task) wait at attempt 1;
-- per subscription the earliest one is sent, one at a time (few rows: a new delivery is written after its first
-- attempt, so no other row is pending at attempt 1).
create index event_deliveries_replay on event_deliveries (subscription_id)
  where next_attempt = 1 and state in ('pending', 'sending');
