/**
 * Every layout of the state services through the real import into the database (PGlite, or the DATABASE_URL
 * server): the dataset with its licence, point-in-zone answers with the exact brw, gfz and Stichtag, holes and
 * multi-surfaces, the axis order of the CRS declaration, only the newest Stichtag per zone, idempotent re-imports,
 * and bad files (cut off, a feature without geometry, a CRS that does not fit) that fail whole, naming the
 * feature, and leave the previous dataset as it was. The fixtures (tests/fixtures/brw/) are invented values in
 * each service's layout; the NRW ZIP is built here (tests/brw_shapefile.ts).
 */
import assert from "node:assert/strict";
import { type DatasetRow, listDatasets } from "../db/brw_datasets.ts";
import { countZones } from "../db/brw_zones.ts";
import type { Db } from "../db/connection.ts";
import { locationBaselineOf } from "../valuation/baseline.ts";
import { BrwImportError, type BrwProblem } from "../valuation/brw_errors.ts";
import { importBrwFile, type ImportOptions, type StateCode } from "../valuation/brw_import.ts";
import { crsRef } from "../valuation/crs.ts";
import type { Crs } from "../valuation/geometry.ts";
import { positionToWgs84 } from "../valuation/reproject.ts";
import { zoneValueAt } from "../valuation/zones.ts";
import { type DbfField, nrwShapeZip, PRJ_25832, type ShapeRecord } from "./brw_shapefile.ts";
import { LAYOUT_FIXTURES } from "./brw_support.ts";
import { openTestDb } from "./helpers.ts";

Deno.test.sanitizer({ ops: true, resources: true });

const fixture = (name: string) => new URL(name, LAYOUT_FIXTURES).pathname;
let db: Db;

/** [lat, lng] of a position given in `crs`. */
function at(x: number, y: number, crs: Crs): [number, number] {
  const [lng, lat] = positionToWgs84([x, y], crs);
  return [lat, lng];
}

async function valueAt([lat, lng]: [number, number], type?: string) {
  const v = await zoneValueAt(db, lat, lng, type);
  return v && [v.brw, v.gfz, v.stichtag];
}

async function importFile(path: string, state: StateCode, opts: Partial<ImportOptions> = {}) {
  return await importBrwFile(db, { path, state, ...opts });
}

async function active(state: StateCode): Promise<DatasetRow | undefined> {
  return (await listDatasets(db, { state }))[0];
}

/** Imports a changed copy of a fixture and returns the typed error; the state's dataset must stay as it was. */
async function badCopy(
  content: string | Uint8Array,
  suffix: string,
  state: StateCode,
  opts: Partial<ImportOptions> = {},
): Promise<BrwImportError> {
  const path = await Deno.makeTempFile({ suffix });
  const before = [await active(state), await countZones(db, { state })];
  try {
    if (typeof content === "string") await Deno.writeTextFile(path, content);
    else await Deno.writeFile(path, content);
    let error: unknown;
    await importFile(path, state, opts).catch((e) => (error = e));
    assert.ok(error instanceof BrwImportError, `the import did not fail with a typed error: ${error}`);
    assert.equal(error.at.file, path.split("/").pop());
    assert.deepEqual(
      [await active(state), await countZones(db, { state })],
      before,
      "nothing of it imported",
    );
    assert.equal(
      (await listDatasets(db, { state, all: true })).length,
      before[0] ? 1 : 0,
      "no leftover dataset",
    );
    return error;
  } finally {
    await Deno.remove(path);
  }
}

/** The problem of an error without its coordinates (they depend on the projection's last digits). */
function code(e: BrwImportError): BrwProblem["code"] {
  return e.problem.code;
}

const steps: Array<[string, () => Promise<void>]> = [];
const layout = (name: string, fn: () => Promise<void>) => steps.push([name, fn]);

// ---------------------------------------------------------------------------------------------------------------
// BRM 2.1 GML: Hessen, Niedersachsen, Bremen

const HE = fixture("he_brm21_wfs_epsg25832.gml");

