/**
 * Import of land-value files as datasets: the CSV and GeoJSON layouts read since the start, CRSs, files that
 * fail whole with their location, the dataset rules (a re-import is idempotent, a new Stichtag replaces the old
 * one only once it has loaded, an older one is refused, other states stay), the data migration of zones imported
 * before datasets existed, and the `brw:import` and `brw:datasets` tasks. The layouts of the state services are
 * tested in tests/brw_layouts_test.ts.
 */
import assert from "node:assert/strict";
import { listDatasets } from "../db/brw_datasets.ts";
import { countZones } from "../db/brw_zones.ts";
import type { Db } from "../db/connection.ts";
import { main } from "../tasks/brw_import.ts";
import { main as datasetsMain } from "../tasks/brw_datasets.ts";
import { openTestDb } from "../tests/helpers.ts";
import { BrwImportError, type BrwProblem } from "./brw_errors.ts";
import {
  importBrwFile,
  importState,
  newSummary,
  readZones,
  REFUSED_STATES,
  type ZoneRecord,
} from "./brw_import.ts";
import { crsRef } from "./crs.ts";
import type { MultiPolygonGeometry, PolygonGeometry } from "./geometry.ts";
import { zoneValueAt } from "./zones.ts";

Deno.test.sanitizer({ ops: true, resources: true });

const FIXTURES = new URL("./fixtures/", import.meta.url);
const fixture = (name: string) => new URL(name, FIXTURES).pathname;

const BB_2024 = "bb_potsdam_2024_epsg25833.csv";
const BB_2022 = "bb_potsdam_2022_epsg25833.csv";
const NW = "nw_duesseldorf_koeln_epsg25832.geojson";
const NI = "ni_hannover_epsg4326.geojson";

/** Innenstadt Potsdam (367400 5807300 in EPSG:25833, by cs2cs). */
const POTSDAM_INNENSTADT = [52.39985581, 13.05097061] as const;

function near(actual: number[] | undefined, want: [number, number], tolerance = 2e-8): void {
  assert.ok(actual, "position missing");
  const [x, y] = actual;
  assert.ok(Math.abs(x! - want[0]) < tolerance && Math.abs(y! - want[1]) < tolerance, `${actual} vs ${want}`);
}

async function zonesOf(path: string, state: "BB" | "NW" | "NI" | "HE", crs?: string) {
  const summary = newSummary();
  const zones: ZoneRecord[] = [];
  for await (const z of readZones(path, { state, crs: crs ? crsRef(crs) : undefined }, summary)) {
    zones.push(z);
  }
  return { zones, summary };
}

/** The typed error a read of `path` fails with. */
async function readError(
  path: string,
  state: "BB" | "NW" | "NI" = "BB",
  crs?: string,
): Promise<BrwImportError> {
  try {
    await zonesOf(path, state, crs);
  } catch (e) {
    if (e instanceof BrwImportError) return e;
    throw e;
  }
  throw new Error(`${path} was read without an error`);
}

async function tempFile(content: string | Uint8Array, suffix: string): Promise<string> {
  const path = await Deno.makeTempFile({ suffix });
  if (typeof content === "string") await Deno.writeTextFile(path, content);
  else await Deno.writeFile(path, content);
  return path;
}

// ---------------------------------------------------------------------------------------------------------------
// Reading (no database)

