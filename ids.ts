/**
 * Row ids of the service are UUIDs. A value that is not one never reaches a `uuid` column (Postgres would throw):
 * callers treat it like an unknown id, so malformed and unknown ids answer the same.
 */
import { AppError } from "./errors.ts";

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Whether `value` is a UUID (any letter case). */
export function isUuid(value: string): boolean {
  return UUID.test(value);
}

/** The lower-case form of the UUID `id`; anything else throws `not_found`. */
export function idOrNotFound(id: string): string {
  if (!UUID.test(id)) throw new AppError("not_found");
  return id.toLowerCase();
}