layout(
  "BRM 2.1 GML (Hessen, EPSG:25832): zones, hole, multi-surface, newest Stichtag, dl-de/zero-2-0",
  async () => {
    const r = await importFile(HE, "HE");
    const d = r.dataset;
    assert.deepEqual([
      d.state,
      d.stichtag,
      d.zoneCount,
      d.layout,
      d.licence,
      d.source,
      r.features,
      r.superseded,
    ], [
      "HE",
      "2024-01-01",
      4,
      "brm_gml",
      "dl-de/zero-2-0",
      "Hessische Verwaltung für Bodenmanagement und Geoinformation (HVBG), BORIS Hessen",
      5,
      1,
    ]);
    const p = (x: number, y: number) => at(x, y, "EPSG:25832");
    assert.deepEqual(
      await valueAt(p(477200, 5553200)),
      [4200, 2.5, "2024-01-01"],
      "2024 replaces the 2022 value",
    );
    assert.equal(await valueAt(p(477500, 5553500)), undefined, "in the hole");
    assert.deepEqual(await valueAt(p(478750, 5551750)), [1900, 1.2, "2024-01-01"], "second surface");
    assert.equal(await valueAt(p(478250, 5552000)), undefined, "between the surfaces");
    assert.deepEqual(await valueAt(p(480000, 5553500), "commercial"), [650, null, "2024-01-01"]);
    assert.deepEqual(await valueAt(p(471000, 5561000)), [4.5, null, "2024-01-01"]);
    const v = await zoneValueAt(db, ...p(477200, 5553200), "apartment");
    assert.deepEqual([v?.region_label, v?.licence], [
      "Bodenrichtwertzone Innenstadt, Frankfurt am Main",
      "dl-de/zero-2-0",
    ]);
  },
);

layout("BRM 2.1 GML (Hessen): a re-import is idempotent; bad copies fail whole", async () => {
  const first = await active("HE");
  const again = await importFile(HE, "HE");
  assert.deepEqual([again.dataset.zoneCount, again.replaced?.id, await countZones(db, { state: "HE" })], [
    4,
    first?.id,
    4,
  ]);
  assert.deepEqual(await valueAt(at(477200, 5553200, "EPSG:25832")), [4200, 2.5, "2024-01-01"]);
  const text = await Deno.readTextFile(HE);
  const cut = await badCopy(text.slice(0, Math.floor(text.length / 2)), ".gml", "HE");
  assert.equal(code(cut), "truncated");
  const noGeometry = text.replace(/<adv:position>\s*<gml:MultiSurface[\s\S]*?<\/adv:position>/, "");
  const missing = await badCopy(noGeometry, ".gml", "HE");
  assert.deepEqual([missing.problem, missing.at.feature, missing.at.id], [
    { code: "missing_geometry" },
    2,
    "DEHE06BR0000102A",
  ]);
  const wrongCrs = await badCopy(text.replaceAll("EPSG::25832", "EPSG::25833"), ".gml", "HE");
  assert.deepEqual([code(wrongCrs), wrongCrs.at.feature, wrongCrs.at.id], [
    "crs_mismatch",
    0,
    "DEHE06BR0000101A",
  ]);
  const conflict = await badCopy(text, ".gml", "HE", { crs: crsRef("EPSG:25833") });
  assert.deepEqual(conflict.problem, {
    code: "crs_conflict",
    declared: "urn:ogc:def:crs:EPSG::25832",
    given: "EPSG:25833",
  });
  const broken = await badCopy(
    text.replace("<boris:stichtag>2024-01-01</boris:stichtag>", "<boris:stichtag>2024-01-01</boris:sticht>"),
    ".gml",
    "HE",
  );
  assert.equal(code(broken), "malformed");
  assert.ok(broken.at.line !== undefined);
});

layout("BRM 2.1 GML (Niedersachsen, urn EPSG::4326 is lat/lon; rings of curve segments)", async () => {
  const r = await importFile(fixture("ni_brm21_wfs_epsg4326.gml"), "NI");
  assert.deepEqual([r.dataset.zoneCount, r.dataset.stichtag, r.dataset.licence, r.noValue], [
    2,
    "2026-01-01",
    "dl-de/by-2-0",
    1,
  ]);
  assert.deepEqual(await valueAt([52.372, 9.732]), [2200, 3, "2026-01-01"]);
  assert.equal(await valueAt([52.375, 9.7375]), undefined, "in the hole of Mitte");
  assert.deepEqual(await valueAt([52.39, 9.75]), [850, 1, "2026-01-01"]);
  assert.equal(await valueAt([52.364, 9.707]), undefined, "the zone without a value is not stored");
  const text = await Deno.readTextFile(fixture("ni_brm21_wfs_epsg4326.gml"));
  // The same positions declared as EPSG:4326 (lon/lat order) put Hannover into the Indian Ocean.
  const swapped = await badCopy(text.replaceAll("urn:ogc:def:crs:EPSG::4326", "EPSG:4326"), ".gml", "NI");
  assert.equal(code(swapped), "crs_mismatch");
});

