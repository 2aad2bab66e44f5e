/**
 * The official land value (Bodenrichtwert) for a place: the zone containing a point, or the median of a
 * municipality's zones when no coordinates are given.
 *
 * Use classes, from the VBORIS use code (NUTA, or ART in older exports; its leading letters, upper case):
 *
 * | class       | codes                                    |
 * |-------------|------------------------------------------|
 * | residential | W, WA, WR, WS, WB                        |
 * | commercial  | G, GE, GI                                |
 * | mixed       | M, MI, MK, MD, MDW, MU                   |
 * | other       | everything else (SO, SE, LW, A, GR, F, GB, …) and a missing code |
 *
 * The preference comes from `property_type`: apartment and house → residential, commercial → commercial,
 * land → building land, none → residential. Building land is development state (ENTW) `B`.
 *
 * Ranking where zones overlap (first difference decides; lower is better):
 * - residential / commercial: use (the preferred class 0, mixed 1, any other 2), then development state (B 0,
 *   anything else or missing 1), then the latest Stichtag, then the oldest row.
 * - building land: development state first, then use as for residential, then Stichtag, then row.
 *
 * The municipality median (no coordinates) takes only "matching" zones: for residential and commercial a zone of
 * the preferred or the mixed class, for building land a zone with ENTW `B`. Among those it keeps the best rank
 * present, then the latest Stichtag within it, and returns the median BRW of those zones (the mean of the two
 * middle values for an even count, rounded to cents) with `gfz: null` and the label
 * "<municipality> (Median von N Zonen)". The municipality is matched by its normalised name (`city_key`:
 * case, umlauts and punctuation ignored) and, when given, the state; a name found in several states without a
 * state gives no answer.
 */
import { latestMunicipalityZones, type StoredZone, zonesWithBoxAt } from "../db/brw_zones.ts";
import type { Db } from "../db/connection.ts";
import { containsPoint } from "./geometry.ts";

/** Which zones suit a property type: apartment/house → residential, commercial → commercial, land → building land, none → undefined (treated as residential). */
export type UsePreference = "residential" | "commercial" | "building_land" | undefined;

/** The use class of a zone (see the module comment for the codes). */
export type UseClass = "residential" | "commercial" | "mixed" | "other";

/** The land value answer for the location baseline. */
export interface ZoneValue {
  /** Land value in euro per m². */
  brw: number;
  /** Floor-area ratio of the zone (GFZ, else WGFZ); null for a median. */
  gfz: number | null;
  /** `YYYY-MM-DD`. */
  stichtag: string;
  region_label: string;
  /** Two-letter state code. */
  state: string;
  /** Who published the value (its dataset's source). */
  source: string;
  /** Where it was published, when known. */
  source_url: string | null;
  /** The dataset's licence, e.g. `dl-de/by-2-0`. */
  licence: string;
}

const USE_CLASSES: Record<string, UseClass> = {
  W: "residential",
  WA: "residential",
  WR: "residential",
  WS: "residential",
  WB: "residential",
  G: "commercial",
  GE: "commercial",
  GI: "commercial",
  M: "mixed",
  MI: "mixed",
  MK: "mixed",
  MD: "mixed",
  MDW: "mixed",
  MU: "mixed",
};

/** The preference for `propertyType` (apartment, house, land, commercial; anything else → undefined). */
export function usePreference(propertyType: string | undefined): UsePreference {
  switch (propertyType) {
    case "apartment":
    case "house":
      return "residential";
    case "commercial":
      return "commercial";
    case "land":
      return "building_land";
    default:
      return undefined;
  }
}

/** The use class of a VBORIS use code such as `W`, `WA`, `MI`, `GE` or `LW` (case and trailing text ignored). */
export function useClass(nutzung: string | null): UseClass {
  const letters = /^[A-Z]+/.exec((nutzung ?? "").trim().toUpperCase())?.[0] ?? "";
  return USE_CLASSES[letters] ?? "other";
}

/** The zone attributes the ranking looks at: VBORIS use code and development state. */
export type Rankable = Pick<StoredZone, "nutzung" | "entwicklung">;

function useRank(z: Rankable, wanted: "residential" | "commercial"): number {
  const c = useClass(z.nutzung);
  return c === wanted ? 0 : c === "mixed" ? 1 : 2;
}

function developmentRank(z: Rankable): number {
  return z.entwicklung?.trim().toUpperCase() === "B" ? 0 : 1;
}

