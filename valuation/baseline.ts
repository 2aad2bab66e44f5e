/**
 * The location baseline (docs/contract.md §3.1, §3): a euro-per-m² guide value for a place and where it comes from.
 *
 * Source order: regional rule → official land value (kauf only) → comparables → none. `source: "none"` always
 * comes with `base_eur_sqm: null`.
 */
import { z } from "zod";
import type { Db } from "../db/connection.ts";
import { comparableValues } from "../db/comparables.ts";
import { MAX_SAMPLE, plausibleRange, trimmedMedian } from "./comparables.ts";
import type { BaselineRequest } from "./input.ts";
import type { PlaceResolution } from "./places.ts";
import { NON_RELEASING_STATES, STATE_NAMES } from "./states.ts";
import { municipalityMedian, zoneValueAt } from "./zones.ts";
import { type Attribution, attributionOf, isInvented } from "./brw_sources.ts";

/** The location baseline result (docs/contract.md §3.1); every field is always present, null where not applicable. */
export const baselineResultSchema = z.object({
  base_eur_sqm: z.number().nullable().describe("Euro per m²; null when source is none."),
  source: z.enum(["bodenrichtwert", "comparables", "none"]),
  region_label: z.string().nullable(),
  brw: z.number().nullable().describe("Official land value in euro per m² of land."),
  gfz: z.number().nullable().describe("Floor-area ratio of the zone."),
  stichtag: z.string().nullable().describe("Reference date of the land value (YYYY-MM-DD)."),
});

/** The location baseline result. */
export type BaselineResult = z.infer<typeof baselineResultSchema>;

/**
 * The baseline, the attribution of its land value ("Datenquelle: <source>, <licence>", as the licence requires)
 * and whether that value comes from invented zones (the sample start's and the tests' files, whose source carries
 * the marker "ERFUNDENE TESTDATEN"): the pages show the attribution or label the value as invented, the MCP tool
 * names the attribution in its text. The REST answer and the MCP tool's structured content carry only `result`
 * (spec §2.3).
 */
export interface BaselineAnswer {
  result: BaselineResult;
  /** Where the land value comes from; undefined unless `result.source` is `bodenrichtwert`. */
  attribution: Attribution | undefined;
  invented: boolean;
}

/** Computes the baseline for `req` following the source order. */
export async function locationBaseline(db: Db, req: BaselineRequest): Promise<BaselineResult> {
  return (await locationBaselineOf(db, req)).result;
}

/** Computes the baseline for `req` following the source order, and whether its land value is invented. */
export async function locationBaselineOf(db: Db, req: BaselineRequest): Promise<BaselineAnswer> {
  // The place data (PLZ table, state borders) is loaded by the first baseline, not at start (architecture §11.17).
  const { resolvePlace } = await import("./places.ts");
  const place = resolvePlace({ plz: req.plz, city: req.city, lat: req.lat, lng: req.lng });
  if (place.kind !== "resolved") return real(none(placeLabel(place)));
  if (NON_RELEASING_STATES.has(place.state)) {
    return real(none(`${STATE_NAMES[place.state]}: Bodenrichtwerte ohne Lizenz zur Weiterverwendung`));
  }
  if (req.art === "kauf") {
    const zone = await landValue(db, req, place);
    if (zone) {
      const result: BaselineResult = {
        base_eur_sqm: zone.brw,
        source: "bodenrichtwert",
        region_label: zone.region_label,
        brw: zone.brw,
        gfz: zone.gfz,
        stichtag: zone.stichtag,
      };
      const attribution = attributionOf({
        source: zone.source,
        sourceUrl: zone.source_url,
        licence: zone.licence,
      });
      return { result, attribution, invented: isInvented(zone.source) };
    }
  }
  return real(await comparables(db, req, place) ?? none(noDataLabel(req, place)));
}

function real(result: BaselineResult): BaselineAnswer {
  return { result, attribution: undefined, invented: false };
}

type Resolved = Extract<PlaceResolution, { kind: "resolved" }>;

async function landValue(db: Db, req: BaselineRequest, place: Resolved) {
  if (req.lat !== undefined && req.lng !== undefined) {
    return await zoneValueAt(db, req.lat, req.lng, req.property_type);
  }
  const municipality = place.place ?? req.city;
  return municipality
    ? await municipalityMedian(db, municipality, place.state, req.property_type)
    : undefined;
}

async function comparables(
  db: Db,
  req: BaselineRequest,
  place: Resolved,
): Promise<BaselineResult | undefined> {
  const transaction = req.art === "kauf" ? "buy" : "rent";
  const propertyTypes = req.property_type ? [req.property_type] : ["apartment", "house"];
  const range = plausibleRange(transaction, req.property_type);
  const city = req.city ?? place.place;
  const areas: Array<[{ plz: string } | { city: string }, string]> = [];
  if (req.plz) areas.push([{ plz: req.plz }, `PLZ ${req.plz}`]);
  if (city) areas.push([{ city }, city]);
  for (const [area, name] of areas) {
    const values = await comparableValues(db, {
      transaction,
      propertyTypes,
      area,
      ...range,
      limit: MAX_SAMPLE,
    });
    const m = trimmedMedian(values);
    if (m) {
      return {
        base_eur_sqm: Math.round(m.median * 100) / 100,
        source: "comparables",
        region_label: `${name}: Median von ${m.used} Vergleichsangeboten (${segmentLabel(req)})`,
        brw: null,
        gfz: null,
        stichtag: null,
      };
    }
  }
  return undefined;
}

function segmentLabel(req: BaselineRequest): string {
  const type = { apartment: "Wohnungen", house: "Häuser", land: "Grundstücke", commercial: "Gewerbe" };
  return `${req.property_type ? type[req.property_type] : "Wohnungen und Häuser"}, ${
    req.art === "kauf" ? "Kauf" : "Miete"
  }`;
}

function none(label: string | null): BaselineResult {
  return { base_eur_sqm: null, source: "none", region_label: label, brw: null, gfz: null, stichtag: null };
}

function placeLabel(place: Exclude<PlaceResolution, Resolved>): string | null {
  return place.kind === "none" ? "Kein Ort angegeben" : place.label;
}

function noDataLabel(req: BaselineRequest, place: Resolved): string {
  const where = req.plz ? `PLZ ${req.plz}` : place.place ?? req.city ?? STATE_NAMES[place.state];
  return `${where}: weder Bodenrichtwert noch genug Vergleichsangebote (${segmentLabel(req)})`;
}