layout("BRM 2.1 GML (Bremen): municipality from the committee, Lower Saxony's zone skipped", async () => {
  const r = await importFile(fixture("hb_brm21_wfs_epsg25832.gml"), "HB");
  assert.deepEqual([r.dataset.zoneCount, r.otherStates, r.dataset.licence], [1, { NI: 1 }, "dl-de/by-2-0"]);
  const v = await zoneValueAt(db, ...at(488500, 5884500, "EPSG:25832"), "house");
  assert.deepEqual([v?.brw, v?.gfz, v?.stichtag, v?.region_label], [
    780,
    0.8,
    "2026-01-01",
    "Bodenrichtwertzone Schwachhausen, Bremen",
  ]);
  assert.equal(await valueAt(at(497500, 5876500, "EPSG:25832")), undefined);
});

// ---------------------------------------------------------------------------------------------------------------
// The flat WFS schemas: Hamburg, Berlin, Thüringen

layout(
  "Hamburg (deegree app:lgv_brw_zoniert_alle): newest Jahrgang per zone, GFZ, hole, multi-surface",
  async () => {
    const path = fixture("hh_wfs_zoniert_alle_epsg25832.gml");
    const r = await importFile(path, "HH");
    assert.deepEqual([
      r.dataset.zoneCount,
      r.dataset.stichtag,
      r.dataset.layout,
      r.dataset.licence,
      r.superseded,
    ], [
      3,
      "2025-07-01",
      "hamburg_wfs",
      "dl-de/by-2-0",
      1,
    ]);
    const p = (x: number, y: number) => at(x, y, "EPSG:25832");
    assert.deepEqual(
      await valueAt(p(564200, 5938200)),
      [1480, 1.2, "2025-01-01"],
      "richtwert_euro, not normrichtwert",
    );
    assert.equal(await valueAt(p(564500, 5938500)), undefined, "in the hole");
    assert.deepEqual(await valueAt(p(566750, 5938250)), [2350, 2, "2025-01-01"]);
    assert.deepEqual(await valueAt(p(586000, 5921000)), [5.5, null, "2025-07-01"], "abweichender_stichtag");
    const v = await zoneValueAt(db, ...p(564200, 5938200), "house");
    assert.equal(v?.region_label, "Bodenrichtwertzone Eppendorf, Hamburg");
    const text = await Deno.readTextFile(path);
    const cut = await badCopy(text.slice(0, text.lastIndexOf("<wfs:member>") + 40), ".gml", "HH");
    assert.equal(code(cut), "truncated");
    const noGeometry = await badCopy(
      text.replace(/<app:geom_zone>[\s\S]*?<\/app:geom_zone>/, ""),
      ".gml",
      "HH",
    );
    assert.deepEqual([code(noGeometry), noGeometry.at.id], [
      "missing_geometry",
      "APP_LGV_BRW_ZONIERT_ALLE_101",
    ]);
    const again = await importFile(path, "HH");
    assert.deepEqual([again.dataset.zoneCount, await countZones(db, { state: "HH" })], [3, 3]);
  },
);

