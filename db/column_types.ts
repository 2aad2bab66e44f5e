/** The column types the table types of `schema.ts` and `schema_events.ts` share. */
import type { ColumnType } from "kysely";

/** A timestamp column: read as Date, written as Date or ISO string. */
export type Timestamp = ColumnType<Date, Date | string, Date | string>;
/** A timestamp column with a database default: optional on insert. */
export type GeneratedTimestamp = ColumnType<Date, Date | string | undefined, Date | string>;
