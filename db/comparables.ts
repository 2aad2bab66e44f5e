/** SQL of comparables: euro per m² of published, real (non-sample) listings in one segment and area. */
import { sql } from "kysely";
import type { Db } from "./connection.ts";

/** A segment and area to collect comparable listings from. */
export interface ComparableQuery {
  transaction: "buy" | "rent";
  propertyTypes: string[];
  /** Exactly one of the two areas. */
  area: { plz: string } | { city: string };
  /** Plausible euro per m² bounds (inclusive). */
  min: number;
  max: number;
  /** At most this many of the newest listings. */
  limit: number;
}

/** Euro per m² (asked_price / square_meters) of matching published listings with `beispiel = false`. */
export async function comparableValues(db: Db, q: ComparableQuery): Promise<number[]> {
  const perSqm = sql<number>`(asked_price / square_meters)::float8`;
  let query = db.kysely.selectFrom("listings")
    .select(perSqm.as("v"))
    // Literals, not parameters: a reused (generic) plan can then use the partial comparables indexes.
    .where("status", "=", sql.lit("published"))
    .where("beispiel", "=", sql.lit(false))
    .where("transaction_type", "=", q.transaction)
    .where("property_type", "in", q.propertyTypes as Array<"apartment">)
    .where("asked_price", ">", 0)
    .where("square_meters", ">=", 5)
    .where(perSqm, ">=", q.min)
    .where(perSqm, "<=", q.max);
  query = "plz" in q.area
    ? query.where("postal_code", "=", q.area.plz)
    : query.where("city_key", "=", sql<string>`city_key(${q.area.city})`);
  const rows = await query.orderBy("published_at", "desc").limit(q.limit).execute();
  return rows.map((r) => r.v);
}