layout(
  "Berlin (GeoServer brw2025:brw_2025_vector): Stichtag from the feature type, hole, multi-surface",
  async () => {
    const path = fixture("be_wfs_brw2025_epsg25833.gml");
    const r = await importFile(path, "BE");
    assert.deepEqual([r.dataset.zoneCount, r.dataset.stichtag, r.dataset.layout, r.dataset.licence], [
      3,
      "2025-01-01",
      "berlin_wfs",
      "dl-de/zero-2-0",
    ]);
    const p = (x: number, y: number) => at(x, y, "EPSG:25833");
    assert.deepEqual(await valueAt(p(390200, 5819200)), [6500, 4.5, "2025-01-01"]);
    assert.equal(await valueAt(p(390500, 5819500)), undefined, "in the hole");
    assert.deepEqual(await valueAt(p(392750, 5821250)), [3200, 2.5, "2025-01-01"], "second surface");
    assert.deepEqual(await valueAt(p(389250, 5818250), "commercial"), [950, null, "2025-01-01"]);
    const text = await Deno.readTextFile(path);
    const wrongCrs = await badCopy(text.replaceAll("EPSG::25833", "EPSG::25832"), ".gml", "BE");
    assert.deepEqual([code(wrongCrs), wrongCrs.at.id], ["crs_mismatch", "brw_2025_vector.1"]);
    const noGeometry = await badCopy(
      text.replace(/<brw2025:geom>[\s\S]*?<\/brw2025:geom>/, ""),
      ".gml",
      "BE",
    );
    assert.deepEqual([code(noGeometry), noGeometry.at.feature], ["missing_geometry", 0]);
    const cut = await badCopy(text.slice(0, 1500), ".gml", "BE");
    assert.equal(code(cut), "truncated");
  },
);

layout(
  "Thüringen (vBORIS_simple_wfs): upper-case elements, codes, every Stichtag in one answer",
  async () => {
    const path = fixture("th_vboris_simple_wfs_epsg25832.gml");
    const r = await importFile(path, "TH");
    assert.deepEqual([
      r.dataset.zoneCount,
      r.dataset.stichtag,
      r.dataset.layout,
      r.dataset.licence,
      r.superseded,
    ], [
      3,
      "2024-01-01",
      "thueringen_wfs",
      "dl-de/by-2-0",
      1,
    ]);
    const p = (x: number, y: number) => at(x, y, "EPSG:25832");
    assert.deepEqual(await valueAt(p(642200, 5650200)), [2700, 2.4, "2024-01-01"], "2024, not 2022");
    assert.equal(await valueAt(p(642500, 5650500)), undefined, "in the 2024 zone's hole");
    assert.deepEqual(await valueAt(p(642250, 5648250)), [520, 0.9, "2024-01-01"], "second surface");
    const v = await zoneValueAt(db, ...p(644000, 5647000), "land");
    assert.deepEqual([v?.brw, v?.region_label], [1.1, "Bodenrichtwertzone Grünland Steigerwald, Erfurt"]);
    const dataset = await active("TH");
    const again = await importFile(path, "TH");
    assert.deepEqual([again.replaced?.id, again.dataset.zoneCount], [dataset?.id, 3]);
    const text = await Deno.readTextFile(path);
    const noGeometry = await badCopy(
      text.replace(/<boris:GEOM>[\s\S]*?<\/boris:GEOM>/, "<boris:GEOM/>"),
      ".gml",
      "TH",
    );
    assert.deepEqual([code(noGeometry), noGeometry.at.id], [
      "missing_geometry",
      "bodenrichtwertzone.51001.2022",
    ]);
  },
);

// ---------------------------------------------------------------------------------------------------------------
// OGC API Features JSON (Brandenburg) and the NRW shapefile ZIP

const BB = fixture("bb_ogcapi_br_bodenrichtwert_epsg25833.json");
const CONTENT_CRS = crsRef("http://www.opengis.net/def/crs/EPSG/0/25833");

