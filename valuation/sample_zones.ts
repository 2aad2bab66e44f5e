/** The invented land-value zones of the sample start (valuation/fixtures, marked "ERFUNDENE TESTDATEN"). */
import type { Db } from "../db/connection.ts";
import { countZones, replaceZones } from "../db/brw_zones.ts";
import { INVENTED_MARKER, parseBrwFile } from "./brw_import.ts";
import type { StateCode } from "./states.ts";

/** The fixture files of the sample start and their states. */
export const SAMPLE_ZONE_FILES: ReadonlyArray<readonly [string, StateCode]> = [
  ["bb_potsdam_2022_epsg25833.csv", "BB"],
  ["bb_potsdam_2024_epsg25833.csv", "BB"],
  ["nw_duesseldorf_koeln_epsg25832.geojson", "NW"],
  ["ni_hannover_epsg4326.geojson", "NI"],
];

/** Loads the invented sample zones when the zone store is empty; returns how many zones were added. */
export async function seedSampleZonesIfEmpty(db: Db): Promise<number> {
  if (await countZones(db) > 0) return 0;
  let added = 0;
  for (const [name, state] of SAMPLE_ZONE_FILES) {
    const file = parseBrwFile(await Deno.readFile(new URL(`./fixtures/${name}`, import.meta.url)), { state });
    await replaceZones(db, {
      state,
      stichtag: file.stichtag,
      source: `${INVENTED_MARKER}: Beispieldaten (${name})`,
      licence: "erfundene Daten, keine Lizenz nötig",
      zones: file.zones,
    });
    added += file.zones.length;
  }
  return added;
}