Deno.test("Brandenburg CSV in EPSG:25833: zones, hole, multipolygon, decimal commas", async () => {
  const { zones, summary } = await zonesOf(fixture(BB_2024), "BB");
  assert.deepEqual([summary.layout, summary.features, summary.invented, [...summary.stichtage]], [
    "vboris_csv",
    6,
    true,
    ["2024-01-01"],
  ]);
  assert.deepEqual(zones.map((z) => [z.zone_number, z.brw, z.nutzung, z.entwicklung]), [
    ["1001", 1100, "W", "B"],
    ["1002", 420, "GE", "B"],
    ["1003", 900, "MI", "B"],
    ["1004", 180, "W", "E"],
    ["1005", 750, "W", "B"],
    ["1006", 1.2, "LW", "LF"],
  ]);
  const [innenstadt] = zones;
  assert.deepEqual(
    [
      innenstadt?.zone_name,
      innenstadt?.gfz,
      innenstadt?.wgfz,
      innenstadt?.municipality_name,
      innenstadt?.municipality_key,
    ],
    ["Innenstadt", null, 1.2, "Potsdam", "12054000"],
  );
  assert.equal(innenstadt?.zone_key, "12054000|1001");
  const g = innenstadt?.geometry as PolygonGeometry;
  assert.equal(g.coordinates.length, 2, "outer ring and hole");
  near(g.coordinates[0]![0], [13.04561114, 52.38807811]); // 367000 5806000 by cs2cs
  assert.equal((zones[4]?.geometry as MultiPolygonGeometry).coordinates.length, 2);
});

Deno.test("GeoJSON in EPSG:25832 (crs member) and in WGS84 with lower-case names", async () => {
  const nw = await zonesOf(fixture(NW), "NW");
  assert.deepEqual([nw.summary.layout, nw.zones.length], ["vboris_geojson", 7]);
  const koe = nw.zones[0]!;
  assert.deepEqual(
    [koe.zone_name, koe.brw, koe.gfz, koe.wgfz, koe.nutzung, koe.municipality_name, koe.municipality_key],
    ["Königsallee", 3500, 3, null, "MK", "Düsseldorf", "05111000"],
  );
  near((koe.geometry as PolygonGeometry).coordinates[0]![0], [6.77312059, 51.22317845]); // 344500 5677000
  const ni = await zonesOf(fixture(NI), "NI");
  assert.deepEqual((ni.zones[0]!.geometry as PolygonGeometry).coordinates[0]![0], [9.73, 52.37], "unchanged");
});

Deno.test("the CRS: --crs for GeoJSON without a crs member; a conflict with the file fails", async () => {
  const utm = await tempFile(
    JSON.stringify({
      type: "FeatureCollection",
      features: [{
        type: "Feature",
        properties: { BRW: 100, STAG: "2024-01-01" },
        geometry: {
          type: "Polygon",
          coordinates: [[[356000, 5645000], [357000, 5645000], [357000, 5646000], [356000, 5645000]]],
        },
      }],
    }),
    ".geojson",
  );
  try {
    const { zones } = await zonesOf(utm, "NW", "EPSG:25832");
    assert.ok(Math.abs(zones[0]!.min_lat - 50.93) < 0.01);
    const asWgs84 = await readError(utm, "NW");
    assert.deepEqual([asWgs84.problem.code, asWgs84.at.feature], ["crs_mismatch", 0]);
    const conflict = await readError(fixture(NW), "NW", "EPSG:25833");
    assert.deepEqual(conflict.problem, {
      code: "crs_conflict",
      declared: "urn:ogc:def:crs:EPSG::25832",
      given: "EPSG:25833",
    });
  } finally {
    await Deno.remove(utm);
  }
});

const HEADER = "GENA|GASL|WNUM|BRW|STAG|NUTA|ENTW|WGFZ|GEOM";
const SQUARE = "POLYGON((367000 5806000, 368000 5806000, 368000 5807000, 367000 5807000, 367000 5806000))";
const row = (brw: string, stag = "2024-01-01", extra = "") =>
  `Potsdam|12054000|9|${brw}|${stag}|W|B|${extra}|${SQUARE}`;