layout(
  "OGC API Features JSON, BRM 3.0.1 (Brandenburg): CRS from --crs, newest Stichtag per zone",
  async () => {
    const noCrs = await badCopy(await Deno.readTextFile(BB), ".json", "BB");
    assert.deepEqual([code(noCrs), noCrs.at.feature, noCrs.at.id], ["crs_mismatch", 0, "DEBBBR00CB000010"]);
    const r = await importFile(BB, "BB", { crs: CONTENT_CRS });
    assert.deepEqual([
      r.dataset.zoneCount,
      r.dataset.stichtag,
      r.dataset.layout,
      r.dataset.licence,
      r.superseded,
    ], [
      4,
      "2024-01-01",
      "brm_json",
      "dl-de/by-2-0",
      2,
    ]);
    const p = (x: number, y: number) => at(x, y, "EPSG:25833");
    assert.deepEqual(await valueAt(p(453200, 5735200)), [310, 1.2, "2024-01-01"], "2024 of three Stichtage");
    assert.equal(await valueAt(p(453500, 5735500)), undefined, "in the hole");
    assert.deepEqual(await valueAt(p(456250, 5735250)), [180, 0.8, "2024-01-01"], "second polygon");
    assert.deepEqual(
      await valueAt(p(452250, 5738250), "commercial"),
      [95, null, "2020-01-01"],
      "a zone last valued 2020",
    );
    const v = await zoneValueAt(db, ...p(453200, 5735200), "apartment");
    assert.equal(v?.region_label, "Bodenrichtwertzone Cottbus Innenstadt, Cottbus");
    const again = await importFile(BB, "BB", { crs: crsRef("EPSG:25833") });
    assert.deepEqual([again.dataset.zoneCount, await countZones(db, { state: "BB" })], [4, 4]);
    const json = JSON.parse(await Deno.readTextFile(BB));
    json.features[3].geometry = null;
    const missing = await badCopy(JSON.stringify(json), ".json", "BB", { crs: CONTENT_CRS });
    assert.deepEqual([code(missing), missing.at.feature, missing.at.id], [
      "missing_geometry",
      3,
      "DEBBBR00CB100024",
    ]);
    const text = await Deno.readTextFile(BB);
    const cut = await badCopy(text.slice(0, Math.floor(text.length * 0.7)), ".json", "BB", {
      crs: CONTENT_CRS,
    });
    assert.equal(code(cut), "truncated");
  },
);

const NRW_FIELDS: DbfField[] = [
  ["GENA", "C", 40],
  ["GESL", "C", 8],
  ["GABE", "C", 80],
  ["WNUM", "C", 10],
  ["BRW", "C", 12],
  ["STAG", "D", 8],
  ["ENTW", "C", 2],
  ["BEIT", "C", 4],
  ["NUTA", "C", 6],
  ["GFZ", "C", 6],
  ["BRZNAME", "C", 60],
];

function square(x: number, y: number, size: number): Array<[number, number]> {
  return [[x, y], [x + size, y], [x + size, y + size], [x, y + size], [x, y]];
}

const koeln = (values: Partial<ShapeRecord["values"]>) => ({
  GENA: "Köln",
  GESL: "05315000",
  GABE: "Gutachterausschuss für Grundstückswerte in der Stadt Köln",
  STAG: "20250101",
  ENTW: "B",
  BEIT: "ebf",
  ...values,
});

const NRW_RECORDS: ShapeRecord[] = [
  {
    polygons: [[square(356000, 5645000, 1000), square(356400, 5645400, 200)]],
    values: koeln({ WNUM: "101", BRW: "1250,5", NUTA: "W", GFZ: "1,2", BRZNAME: "Altstadt-Süd" }),
  },
  {
    polygons: [[square(358000, 5645000, 500)], [square(359000, 5645000, 500)]],
    values: koeln({ WNUM: "102", BRW: "480", NUTA: "GE", GFZ: "", BRZNAME: "Deutz Gewerbe" }),
  },
  {
    polygons: [[square(350000, 5640000, 2000)]],
    values: koeln({ WNUM: "901", BRW: "0", NUTA: "LW", ENTW: "LF", BRZNAME: "Umstrukturierung (ohne Wert)" }),
  },
];

