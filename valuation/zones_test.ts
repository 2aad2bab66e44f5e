/**
 * Zone lookup and municipality median on the invented fixtures (valuation/fixtures), through the real SQL on
 * PGlite or on the DATABASE_URL server. Query points are the fixtures' UTM coordinates converted with PROJ's
 * cs2cs (an independent implementation), so they are real places.
 */
import assert from "node:assert/strict";
import { countZones } from "../db/brw_zones.ts";
import { replaceZones } from "../db/brw_datasets.ts";
import { openTestDb } from "../tests/helpers.ts";
import { fixtureZones, loadValuationFixtures } from "../tests/brw_support.ts";
import { compareZones, median, municipalityMedian, useClass, usePreference, zoneValueAt } from "./zones.ts";

Deno.test.sanitizer({ ops: true, resources: true });

const tdb = await openTestDb();
const db = tdb.db;
// Opened before the tests, so closed after it (closing it in a test would be a leak of that test).
Deno.test.afterAll(() => tdb.close());
const FIXTURES = new URL("./fixtures/", import.meta.url);
const BB_SOURCE = "ERFUNDENE TESTDATEN (Potsdam)";

// One dataset per state, as an import makes it: Potsdam's 2022 and 2024 files together keep the newest Stichtag
// of each zone (the 2022 values of Innenstadt and Babelsberg are superseded).
await loadValuationFixtures(db, [
  ["bb_potsdam_2022_epsg25833.csv", "BB"],
  ["bb_potsdam_2024_epsg25833.csv", "BB"],
], { source: BB_SOURCE, licence: "test" });
await loadValuationFixtures(db, [["nw_duesseldorf_koeln_epsg25832.geojson", "NW"]], {
  source: "ERFUNDENE TESTDATEN (nw_duesseldorf_koeln_epsg25832.geojson)",
  licence: "test",
});
await loadValuationFixtures(db, [["ni_hannover_epsg4326.geojson", "NI"]]);

/** Points of the Potsdam fixture (EPSG:25833 → WGS84 by cs2cs). */
const POTSDAM = {
  innenstadtOnly: [52.39985581, 13.05097061], // 367400 5807300: Innenstadt (W, B) only
  withGewerbe: [52.39749760, 13.07165343], // 368800 5807000: Innenstadt ∩ Gewerbe (GE, B)
  withMisch: [52.38992368, 13.04846894], // 367200 5806200: Innenstadt ∩ Mischgebiet (MI, B)
  withBauerwartung: [52.40434838, 13.05077256], // 367400 5807800: Innenstadt ∩ Bauerwartungsland (W, E)
  bauerwartungOnly: [52.40884094, 13.05057446], // 367400 5808300
  hole: [52.39730528, 13.05990252], // 368000 5807000: in Innenstadt's hole
  babelsbergPart1: [52.38442433, 13.09720446], // 370500 5805500
  babelsbergPart2: [52.38426920, 13.11557951], // 371750 5805450
  betweenParts: [52.38460116, 13.10821797], // 371250 5805500
  golm: [52.40481033, 12.97136277], // 362000 5808000: agricultural zone
} as const;

/** Points of the NW fixture (EPSG:25832 → WGS84 by cs2cs). */
const NW = {
  koenigsallee: [51.22780713, 6.78005898], // 345000 5677500
  carlstadt: [51.22756202, 6.76717946], // 344100 5677500
  altstadtNord: [50.94324292, 6.95735703], // 356500 5645500
  ehrenfeldGewerbe: [50.93627393, 6.91923178], // 353800 5644800: Ehrenfeld (W) ∩ Braunsfeld Gewerbe (GE)
  deutzHole: [50.93912082, 6.97888931], // 358000 5645000
  deutz: [50.93635077, 6.97473937], // 357700 5644700
  deutzPart2: [50.93618404, 6.99111512], // 358850 5644650
} as const;

async function at([lat, lng]: readonly [number, number], type?: string) {
  return await zoneValueAt(db, lat, lng, type);
}

Deno.test("the fixtures are loaded: BB (2024 superseding 2022), NW, NI", async () => {
  assert.equal(await countZones(db, { state: "BB", stichtag: "2024-01-01" }), 6);
  assert.equal(
    await countZones(db, { state: "BB", stichtag: "2022-01-01" }),
    0,
    "both 2022 zones have 2024 values",
  );
  assert.equal(await countZones(db, { state: "NW" }), 7);
  assert.equal(await countZones(db, { state: "NI" }), 3);
});

Deno.test("a point in one zone gets that zone's value, GFZ (from WGFZ), Stichtag and label", async () => {
  assert.deepEqual(await at(POTSDAM.innenstadtOnly, "apartment"), {
    brw: 1100,
    gfz: 1.2,
    stichtag: "2024-01-01",
    region_label: "Bodenrichtwertzone Innenstadt, Potsdam",
    state: "BB",
    source: BB_SOURCE,
    source_url: null,
    licence: "test",
  });
  assert.deepEqual(await at(NW.koenigsallee, "house"), {
    brw: 3500,
    gfz: 3,
    stichtag: "2024-01-01",
    region_label: "Bodenrichtwertzone Königsallee, Düsseldorf",
    state: "NW",
    source: "ERFUNDENE TESTDATEN (nw_duesseldorf_koeln_epsg25832.geojson)",
    source_url: null,
    licence: "test",
  });
  assert.equal((await at(NW.carlstadt))?.brw, 2400);
  assert.equal((await at(NW.altstadtNord))?.region_label, "Bodenrichtwertzone Altstadt-Nord, Köln");
});