Deno.test("a bad row fails the whole file with its line and the reason, typed", async () => {
  const cases: Array<[string[], BrwProblem, number]> = [
    [[HEADER, row("500"), row("abc")], {
      code: "bad_value",
      field: "BRW",
      value: "abc",
      expected: "a number ≥ 0",
    }, 3],
    [[HEADER, row("500", "32.01.2024")], {
      code: "bad_value",
      field: "STAG",
      value: "32.01.2024",
      expected: "a date (YYYY-MM-DD or DD.MM.YYYY)",
    }, 2],
    [[HEADER, row("500", "")], { code: "missing_field", field: "STAG" }, 2],
    [[HEADER, "Potsdam|12054000|9|500"], { code: "malformed", detail: "4 fields where the header has 9" }, 2],
    [[HEADER, 'Potsdam|"12054000|9|500|2024-01-01|W|B||' + SQUARE], {
      code: "malformed",
      detail: "a quote is not closed",
    }, 2],
    [[HEADER, "Potsdam|12054000|9|500|2024-01-01|W|B||"], { code: "missing_geometry" }, 2],
    [[HEADER, row("500", "2024-01-01", "x")], {
      code: "bad_value",
      field: "WGFZ",
      value: "x",
      expected: "a number ≥ 0",
    }, 2],
    [
      [
        HEADER,
        "Potsdam|12054000|9|500|2024-01-01|W|B||POLYGON((13.06 52.39, 13.07 52.39, 13.07 52.40, 13.06 52.39))",
      ],
      { code: "crs_mismatch", crs: "EPSG:25833", state: "BB", lng: 10.51137312, lat: 0.00047253 },
      2,
    ],
  ];
  for (const [lines, problem, line] of cases) {
    const path = await tempFile(lines.join("\r\n"), ".csv");
    try {
      const e = await readError(path);
      assert.deepEqual([e.problem, e.at.line], [problem, line], lines.at(-1));
    } finally {
      await Deno.remove(path);
    }
  }
  const broken = await readError(fixture("bb_broken_wkt_epsg25833.csv"));
  assert.deepEqual([broken.problem, broken.at], [
    { code: "bad_geometry", detail: "WKT ends before the geometry is closed" },
    { line: 3, feature: 1 },
  ]);
});

Deno.test("zones without a land value and zones of other states are skipped and counted", async () => {
  const path = await tempFile(
    [HEADER, row("500"), row("0"), row(""), row("510").replace("12054000", "05111000")].join("\n"),
    ".csv",
  );
  try {
    const { zones, summary } = await zonesOf(path, "BB");
    assert.deepEqual([zones.map((z) => z.brw), summary.noValue, summary.otherStates, summary.features], [
      [500],
      2,
      { NW: 1 },
      4,
    ]);
  } finally {
    await Deno.remove(path);
  }
});

Deno.test("quoted fields, a UTF-8 BOM, EWKT, Windows-1252 text, German thousands", async () => {
  const csv =
    `\uFEFF${HEADER}\n"Königs Wusterhausen"|12061260|"7|a"|"1.234,5"|2024-01-01|LW|LF||SRID=25833;${SQUARE}`;
  const utf8 = await tempFile(csv, ".csv");
  const latin = await tempFile(Uint8Array.from([...csv.slice(1)].map((c) => c.charCodeAt(0))), ".csv");
  try {
    const [z] = (await zonesOf(utf8, "BB")).zones;
    assert.deepEqual([z?.municipality_name, z?.zone_number, z?.brw], ["Königs Wusterhausen", "7|a", 1234.5]);
    assert.equal((await zonesOf(latin, "BB")).zones[0]?.municipality_name, "Königs Wusterhausen");
  } finally {
    await Deno.remove(utf8);
    await Deno.remove(latin);
  }
});

