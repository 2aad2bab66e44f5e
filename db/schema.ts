/** Kysely table types of the Postgres schema (mirrors `db/migrations/*.sql`). */
import type { ColumnType, Generated } from "kysely";
import type { GeneratedTimestamp, Timestamp } from "./column_types.ts";
import type { EventTables } from "./schema_events.ts";

export type * from "./schema_events.ts";

/** Property types of a listing (docs/contract.md §2.1). */
export const PROPERTY_TYPES = ["apartment", "house", "land", "commercial"] as const;
/** Transaction types of a listing (docs/contract.md §2.1). */
export const TRANSACTION_TYPES = ["buy", "rent"] as const;
/** A person's role: a seeker, or a provider (member of an office). */
export type Role = "seeker" | "provider";

/** The provider's organisation (an estate agency). */
export interface OfficesTable {
  id: Generated<string>;
  name: string;
  created_at: GeneratedTimestamp;
}

/** A listing with its public fields (docs/contract.md §2.1) and the service's internal ones. */
export interface ListingsTable {
  id: Generated<string>;
  office_id: string;
  /** `reserved`: published before, now reserved for a buyer or tenant; not public (migration 0011). */
  status: "draft" | "published" | "withdrawn" | "reserved";
  reference: string | null;
  /** OpenImmo `objektnr_extern` of an imported listing, unique per office (migration 0014). */
  external_number: Generated<string | null>;
  title: string | null;
  description: string | null;
  city: string | null;
  /** Generated column: `city_key(city)`; never written. */
  city_key: ColumnType<string | null, never, never>;
  postal_code: string | null;
  property_type: (typeof PROPERTY_TYPES)[number] | null;
  transaction_type: (typeof TRANSACTION_TYPES)[number] | null;
  asked_price: ColumnType<number | null, number | null, number | null>;
  total_rooms: ColumnType<number | null, number | null, number | null>;
  square_meters: ColumnType<number | null, number | null, number | null>;
  latitude: number | null;
  longitude: number | null;
  beispiel: Generated<boolean>;
  created_at: GeneratedTimestamp;
  updated_at: GeneratedTimestamp;
  published_at: Timestamp | null;
}

/** The provider's name and contact of a listing: read only by provider-side code, never by a public query. */
export interface ListingContactsTable {
  listing_id: string;
  provider_name: string | null;
  contact_name: string | null;
  contact_email: string | null;
  contact_phone: string | null;
}

/**
 * An official land-value zone (Bodenrichtwertzone) of one Stichtag; geometry in WGS84. Numeric columns are read
 * with `::float8` casts and dates with `to_char` so both drivers return the same types.
 */
export interface BrwZonesTable {
  id: ColumnType<number | string, never, never>;
  /** Two-letter state code. */
  state: string;
  /** Reference date; write as `YYYY-MM-DD`. */
  stichtag: ColumnType<Date | string, string, string>;
  /** Land value in euro per m². */
  brw: ColumnType<number, number, number>;
  gfz: ColumnType<number | null, number | null, number | null>;
  wgfz: ColumnType<number | null, number | null, number | null>;
  /** VBORIS use code (NUTA/ART). */
  nutzung: string | null;
  /** VBORIS development state (ENTW). */
  entwicklung: string | null;
  zone_name: string | null;
  zone_number: string | null;
  municipality_name: string | null;
  municipality_key: string | null;
  /** Generated column: `city_key(municipality_name)`; never written. */
  municipality_norm: ColumnType<string | null, never, never>;
  /** The dataset (import) the zone belongs to. */
  dataset_id: ColumnType<number | string, number | string, never>;
  /** The zone's identity across Stichtage within a dataset (see migration 0024). */
  zone_key: string | null;
  /** GeoJSON Polygon or MultiPolygon; written as JSON text. */
  geometry: ColumnType<unknown, string, string>;
  min_lat: number;
  max_lat: number;
  min_lng: number;
  max_lng: number;
  /** Generated column: the bounding box as a Postgres `box` (x = lng, y = lat); never written. */
  bbox: ColumnType<string, never, never>;
  imported_at: GeneratedTimestamp;
}

/** The state of a land-value dataset: being loaded, the state's current one, or replaced by a newer one. */
export type BrwDatasetStatus = "loading" | "active" | "replaced";

/** One import of official land values: where they came from, the licence, the zone count (migration 0024). */
export interface BrwDatasetsTable {
  id: ColumnType<number | string, never, never>;
  /** Two-letter state code. */
  state: string;
  status: ColumnType<BrwDatasetStatus, BrwDatasetStatus | undefined, BrwDatasetStatus>;
  /** The newest Stichtag of its zones; null while loading. */
  stichtag: ColumnType<Date | string | null, string | null | undefined, string | null>;
  source: string;
  source_url: string | null;
  licence: string;
  layout: string;
  file_name: string | null;
  file_sha256: string | null;
  zone_count: ColumnType<number, number | undefined, number>;
  created_at: GeneratedTimestamp;
  imported_at: ColumnType<Date | null, never, Date | string | null>;
}