/** The rank of a zone for `pref` as `[first, second]` criteria; lower is better (see the module comment). */
export function zoneRank(z: Rankable, pref: UsePreference): [number, number] {
  if (pref === "building_land") return [developmentRank(z), useRank(z, "residential")];
  return [useRank(z, pref ?? "residential"), developmentRank(z)];
}

/** Orders zones best first: rank, then the latest Stichtag, then the oldest row. */
export function compareZones(a: StoredZone, b: StoredZone, pref: UsePreference): number {
  const [a1, a2] = zoneRank(a, pref);
  const [b1, b2] = zoneRank(b, pref);
  return a1 - b1 || a2 - b2 || (a.stichtag < b.stichtag ? 1 : a.stichtag > b.stichtag ? -1 : 0) ||
    Number(a.id) - Number(b.id);
}

/** The value of the best-ranked zone containing (lat, lng) for `propertyType`, or undefined where no zone lies. */
export async function zoneValueAt(
  db: Db,
  lat: number,
  lng: number,
  propertyType: string | undefined,
): Promise<ZoneValue | undefined> {
  const pref = usePreference(propertyType);
  const candidates = await zonesWithBoxAt(db, lat, lng);
  const containing = candidates.filter((z) => containsPoint(z.geometry, lng, lat));
  const best = containing.sort((a, b) => compareZones(a, b, pref))[0];
  if (!best) return undefined;
  return {
    brw: best.brw,
    gfz: best.gfz ?? best.wgfz,
    stichtag: best.stichtag,
    region_label: zoneLabel(best),
    state: best.state,
    source: best.source,
    source_url: best.source_url,
    licence: best.licence,
  };
}

/** "Bodenrichtwertzone <name or number>, <municipality>". */
function zoneLabel(z: StoredZone): string {
  const id = z.zone_name ?? z.zone_number;
  const head = id ? `Bodenrichtwertzone ${id}` : "Bodenrichtwertzone";
  return z.municipality_name ? `${head}, ${z.municipality_name}` : head;
}

/** The median value of the municipality's matching zones at the latest Stichtag (see the module comment), or undefined. */
export async function municipalityMedian(
  db: Db,
  municipality: string,
  state: string | undefined,
  propertyType: string | undefined,
): Promise<ZoneValue | undefined> {
  const pref = usePreference(propertyType);
  const zones = await latestMunicipalityZones(db, municipality, state);
  if (new Set(zones.map((z) => z.state)).size !== 1) return undefined;
  const chosen = bestGroup(zones.filter((z) => matches(z, pref)), pref);
  const first = chosen[0];
  if (!first) return undefined;
  const n = chosen.length;
  return {
    brw: Math.round(median(chosen.map((z) => z.brw)) * 100) / 100,
    gfz: null,
    stichtag: first.stichtag,
    region_label: `${first.municipality_name ?? municipality} (Median von ${n} ${
      n === 1 ? "Zone" : "Zonen"
    })`,
    state: first.state,
    source: distinct(chosen.map((z) => z.source)),
    source_url: single(distinct(chosen.map((z) => z.source_url ?? ""))),
    licence: distinct(chosen.map((z) => z.licence)),
  };
}

/** Whether a zone counts for the municipality median under `pref`. */
function matches(z: StoredZone, pref: UsePreference): boolean {
  return pref === "building_land" ? developmentRank(z) === 0 : useRank(z, pref ?? "residential") <= 1;
}

/** The zones of the best rank present, and of those only the latest Stichtag. */
function bestGroup(zones: StoredZone[], pref: UsePreference): StoredZone[] {
  const best = [...zones].sort((a, b) => compareZones(a, b, pref))[0];
  if (!best) return [];
  const [r1, r2] = zoneRank(best, pref);
  return zones.filter((z) => {
    const [z1, z2] = zoneRank(z, pref);
    return z1 === r1 && z2 === r2 && z.stichtag === best.stichtag;
  });
}

/** The median of a non-empty list: the middle value, or the mean of the two middle values. */
export function median(values: readonly number[]): number {
  const s = [...values].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 === 1 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
}

/** The one value of a `distinct` list, or null when there are none or several. */
function single(joined: string): string | null {
  return joined === "" || joined.includes("; ") ? null : joined;
}

function distinct(values: string[]): string {
  return [...new Set(values.filter((v) => v !== ""))].join("; ");
}