Deno.test("unusable files fail whole with a typed problem", async () => {
  const cases: Array<[string, string, BrwProblem["code"]]> = [
    ["", ".csv", "unknown_layout"],
    ["BRW;STAG;GEOM\n1;2;3", ".csv", "unknown_layout"],
    ["GENA|BRW|WNUM\nPotsdam|1|2", ".csv", "missing_field"],
    ['{"type": "Feature"}', ".json", "unknown_layout"],
    [
      JSON.stringify({
        type: "FeatureCollection",
        crs: { properties: { name: "EPSG:31467" } },
        features: [],
      }),
      ".json",
      "unsupported_crs",
    ],
    [JSON.stringify({ type: "FeatureCollection", features: [] }), ".json", "no_zones"],
    [
      '{"type": "FeatureCollection", "features": [{"type": "Feature", "properties": {"BRW": 1}',
      ".json",
      "truncated",
    ],
    ['{"type": "FeatureCollection", "features": [}', ".json", "malformed"],
    ["<wfs:FeatureCollection xmlns:wfs='http://www.opengis.net/wfs/2.0'><wfs:member>", ".gml", "truncated"],
    [
      "<ows:ExceptionReport xmlns:ows='http://www.opengis.net/ows/1.1'>layer unknown</ows:ExceptionReport>",
      ".xml",
      "malformed",
    ],
  ];
  for (const [content, suffix, code] of cases) {
    const path = await tempFile(content, suffix);
    try {
      const db = { kysely: undefined } as unknown as Db; // the file fails before any statement
      await assert.rejects(importBrwFile(db, { path, state: "BB" }), (e) => {
        assert.ok(e instanceof BrwImportError, String(e));
        assert.equal(e.problem.code, code, content);
        assert.ok(e.at.file?.endsWith(suffix));
        return true;
      });
    } finally {
      await Deno.remove(path);
    }
  }
  const truncated = await readError(fixture("broken_truncated.geojson"), "NW");
  assert.equal(truncated.problem.code, "truncated");
});

Deno.test("the four non-releasing states are refused with the licence reason", () => {
  assert.deepEqual([...REFUSED_STATES].sort(), ["BW", "BY", "SH", "SL"]);
  for (const s of ["BW", "SL", "SH", "BY", "by"]) {
    assert.throws(() => importState(s), /no licence to reuse/, s);
  }
  assert.throws(() => importState("XX"), /unknown state "XX"/);
  assert.equal(importState(" bb "), "BB");
});

// ---------------------------------------------------------------------------------------------------------------
// Datasets in the database

/**
 * The database tests run as steps of one test that opens and closes its own database: PGlite arms timers (for its
 * statistics) that only closing it clears, and the ops sanitizer counts a timer that outlives a test as a leak.
 */
let db: Db;
const dbSteps: Array<[string, () => Promise<void>]> = [];
function dbTest(name: string, fn: () => Promise<void>): void {
  dbSteps.push([name, fn]);
}

async function innenstadtValue(): Promise<number | undefined> {
  return (await zoneValueAt(db, POTSDAM_INNENSTADT[0], POTSDAM_INNENSTADT[1], "apartment"))?.brw;
}

const activeBb = async () => (await listDatasets(db, { state: "BB" }))[0];

dbTest("an import records its dataset; a re-import of the same file is idempotent", async () => {
  const first = await importBrwFile(db, { path: fixture(BB_2024), state: "BB", licence: "dl-de/by-2-0" });
  assert.equal(first.dataset.zoneCount, 6);
  const again = await importBrwFile(db, { path: fixture(BB_2024), state: "BB", licence: "dl-de/by-2-0" });
  const d = again.dataset;
  assert.deepEqual(
    [d.state, d.status, d.stichtag, d.zoneCount, d.licence, d.layout, d.fileName, again.replaced?.id],
    ["BB", "active", "2024-01-01", 6, "dl-de/by-2-0", "vboris_csv", BB_2024, first.dataset.id],
  );
  assert.equal(d.source, `ERFUNDENE TESTDATEN: Beispieldaten (${BB_2024})`, "invented data names itself");
  assert.match(d.fileSha256 ?? "", /^[0-9a-f]{64}$/);
  assert.equal(d.fileSha256, first.dataset.fileSha256);
  assert.ok(d.importedAt !== null && d.importedAt >= first.dataset.importedAt!);
  assert.equal(await countZones(db, { state: "BB" }), 6, "no duplicates");
  assert.equal(
    (await listDatasets(db, { state: "BB", all: true })).length,
    1,
    "the replaced dataset is gone",
  );
  assert.equal(await innenstadtValue(), 1100);
});