/** A person (better-auth's user model, table `users`); `role` is ours. */
export interface UsersTable {
  id: string;
  name: string;
  email: string;
  emailVerified: boolean;
  image: string | null;
  createdAt: GeneratedTimestamp;
  updatedAt: GeneratedTimestamp;
  role: ColumnType<Role, Role | undefined, Role>;
}

/** A person's membership of an office; `ended_at` set means it has ended. */
export interface OfficeMembershipsTable {
  id: Generated<string>;
  office_id: string;
  user_id: string;
  started_at: GeneratedTimestamp;
  ended_at: Timestamp | null;
}

/** A mail the service sent, or (without SMTP) only recorded. */
export interface MailOutboxTable {
  id: Generated<string>;
  to_address: string;
  subject: string;
  body: string;
  created_at: GeneratedTimestamp;
  sent_at: Timestamp | null;
  /** Sending attempts so far (migration 0019). */
  attempts: Generated<number>;
  /** When the next attempt is due; null when nothing is to be done (sent, given up, recorded without SMTP). */
  next_attempt_at: Timestamp | null;
  /** Until when a sender holds the mail (domain time). */
  lease_until: Timestamp | null;
  /** The redacted error of the last failed attempt. */
  last_error: string | null;
  /** When the retries were given up. */
  given_up_at: Timestamp | null;
  /** The inquiry a mail to an inquirer is about. */
  inquiry_id: string | null;
  /** The saved search an alert mail is about (migration 0029). */
  saved_search_id: Generated<string | null>;
}

/** Per inquiry: the tokens of its reply address and stop link, and when mails about it were stopped. */
export interface InquiryMailTokensTable {
  inquiry_id: string;
  reply_token: string;
  stop_token: string;
  stopped_at: Timestamp | null;
  created_at: GeneratedTimestamp;
}

/** A seeker account's choice about mails on their inquiries (no row: mails on). */
export interface InquiryMailSettingsTable {
  user_id: string;
  mails_off: boolean;
  updated_at: GeneratedTimestamp;
}

/** When an app last called the MCP endpoint for a person. */
export interface OauthConnectionUsageTable {
  user_id: string;
  client_id: string;
  last_used_at: Timestamp;
}

/** A registered OAuth client (better-auth's model; the columns we read). */
export interface OauthClientTable {
  id: string;
  clientId: string;
  name: string | null;
  uri: string | null;
  redirectUris: ColumnType<unknown, string, string>;
  scopes: ColumnType<unknown, string, string>;
  tokenEndpointAuthMethod: string | null;
  applicationType: string | null;
  disabled: boolean | null;
  createdAt: Timestamp | null;
}

/** A person's consent for an app (better-auth's model; the columns we read). */
export interface OauthConsentTable {
  id: string;
  clientId: string;
  userId: string | null;
  scopes: ColumnType<unknown, string, string>;
  createdAt: Timestamp;
  updatedAt: Timestamp;
}

/** An issued refresh token (better-auth's model; the columns we read). */
export interface OauthRefreshTokenTable {
  id: string;
  clientId: string;
  userId: string;
  revoked: Timestamp | null;
  expiresAt: Timestamp;
}

/** An issued access token (better-auth's model; the columns we read). */
export interface OauthAccessTokenTable {
  id: string;
  clientId: string;
  userId: string | null;
  revoked: Timestamp | null;
  expiresAt: Timestamp;
}

/** Per connection (person, app): access tokens issued before `not_before` are refused (migration 0018). */
export interface OauthGrantCutoffsTable {
  user_id: string;
  client_id: string;
  not_before: Timestamp;
}

/** An access token revoked by RFC 7009, by its `jti`, kept until it expires. */
export interface OauthRevokedAccessTokensTable {
  jti: string;
  expires_at: Timestamp;
}

/** The connection an authorization code was exchanged for (SHA-256 of the code), while its token is alive. */
export interface OauthCodeExchangesTable {
  code_hash: string;
  user_id: string;
  client_id: string;
  expires_at: Timestamp;
}

/** A person's API key for the MCP endpoint: only the SHA-256 hex of the key is stored. */
export interface ApiKeysTable {
  id: Generated<string>;
  user_id: string;
  name: string;
  key_hash: string;
  /** The key's first 12 characters, shown in lists. */
  display_prefix: string;
  created_at: GeneratedTimestamp;
  last_used_at: Timestamp | null;
  revoked_at: Timestamp | null;
}