Deno.test("the latest Stichtag wins over an older value of the same zone", async () => {
  // Innenstadt was 980 in 2022 and is 1100 in 2024; Babelsberg 640 → 750.
  assert.equal((await at(POTSDAM.innenstadtOnly))?.brw, 1100);
  const b = await at(POTSDAM.babelsbergPart1);
  assert.deepEqual([b?.brw, b?.stichtag, b?.gfz], [750, "2024-01-01", 0.8]);
});

Deno.test("overlapping zones: the use matching property_type", async () => {
  const apartment = await at(POTSDAM.withGewerbe, "apartment");
  const commercial = await at(POTSDAM.withGewerbe, "commercial");
  assert.deepEqual([apartment?.brw, apartment?.region_label], [
    1100,
    "Bodenrichtwertzone Innenstadt, Potsdam",
  ]);
  assert.deepEqual([commercial?.brw, commercial?.region_label, commercial?.gfz], [
    420,
    "Bodenrichtwertzone Gewerbe Speicherstadt, Potsdam",
    null,
  ]);
  assert.equal((await at(POTSDAM.withGewerbe))?.brw, 1100, "no property type: residential first");
  assert.equal(
    (await at(POTSDAM.withGewerbe, "land"))?.brw,
    1100,
    "land: both are building land, residential first",
  );
  const ehrenfeld = await at(NW.ehrenfeldGewerbe, "house");
  assert.deepEqual([ehrenfeld?.brw, ehrenfeld?.gfz], [1050, 1.6]);
  assert.deepEqual((await at(NW.ehrenfeldGewerbe, "commercial"))?.brw, 390);
});

Deno.test("overlapping zones: mixed use is the second choice for residential and commercial", async () => {
  assert.equal((await at(POTSDAM.withMisch, "house"))?.brw, 1100, "W before MI for a house");
  const c = await at(POTSDAM.withMisch, "commercial");
  assert.deepEqual([c?.brw, c?.gfz], [900, 1.5], "MI before W for commercial");
});

Deno.test("overlapping zones: building land (ENTW B) before expected building land", async () => {
  assert.equal((await at(POTSDAM.withBauerwartung, "apartment"))?.brw, 1100);
  assert.equal((await at(POTSDAM.withBauerwartung, "land"))?.brw, 1100);
  const e = await at(POTSDAM.bauerwartungOnly, "land");
  assert.deepEqual([e?.brw, e?.region_label], [
    180,
    "Bodenrichtwertzone Bauerwartungsland Nauener Vorstadt, Potsdam",
  ]);
});

Deno.test("holes and multipolygons through the database", async () => {
  assert.equal(await at(POTSDAM.hole, "apartment"), undefined, "in Innenstadt's hole, no other zone");
  assert.equal((await at(POTSDAM.babelsbergPart2))?.brw, 750);
  assert.equal(await at(POTSDAM.betweenParts), undefined);
  assert.equal(await at(NW.deutzHole), undefined);
  assert.equal((await at(NW.deutz))?.brw, 1600);
  assert.equal((await at(NW.deutzPart2))?.brw, 1600);
  assert.equal((await at(POTSDAM.golm, "apartment"))?.brw, 1.2, "the only zone there is agricultural");
});

Deno.test("WGS84 fixture: points exactly on edges and vertices, and in a hole", async () => {
  assert.deepEqual([(await at([52.3744, 9.7386]))?.brw, (await at([52.3744, 9.7386]))?.gfz], [2200, 2.5]);
  assert.equal((await at([52.37, 9.73]))?.brw, 2200, "south-west vertex of Mitte");
  assert.equal((await at([52.375, 9.745]))?.brw, 2200, "on Mitte's east edge");
  assert.equal((await at([52.38, 9.7375]))?.brw, 2200, "on Mitte's north edge (horizontal)");
  assert.equal(await at([52.375, 9.7451]), undefined, "just east of it");
  assert.equal(await at([52.365, 9.7075]), undefined, "inside Linden's hole");
  assert.equal((await at([52.365, 9.705]))?.brw, 700, "on the ring of Linden's hole");
  assert.equal((await at([52.362, 9.718]))?.brw, 700, "Linden's second part");
  assert.equal(await at([48.1374, 11.5755]), undefined, "no zones in Munich");
});

