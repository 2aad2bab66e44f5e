/**
 * The invented land-value zones of the sample start, all marked "ERFUNDENE TESTDATEN" in their source (one
 * dataset per state):
 *
 * 1. The fixture files of `valuation/fixtures/` (small zones in Potsdam, Düsseldorf, Köln and Hannover).
 * 2. One invented "Beispiel-Stadtgebiet" zone per city of the sample catalogue (`catalogue/sample.ts`) in a
 *    state that releases its land values: a rectangle around the city that covers every place the sample
 *    generator puts a listing (its centre ± 0.04° latitude, ± 0.06° longitude), mixed use (`M`), building land,
 *    Stichtag {@linkcode CITY_ZONE_STICHTAG}, a value of {@linkcode CITY_ZONE_SHARE} × the city's typical price per
 *    m² of an apartment. Without them only the few sample listings that fall into a fixture zone had a location
 *    value: sample listings never count as comparables, so every other one answered `none`.
 *
 * The city zones never change an answer the fixture zones give: they are loaded after the fixtures (a later row
 * loses a tie), with an older Stichtag than any fixture (the latest Stichtag wins where the rank is equal, and a
 * municipality median uses only the latest Stichtag of a use), and with mixed use (a residential or commercial
 * fixture zone ranks before them).
 */
import type { Db } from "../db/connection.ts";
import { type BrwZoneInput, countZones } from "../db/brw_zones.ts";
import { replaceZones } from "../db/brw_datasets.ts";
import { SAMPLE_CITIES, SAMPLE_SPREAD } from "../catalogue/sample.ts";
import { newSummary, readZones } from "./brw_import.ts";
import { INVENTED_SOURCE } from "./brw_sources.ts";
import { NON_RELEASING_STATES, type StateCode } from "./states.ts";

/** The fixture files of the sample start and their states. */
export const SAMPLE_ZONE_FILES: ReadonlyArray<readonly [string, StateCode]> = [
  ["bb_potsdam_2022_epsg25833.csv", "BB"],
  ["bb_potsdam_2024_epsg25833.csv", "BB"],
  ["nw_duesseldorf_koeln_epsg25832.geojson", "NW"],
  ["ni_hannover_epsg4326.geojson", "NI"],
];

/** Stichtag of the invented city zones: older than every fixture file's. */
export const CITY_ZONE_STICHTAG = "2021-01-01";
/** Invented land value of a city zone as a share of the city's typical apartment price per m². */
const CITY_ZONE_SHARE = 0.3;
/** Half the height and width of a city zone in degrees: the sample listings' spread, and 0.005° to spare. */
const HALF_LAT = SAMPLE_SPREAD.lat / 2 + 0.005;
const HALF_LNG = SAMPLE_SPREAD.lng / 2 + 0.005;

/**
 * Loads the invented sample zones when the zone store is empty, one dataset per state (its fixture files and its
 * city zones; a zone in two fixture files keeps its newest Stichtag); returns how many zones were added.
 */
export async function seedSampleZonesIfEmpty(db: Db): Promise<number> {
  if (await countZones(db) > 0) return 0;
  const byState = new Map<string, { zones: BrwZoneInput[]; names: string[] }>();
  const add = (state: string, name: string, zones: BrwZoneInput[]) => {
    const entry = byState.get(state) ?? { zones: [], names: [] };
    entry.zones.push(...zones);
    entry.names.push(name);
    byState.set(state, entry);
  };
  for (const [name, state] of SAMPLE_ZONE_FILES) {
    const zones: BrwZoneInput[] = [];
    const path = new URL(`./fixtures/${name}`, import.meta.url).pathname;
    for await (const z of readZones(path, { state }, newSummary())) zones.push(z);
    add(state, name, zones);
  }
  for (const [state, zones] of sampleCityZones()) add(state, "Stadtgebiete der Beispielobjekte", zones);
  let added = 0;
  for (const [state, { zones, names }] of byState) {
    const r = await replaceZones(db, {
      state,
      stichtag: CITY_ZONE_STICHTAG,
      source: INVENTED_SOURCE.source(names.join(", ")).slice(0, 500),
      licence: INVENTED_SOURCE.licence,
      zones,
    });
    added += r.inserted;
  }
  return added;
}

/** The invented city zones by state: one per sample city in a state that releases its land values. */
export function sampleCityZones(): Map<string, BrwZoneInput[]> {
  const byState = new Map<string, BrwZoneInput[]>();
  for (const city of SAMPLE_CITIES) {
    if (NON_RELEASING_STATES.has(city.state as StateCode)) continue;
    const [s, n, w, e] = [city.lat - HALF_LAT, city.lat + HALF_LAT, city.lng - HALF_LNG, city.lng + HALF_LNG];
    const zone: BrwZoneInput = {
      brw: Math.round(city.buy * CITY_ZONE_SHARE / 10) * 10,
      gfz: 1.2,
      wgfz: null,
      nutzung: "M",
      entwicklung: "B",
      zone_name: "Beispiel-Stadtgebiet (erfunden)",
      zone_number: null,
      municipality_name: city.name,
      municipality_key: null,
      geometry: { type: "Polygon", coordinates: [[[w, s], [e, s], [e, n], [w, n], [w, s]]] },
      min_lat: s,
      max_lat: n,
      min_lng: w,
      max_lng: e,
    };
    byState.set(city.state, [...byState.get(city.state) ?? [], zone]);
  }
  return byState;
}