dbTest(
  "an older Stichtag is refused unless --allow-older; a newer one replaces the state's values",
  async () => {
    await importBrwFile(db, { path: fixture(BB_2024), state: "BB" });
    const before = await activeBb();
    await assert.rejects(importBrwFile(db, { path: fixture(BB_2022), state: "BB" }), (e) => {
      assert.ok(e instanceof BrwImportError);
      assert.deepEqual(e.problem, {
        code: "older_stichtag",
        stichtag: "2022-01-01",
        active: "2024-01-01",
        dataset: before!.id,
      });
      assert.equal(e.at.file, BB_2022);
      return true;
    });
    assert.deepEqual(await activeBb(), before, "nothing changed");
    assert.equal(
      (await listDatasets(db, { state: "BB", all: true })).length,
      1,
      "the refused load is deleted",
    );
    const older = await importBrwFile(db, { path: fixture(BB_2022), state: "BB", allowOlder: true });
    assert.deepEqual([older.dataset.stichtag, older.dataset.zoneCount, await innenstadtValue()], [
      "2022-01-01",
      2,
      980,
    ]);
    const newer = await importBrwFile(db, { path: fixture(BB_2024), state: "BB" });
    assert.deepEqual([newer.replaced?.stichtag, await innenstadtValue()], ["2022-01-01", 1100]);
  },
);

dbTest("another state's import leaves BB alone", async () => {
  await importBrwFile(db, { path: fixture(BB_2024), state: "BB" });
  const bb = await activeBb();
  await importBrwFile(db, { path: fixture(NW), state: "NW" });
  assert.deepEqual(await activeBb(), bb);
  assert.deepEqual([await countZones(db, { state: "NW" }), await countZones(db, { state: "BB" })], [7, 6]);
});

dbTest("a file that fails after zones were loaded leaves nothing; the previous values stay", async () => {
  await importBrwFile(db, { path: fixture(BB_2024), state: "BB" });
  const before = [await activeBb(), await innenstadtValue()];
  const good = (await Deno.readTextFile(fixture(BB_2024))).split("\n");
  const lines = [good[0]!, ...Array.from({ length: 1200 }, () => good[1]!), good[2]!.replace("|420|", "|x|")];
  const path = await tempFile(lines.join("\n"), ".csv");
  try {
    await assert.rejects(importBrwFile(db, { path, state: "BB" }), (e) => {
      assert.ok(e instanceof BrwImportError);
      assert.deepEqual([e.problem.code, e.at.line, e.at.feature], ["bad_value", 1202, 1200]);
      return true;
    });
  } finally {
    await Deno.remove(path);
  }
  assert.deepEqual([await activeBb(), await innenstadtValue()], before);
  assert.equal(
    (await listDatasets(db, { state: "BB", all: true })).length,
    1,
    "the loaded batches are deleted",
  );
});

dbTest("concurrent imports of the same state leave one dataset", async () => {
  await Promise.all([1, 2, 3].map(() => importBrwFile(db, { path: fixture(NW), state: "NW" })));
  assert.equal(await countZones(db, { state: "NW" }), 7);
  assert.equal((await listDatasets(db, { state: "NW" })).length, 1);
});

// ---------------------------------------------------------------------------------------------------------------
// The tasks

async function runTask(
  task: typeof main,
  args: string[],
): Promise<{ code: number; out: string[]; err: string[] }> {
  const out: string[] = [];
  const err: string[] = [];
  const shared: Db = { ...db, close: () => Promise.resolve() };
  const code = await task(args, {
    open: () => Promise.resolve(shared),
    out: (l) => out.push(l),
    err: (l) => err.push(l),
    progress: false,
  });
  return { code, out, err };
}