/** An inquiry (`anfrage`) about one listing, from a seeker account or a named inquirer. */
export interface InquiriesTable {
  id: Generated<string>;
  listing_id: string;
  office_id: string;
  quelle: "service" | "portal" | "email";
  seeker_id: string | null;
  name: string | null;
  /** Lower-cased e-mail address of the inquirer. */
  email: string;
  phone: string | null;
  /** The OAuth app it was sent through (null: the website, an inbound message, an API key). */
  origin_client_id: ColumnType<string | null, string | null | undefined, never>;
  /** The API key it was sent through. */
  origin_api_key_id: ColumnType<string | null, string | null | undefined, never>;
  /** The name a portal gave in its OpenImmo feedback. */
  portal_name: ColumnType<string | null, string | null | undefined, never>;
  status: ColumnType<
    "open" | "answered" | "rejected" | "closed",
    "open" | "answered" | "rejected" | "closed" | undefined,
    "open" | "answered" | "rejected" | "closed"
  >;
  created_at: GeneratedTimestamp;
  updated_at: GeneratedTimestamp;
}

/** One message (`nachricht`) of an inquiry's thread. */
export interface InquiryMessagesTable {
  id: Generated<string>;
  inquiry_id: string;
  sender: "seeker" | "provider";
  author_id: string | null;
  body: string;
  created_at: GeneratedTimestamp;
}

/** A viewing slot (`termin`) a provider offers on a listing. */
export interface ViewingSlotsTable {
  id: Generated<string>;
  listing_id: string;
  office_id: string;
  starts_at: Timestamp;
  ends_at: Timestamp;
  places: number;
  status: ColumnType<"open" | "cancelled", "open" | "cancelled" | undefined, "open" | "cancelled">;
  created_at: GeneratedTimestamp;
  updated_at: GeneratedTimestamp;
}

/** A seeker's booking of a slot for an inquiry. */
export interface ViewingBookingsTable {
  id: Generated<string>;
  slot_id: string;
  inquiry_id: string;
  status: ColumnType<"booked" | "cancelled", "booked" | "cancelled" | undefined, "booked" | "cancelled">;
  created_at: GeneratedTimestamp;
  cancelled_at: Timestamp | null;
}

/** A viewing.upcoming reminder already written for a slot, window and start time. */
export interface ViewingRemindersTable {
  slot_id: string;
  fenster: "24h" | "1h";
  starts_at: Timestamp;
  created_at: GeneratedTimestamp;
}

/** A seeker's saved search: the catalogue's filters and when it last ran. */
export interface SavedSearchesTable {
  id: Generated<string>;
  seeker_id: string;
  name: string | null;
  /** The filters as JSON (written as JSON text). */
  filters: ColumnType<unknown, string, string>;
  last_run_at: GeneratedTimestamp;
  created_at: GeneratedTimestamp;
  /** E-mail alerts (migration 0029): `off`, `daily`, `instant`; the stop link's token; matches mailed up to. */
  alert: Generated<"off" | "daily" | "instant">;
  alert_token: Generated<string | null>;
  alert_since: Generated<Date | null>;
}

/** A listing a saved search found in one of its runs. */
export interface SavedSearchMatchesTable {
  saved_search_id: string;
  listing_id: string;
  found_at: GeneratedTimestamp;
}

/** Applied migrations. */
export interface SchemaMigrationsTable {
  version: string;
  applied_at: GeneratedTimestamp;
}

/** The whole database as Kysely sees it (with the event machinery's tables of `schema_events.ts`). */
export interface Database extends EventTables {
  offices: OfficesTable;
  listings: ListingsTable;
  listing_contacts: ListingContactsTable;
  brw_zones: BrwZonesTable;
  brw_datasets: BrwDatasetsTable;
  schema_migrations: SchemaMigrationsTable;
  users: UsersTable;
  office_memberships: OfficeMembershipsTable;
  mail_outbox: MailOutboxTable;
  inquiry_mail_tokens: InquiryMailTokensTable;
  inquiry_mail_settings: InquiryMailSettingsTable;
  oauth_connection_usage: OauthConnectionUsageTable;
  oauthClient: OauthClientTable;
  oauthConsent: OauthConsentTable;
  oauthRefreshToken: OauthRefreshTokenTable;
  oauthAccessToken: OauthAccessTokenTable;
  oauth_grant_cutoffs: OauthGrantCutoffsTable;
  oauth_revoked_access_tokens: OauthRevokedAccessTokensTable;
  oauth_code_exchanges: OauthCodeExchangesTable;
  api_keys: ApiKeysTable;
  inquiries: InquiriesTable;
  inquiry_messages: InquiryMessagesTable;
  viewing_slots: ViewingSlotsTable;
  viewing_bookings: ViewingBookingsTable;
  viewing_reminders: ViewingRemindersTable;
  saved_searches: SavedSearchesTable;
  saved_search_matches: SavedSearchMatchesTable;
}
