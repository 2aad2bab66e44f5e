/** Kysely table types of the event machinery (outbox, subscriptions, deliveries); `schema.ts` joins them into `Database`. */
import type { ColumnType, Generated } from "kysely";
import type { GeneratedTimestamp, Timestamp } from "./column_types.ts";

/** An event waiting for delivery (or delivered): name, data, owner and the app that caused it. */
export interface EventOutboxTable {
  id: Generated<string>;
  server: "anbieter" | "suche";
  name: string;
  /** The event's data (written as JSON text). */
  data: ColumnType<unknown, string, string>;
  owner_office_id: string | null;
  owner_user_id: string | null;
  origin_client_id: string | null;
  origin_api_key_id: string | null;
  created_at: GeneratedTimestamp;
  dispatched_at: Timestamp | null;
  /** Until when a drainer holds the row (machine time, migration 0015); null when nobody does. */
  lease_until: Timestamp | null;
}

/** An app's subscription to one event (migration 0009). */
export interface EventSubscriptionsTable {
  id: string;
  user_id: string;
  client_id: string;
  server: "anbieter" | "suche";
  office_id: string | null;
  name: string;
  arguments: ColumnType<unknown, string, string>;
  arguments_key: string;
  url: string;
  secret_enc: string;
  previous_secret_enc: string | null;
  previous_secret_until: Timestamp | null;
  created_at: Timestamp;
  renewed_at: Timestamp;
  expires_at: Timestamp;
  ended_at: Timestamp | null;
  end_reason: string | null;
  terminate_pending: Generated<boolean>;
  terminated_sent_at: Timestamp | null;
  last_delivery_at: Timestamp | null;
  last_failure_at: Timestamp | null;
  last_error: string | null;
  failing_since: Timestamp | null;
  suspended_at: Timestamp | null;
  next_replay_at: Timestamp | null;
}

/** A verified webhook address per person, app and address. */
export interface WebhookVerificationsTable {
  user_id: string;
  client_id: string;
  url: string;
  verified_at: Timestamp;
}

/** An event a person switched off for one app. */
export interface EventOptOutsTable {
  user_id: string;
  client_id: string;
  name: string;
  created_at: Timestamp;
}

/** The delivery of one outbox event to one subscription. */
export interface EventDeliveriesTable {
  id: Generated<string>;
  outbox_id: string;
  subscription_id: string;
  state: Generated<"pending" | "sending" | "delivered" | "failed" | "dropped" | "held">;
  next_attempt: Generated<number>;
  next_attempt_at: Timestamp;
  lease_until: Timestamp | null;
  created_at: Timestamp;
  finished_at: Timestamp | null;
}

/** One logged delivery attempt. */
export interface EventDeliveryAttemptsTable {
  id: Generated<string>;
  delivery_id: string;
  attempt: number;
  started_at: Timestamp;
  duration_ms: number;
  status: number | null;
  error_class: string | null;
  outcome: "delivered" | "retry" | "failed" | "gone" | "dropped";
}

/** The event machinery's tables by name; `Database` (`schema.ts`) extends it. */
export interface EventTables {
  event_outbox: EventOutboxTable;
  event_subscriptions: EventSubscriptionsTable;
  webhook_verifications: WebhookVerificationsTable;
  event_opt_outs: EventOptOutsTable;
  event_deliveries: EventDeliveriesTable;
  event_delivery_attempts: EventDeliveryAttemptsTable;
}