Deno.test("municipality median: matching use, building land, latest Stichtag", async () => {
  // Potsdam residential: Innenstadt 1100 and Babelsberg 750 (W, B, 2024); Bauerwartungsland (E) and the 2022
  // values do not count.
  assert.deepEqual(await municipalityMedian(db, "Potsdam", "BB", "apartment"), {
    brw: 925,
    gfz: null,
    stichtag: "2024-01-01",
    region_label: "Potsdam (Median von 2 Zonen)",
    state: "BB",
    source: BB_SOURCE,
    source_url: null,
    licence: "test",
  });
  const commercial = await municipalityMedian(db, "Potsdam", "BB", "commercial");
  assert.deepEqual([commercial?.brw, commercial?.region_label], [420, "Potsdam (Median von 1 Zone)"]);
  assert.equal((await municipalityMedian(db, "Potsdam", "BB", "land"))?.brw, 925);
  assert.equal((await municipalityMedian(db, "potsdam", undefined, undefined))?.brw, 925, "state optional");
  const koeln = await municipalityMedian(db, "Koeln", "NW", "house");
  assert.deepEqual(
    [koeln?.brw, koeln?.region_label],
    [1325, "Köln (Median von 2 Zonen)"],
    "(1050 + 1600) / 2",
  );
  assert.equal((await municipalityMedian(db, "KÖLN", "NW", "commercial"))?.brw, 390);
  assert.equal(
    (await municipalityMedian(db, "Duesseldorf", "NW", "apartment"))?.brw,
    1850,
    "(2400 + 1300) / 2",
  );
  assert.equal(
    (await municipalityMedian(db, "Hannover", "NI", "land"))?.brw,
    775,
    "W zones: (850 + 700) / 2",
  );
  assert.equal(
    (await municipalityMedian(db, "Hannover", "NI", "commercial"))?.brw,
    2200,
    "MK as second choice",
  );
});

Deno.test("municipality median: no answer for unknown places, the wrong state, or an ambiguous name", async () => {
  assert.equal(await municipalityMedian(db, "Cottbus", "BB", "apartment"), undefined);
  assert.equal(await municipalityMedian(db, "Potsdam", "NW", "apartment"), undefined);
  const dus = await municipalityMedian(db, "Düsseldorf", "NW", "commercial");
  assert.deepEqual(
    [dus?.brw, dus?.region_label],
    [3500, "Düsseldorf (Median von 1 Zone)"],
    "no G zone: MK counts",
  );
  // An invented second "Potsdam" in another state makes the name ambiguous without a state.
  const [zone] = await fixtureZones(new URL("bb_potsdam_2024_epsg25833.csv", FIXTURES), "BB");
  await replaceZones(db, { state: "HE", stichtag: "2020-01-01", source: "t", licence: "t", zones: [zone!] });
  try {
    assert.equal(await municipalityMedian(db, "Potsdam", undefined, "apartment"), undefined);
    assert.equal((await municipalityMedian(db, "Potsdam", "BB", "apartment"))?.brw, 925);
    assert.equal((await municipalityMedian(db, "Potsdam", "HE", "apartment"))?.brw, 1100);
    assert.equal(
      await municipalityMedian(db, "Potsdam", "HE", "commercial"),
      undefined,
      "only a W zone there",
    );
  } finally {
    await replaceZones(db, { state: "HE", stichtag: "2020-01-01", source: "t", licence: "t", zones: [] });
  }
});

Deno.test("use classes, preferences and ranking", () => {
  assert.deepEqual(["W", "wa", "WR", "WS", "WB"].map(useClass), Array(5).fill("residential"));
  assert.deepEqual(["G", "GE", "GI"].map(useClass), Array(3).fill("commercial"));
  assert.deepEqual(["M", "MI", "MK", "MD", "MDW", "MU"].map(useClass), Array(6).fill("mixed"));
  assert.deepEqual(["LW", "SO", "F", "", null, "W - Wohnbaufläche"].map(useClass), [
    "other",
    "other",
    "other",
    "other",
    "other",
    "residential",
  ]);
  assert.deepEqual(["apartment", "house", "commercial", "land", undefined].map(usePreference), [
    "residential",
    "residential",
    "commercial",
    "building_land",
    undefined,
  ]);
  const z = (id: string, nutzung: string, entwicklung: string, stichtag: string) => ({
    id,
    nutzung,
    entwicklung,
    stichtag,
    state: "BB",
    brw: 1,
    gfz: null,
    wgfz: null,
    zone_name: null,
    zone_number: null,
    municipality_name: null,
    source: "s",
    source_url: null,
    licence: "l",
  });
  const zones = [
    z("1", "W", "E", "2024-01-01"),
    z("2", "MI", "B", "2024-01-01"),
    z("3", "W", "B", "2022-01-01"),
    z("4", "GE", "B", "2024-01-01"),
    z("5", "W", "B", "2024-01-01"),
    z("6", "LW", "B", "2024-01-01"),
  ];
  const order = (pref: Parameters<typeof compareZones>[2]) =>
    [...zones].sort((a, b) => compareZones(a, b, pref)).map((x) => x.id).join("");
  assert.equal(order("residential"), "531246");
  assert.equal(order(undefined), "531246");
  assert.equal(order("commercial"), "425631", "GE, MI, then the others by Stichtag and row");
  assert.equal(order("building_land"), "532461");
  assert.equal(median([3, 1, 2]), 2);
  assert.equal(median([4, 1, 3, 2]), 2.5);
});
