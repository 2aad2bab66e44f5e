/**
 * What the location baseline (docs/contract.md §3) takes, in one place for POST /api/public/valuation/location-baseline, the
 * MCP tool `get_location_baseline` and the listing page: the request schema (every field optional, unknown fields
 * refused) and the request for a listing's own place.
 */
import { z } from "zod";
import { citySchema } from "../catalogue/city.ts";
import type { Listing } from "../catalogue/listing.ts";
import { PROPERTY_TYPES } from "../db/schema.ts";

const plzSchema = z.string().regex(/^[0-9]{5}$/, "must be five digits");

/** The request of the location baseline; `art` defaults to `kauf`. */
export const baselineInputSchema = z.strictObject({
  plz: plzSchema.optional().describe("Postleitzahl (five digits).").meta({ example: "14467" }),
  city: citySchema.optional().describe("Ort/City, e.g. Potsdam.").meta({ example: "Potsdam" }),
  lat: z.number().min(-90).max(90).optional().describe("Latitude (WGS84).").meta({ example: 52.3906 }),
  lng: z.number().min(-180).max(180).optional().describe("Longitude (WGS84).").meta({ example: 13.0645 }),
  property_type: z.enum(PROPERTY_TYPES).optional().describe("apartment, house, land or commercial."),
  art: z.enum(["kauf", "miete"]).default("kauf").describe("kauf (purchase) or miete (rent); default kauf."),
});

/** The request of the location baseline, after validation. */
export type BaselineRequest = z.output<typeof baselineInputSchema>;

/**
 * The baseline request for a listing's own place and kind: its PLZ and city where they pass the request's rules,
 * its coordinates when both are known, `art` from its transaction; undefined without a transaction type.
 */
export function listingBaselineRequest(l: Listing): BaselineRequest | undefined {
  if (!l.transaction_type) return undefined;
  const point = l.latitude !== null && l.longitude !== null;
  return {
    plz: plzSchema.safeParse(l.postal_code).data,
    city: citySchema.safeParse(l.city).data,
    lat: point ? l.latitude! : undefined,
    lng: point ? l.longitude! : undefined,
    property_type: l.property_type ?? undefined,
    art: l.transaction_type === "buy" ? "kauf" : "miete",
  };
}
