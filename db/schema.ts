/** Kysely table types of the Postgres schema (mirrors `db/migrations/*.sql`). */
import type { ColumnType, Generated } from "kysely";

/** A timestamp column: read as Date, written as Date or ISO string. */
type Timestamp = ColumnType<Date, Date | string, Date | string>;
/** A timestamp column with a database default: optional on insert. */
type GeneratedTimestamp = ColumnType<Date, Date | string | undefined, Date | string>;

/** The provider's organisation (an estate agency). */
export interface OfficesTable {
  id: Generated<string>;
  name: string;
  created_at: GeneratedTimestamp;
}

/** A listing with its public fields (spec 2.1) and the service's internal ones. */
export interface ListingsTable {
  id: Generated<string>;
  office_id: string;
  status: "draft" | "published" | "withdrawn";
  reference: string | null;
  title: string | null;
  description: string | null;
  city: string | null;
  /** Generated column: `city_key(city)`; never written. */
  city_key: ColumnType<string | null, never, never>;
  postal_code: string | null;
  property_type: "apartment" | "house" | "land" | "commercial" | null;
  transaction_type: "buy" | "rent" | null;
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

/** Applied migrations. */
export interface SchemaMigrationsTable {
  version: string;
  applied_at: GeneratedTimestamp;
}

/** The whole database as Kysely sees it. */
export interface Database {
  offices: OfficesTable;
  listings: ListingsTable;
  listing_contacts: ListingContactsTable;
  schema_migrations: SchemaMigrationsTable;
}
