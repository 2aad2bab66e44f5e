/** Loading land-value fixture files into a test database, one dataset per state (as the sample start does). */
import { replaceZones } from "../db/brw_datasets.ts";
import type { Db } from "../db/connection.ts";
import { newSummary, readZones, type StateCode, type ZoneRecord } from "../valuation/brw_import.ts";

/** The folder of the fixtures read since the start (valuation/fixtures). */
export const VALUATION_FIXTURES = new URL("../valuation/fixtures/", import.meta.url);
/** The folder of the state layout fixtures (tests/fixtures/brw). */
export const LAYOUT_FIXTURES = new URL("./fixtures/brw/", import.meta.url);

/** The zones of a fixture file, read by the real import pipeline. */
export async function fixtureZones(url: URL, state: StateCode): Promise<ZoneRecord[]> {
  const zones: ZoneRecord[] = [];
  for await (const z of readZones(url.pathname, { state }, newSummary())) zones.push(z);
  return zones;
}

/**
 * Stores the zones of `files` (names in valuation/fixtures) as one dataset per state with `source` and
 * `licence`; a zone in two files keeps its newest Stichtag.
 */
export async function loadValuationFixtures(
  db: Db,
  files: ReadonlyArray<readonly [string, StateCode]>,
  origin: { source: string; licence: string } = { source: "ERFUNDENE TESTDATEN", licence: "test" },
): Promise<void> {
  const byState = new Map<StateCode, ZoneRecord[]>();
  for (const [name, state] of files) {
    byState.set(state, [
      ...byState.get(state) ?? [],
      ...await fixtureZones(new URL(name, VALUATION_FIXTURES), state),
    ]);
  }
  for (const [state, zones] of byState) {
    await replaceZones(db, { state, stichtag: zones[0]!.stichtag, ...origin, zones });
  }
}