dbTest("task: imports a file, reports its dataset; brw:datasets lists it", async () => {
  const r = await runTask(main, [
    fixture(NI),
    "--state",
    "ni",
    "--source",
    "Test NI",
    "--licence",
    "dl-de/by-2-0",
  ]);
  assert.equal(r.code, 0, r.err.join("\n"));
  assert.match(
    r.out[0]!,
    /^imported 3 zones for NI, Stichtag 2024-01-01 \(dataset \d+, layout vboris_geojson\)/,
  );
  assert.equal(r.out[1], "source: Test NI; licence: dl-de/by-2-0");
  assert.equal((await zoneValueAt(db, 52.3744, 9.7386, undefined))?.source, "Test NI");
  const list = await runTask(datasetsMain, ["--state", "NI"]);
  assert.equal(list.code, 0);
  assert.match(list.out[0]!, /^NI {2}Stichtag 2024-01-01 {2}3 zones {2}dl-de\/by-2-0 {2}dataset \d+$/);
  assert.match(
    list.out[1]!,
    /^ {4}Test NI; imported \d{4}-\d\d-\d\dT[\d:]+Z, file ni_hannover_epsg4326\.geojson \(vboris_geojson\)$/,
  );
  const json = await runTask(datasetsMain, ["--json", "--all"]);
  assert.ok(JSON.parse(json.out.join("\n")).some((d: { state: string }) => d.state === "NI"));
  assert.equal((await runTask(datasetsMain, ["--state", "XX"])).code, 2);
});

dbTest(
  "task: a bad file fails with exit 1 naming file, feature or line and reason; nothing changes",
  async () => {
    await importBrwFile(db, { path: fixture(BB_2024), state: "BB" });
    const before = [await activeBb(), await innenstadtValue()];
    const broken = await runTask(main, [fixture("bb_broken_wkt_epsg25833.csv"), "--state", "BB"]);
    assert.equal(broken.code, 1);
    assert.equal(
      broken.err[0],
      "import failed, nothing changed: bb_broken_wkt_epsg25833.csv, feature 1, line 3: the geometry is not a valid " +
        "polygon: WKT ends before the geometry is closed",
    );
    const truncated = await runTask(main, [fixture("broken_truncated.geojson"), "--state", "NW"]);
    assert.match(
      truncated.err[0]!,
      /^import failed, nothing changed: broken_truncated\.geojson, feature 4: the file ends in the middle/,
    );
    assert.deepEqual([await activeBb(), await innenstadtValue()], before);
  },
);

dbTest("task: refused states, unknown licences, unreadable files and bad usage exit with 2", async () => {
  const before = await countZones(db);
  for (const state of ["BW", "SL", "SH", "BY"]) {
    const r = await runTask(main, [fixture(BB_2024), "--state", state]);
    assert.equal(r.code, 2, state);
    assert.match(r.err[0]!, new RegExp(`^${state}: refused, no licence to reuse`));
  }
  const missing = await runTask(main, ["/nonexistent/brw.csv", "--state", "BB"]);
  assert.deepEqual([missing.code, /^cannot read \/nonexistent\/brw\.csv/.test(missing.err[0]!)], [2, true]);
  for (
    const args of [[], ["--state", "BB", "--crs", "EPSG:31467"], ["--state", "BB", "--bogus"], [
      "--state",
      "BB",
      "--source-url",
      "ftp://x",
    ]]
  ) {
    assert.equal(
      (await runTask(main, args.length ? [fixture(BB_2024), ...args] : [fixture(BB_2024)])).code,
      2,
      args.join(" "),
    );
  }
  const rostock = "POLYGON((312000 5997000, 313000 5997000, 313000 5998000, 312000 5997000))";
  const real = await tempFile(
    [HEADER, row("500").replace("12054000", "13003000").replace(SQUARE, rostock)].join("\n"),
    ".csv",
  );
  try {
    const unlicensed = await runTask(main, [real, "--state", "MV", "--crs", "EPSG:25833"]);
    assert.deepEqual([unlicensed.code, unlicensed.err[0]], [
      2,
      `import failed, nothing changed: ${
        real.split("/").pop()
      }: MV: no default source and licence are known; ` +
      'name them with --source "…" --licence "…"',
    ]);
  } finally {
    await Deno.remove(real);
  }
  assert.equal(await countZones(db), before);
});

Deno.test("datasets and the tasks on a database", async (t) => {
  const tdb = await openTestDb();
  db = tdb.db;
  try {
    for (const [name, fn] of dbSteps) await t.step(name, fn);
  } finally {
    await tdb.close();
  }
});