layout(
  "NRW shapefile ZIP (BRW_2025_EPSG25832_Shape.zip): decimal commas, dBase date, hole, multipart",
  async () => {
    const dir = await Deno.makeTempDir();
    try {
      const path = `${dir}/BRW_2025_EPSG25832_Shape.zip`;
      await Deno.writeFile(path, nrwShapeZip(2025, NRW_FIELDS, NRW_RECORDS));
      const r = await importFile(path, "NW");
      assert.deepEqual([
        r.dataset.zoneCount,
        r.dataset.stichtag,
        r.dataset.layout,
        r.dataset.licence,
        r.noValue,
      ], [
        2,
        "2025-01-01",
        "nrw_shape",
        "dl-de/zero-2-0",
        1,
      ]);
      const p = (x: number, y: number) => at(x, y, "EPSG:25832");
      assert.deepEqual(
        await valueAt(p(356200, 5645200)),
        [1250.5, 1.2, "2025-01-01"],
        "text with a decimal comma",
      );
      assert.equal(await valueAt(p(356500, 5645500)), undefined, "in the hole");
      assert.deepEqual(
        await valueAt(p(359250, 5645250), "commercial"),
        [480, null, "2025-01-01"],
        "second part",
      );
      const v = await zoneValueAt(db, ...p(356200, 5645200), "apartment");
      assert.equal(v?.region_label, "Bodenrichtwertzone Altstadt-Süd, Köln");
      const again = await importFile(path, "NW");
      assert.deepEqual([again.dataset.zoneCount, await countZones(db, { state: "NW" })], [2, 2]);
      const zip = await Deno.readFile(path);
      assert.equal(
        code(await badCopy(zip.subarray(0, Math.floor(zip.length * 0.6)), ".zip", "NW")),
        "truncated",
      );
      const nullShape = [NRW_RECORDS[0]!, { ...NRW_RECORDS[1]!, polygons: [] }];
      const missing = await badCopy(nrwShapeZip(2025, NRW_FIELDS, nullShape), ".zip", "NW");
      assert.deepEqual([code(missing), missing.at.feature], ["missing_geometry", 1]);
      const utm33 = new TextEncoder().encode(
        PRJ_25832.replace("Zone_32N", "Zone_33N").replace(
          '"Central_Meridian",9.0',
          '"Central_Meridian",15.0',
        ),
      );
      const wrongCrs = await badCopy(
        nrwShapeZip(2025, NRW_FIELDS, NRW_RECORDS, { "BRW_2025_Polygon.prj": utm33 }),
        ".zip",
        "NW",
      );
      assert.deepEqual([code(wrongCrs), wrongCrs.at.feature], ["crs_mismatch", 0]);
      const noDbf = await badCopy(
        nrwShapeZip(2025, NRW_FIELDS, NRW_RECORDS, { "BRW_2025_Polygon.dbf": null }),
        ".zip",
        "NW",
      );
      assert.deepEqual(noDbf.problem, { code: "missing_part", part: "BRW_2025_Polygon.dbf" });
      const badValue = nrwShapeZip(2025, NRW_FIELDS, [{
        ...NRW_RECORDS[0]!,
        values: koeln({ WNUM: "1", BRW: "12x" }),
      }]);
      const bad = await badCopy(badValue, ".zip", "NW");
      assert.deepEqual([bad.problem, bad.at.feature], [{
        code: "bad_value",
        field: "BRW",
        value: "12x",
        expected: "a number ≥ 0",
      }, 0]);
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
  },
);

layout("the pages' and MCP's baseline names the imported source and licence", async () => {
  const answer = await locationBaselineOf(db, {
    lat: at(477200, 5553200, "EPSG:25832")[0],
    lng: at(477200, 5553200, "EPSG:25832")[1],
    art: "kauf",
  });
  assert.deepEqual([answer.result.source, answer.result.brw, answer.invented], [
    "bodenrichtwert",
    4200,
    false,
  ]);
  assert.deepEqual(answer.attribution, {
    source: "Hessische Verwaltung für Bodenmanagement und Geoinformation (HVBG), BORIS Hessen",
    sourceUrl: "https://www.gds.hessen.de/wfs2/boris/cgi-bin/brw/2024/wfs",
    licence: "dl-de/zero-2-0",
    licenceUrl: "https://www.govdata.de/dl-de/zero-2-0",
    text:
      "Datenquelle: Hessische Verwaltung für Bodenmanagement und Geoinformation (HVBG), BORIS Hessen, dl-de/zero-2-0",
  });
  const datasets = await listDatasets(db);
  assert.deepEqual(datasets.map((d) => d.state), ["BB", "BE", "HB", "HE", "HH", "NI", "NW", "TH"]);
});

/**
 * The layouts run as steps of one test that opens and closes its own database: PGlite arms statistics timers that
 * only closing it clears, and the ops sanitizer counts a timer outliving a test as a leak.
 */
Deno.test("every layout of the state services through the import", async (t) => {
  const tdb = await openTestDb();
  db = tdb.db;
  try {
    for (const [name, fn] of steps) await t.step(name, fn);
  } finally {
    await tdb.close();
  }
});
