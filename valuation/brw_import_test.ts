/**
 * Import of land-value files: both formats and CRSs, bad rows with their line numbers, broken files, atomic
 * replacement of one state's Stichtag, re-import, refused states, and the `brw:import` task itself.
 */
import assert from "node:assert/strict";
import { countZones, replaceZones } from "../db/brw_zones.ts";
import type { Db } from "../db/connection.ts";
import { AppError } from "../errors.ts";
import { main } from "../tasks/brw_import.ts";
import { closeAfterAll, openTestDb } from "../tests/helpers.ts";
import { formatBadRow, importState, parseBrwFile, type ParsedFile, REFUSED_STATES } from "./brw_import.ts";
import type { MultiPolygonGeometry, PolygonGeometry } from "./geometry.ts";
import { zoneValueAt } from "./zones.ts";

Deno.test.sanitizer({ ops: true, resources: true });

const FIXTURES = new URL("./fixtures/", import.meta.url);
const fixture = (name: string) => new URL(name, FIXTURES).pathname;
const read = (name: string) => Deno.readFile(fixture(name));

const BB_2024 = "bb_potsdam_2024_epsg25833.csv";
const BB_2022 = "bb_potsdam_2022_epsg25833.csv";
const NW = "nw_duesseldorf_koeln_epsg25832.geojson";
const NI = "ni_hannover_epsg4326.geojson";
const BROKEN = "broken_truncated.geojson";

/** Innenstadt Potsdam (367400 5807300 in EPSG:25833, by cs2cs). */
const POTSDAM_INNENSTADT = [52.39985581, 13.05097061] as const;

function near(actual: number[] | undefined, want: [number, number], tolerance = 2e-8): void {
  assert.ok(actual, "position missing");
  const [x, y] = actual;
  assert.ok(Math.abs(x! - want[0]) < tolerance && Math.abs(y! - want[1]) < tolerance, `${actual} vs ${want}`);
}

// ---------------------------------------------------------------------------------------------------------------
// Parsing (no database)

Deno.test("Brandenburg CSV in EPSG:25833: zones, hole, multipolygon, decimal commas, one broken row", async () => {
  const f = parseBrwFile(await read(BB_2024), { state: "BB" });
  assert.equal(f.format, "csv");
  assert.equal(f.stichtag, "2024-01-01", "STAG 01.01.2024");
  assert.equal(f.rows, 7);
  assert.equal(f.invented, true);
  assert.deepEqual(f.bad, [{ line: 8, reason: "WKT ends before the geometry is closed" }]);
  assert.deepEqual(f.zones.map((z) => [z.zone_number, z.brw, z.nutzung, z.entwicklung]), [
    ["1001", 1100, "W", "B"],
    ["1002", 420, "GE", "B"],
    ["1003", 900, "MI", "B"],
    ["1004", 180, "W", "E"],
    ["1005", 750, "W", "B"],
    ["1006", 1.2, "LW", "LF"],
  ]);
  const [innenstadt] = f.zones;
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
  const g = innenstadt?.geometry as PolygonGeometry;
  assert.equal(g.type, "Polygon");
  assert.equal(g.coordinates.length, 2, "outer ring and hole");
  near(g.coordinates[0]![0], [13.04561114, 52.38807811]); // 367000 5806000 by cs2cs
  assert.ok(innenstadt!.min_lat < 52.3881 && innenstadt!.max_lat > 52.40);
  const babelsberg = f.zones[4]?.geometry as MultiPolygonGeometry;
  assert.equal(babelsberg.type, "MultiPolygon");
  assert.equal(babelsberg.coordinates.length, 2);
});

Deno.test("GeoJSON in EPSG:25832 (crs member) with VBORIS names", async () => {
  const f = parseBrwFile(await read(NW), { state: "NW" });
  assert.deepEqual([f.format, f.stichtag, f.zones.length, f.bad, f.invented], [
    "geojson",
    "2024-01-01",
    7,
    [],
    true,
  ]);
  const koe = f.zones[0]!;
  assert.deepEqual(
    [koe.zone_name, koe.brw, koe.gfz, koe.wgfz, koe.nutzung, koe.municipality_name, koe.municipality_key],
    ["Königsallee", 3500, 3, null, "MK", "Düsseldorf", "05111000"],
  );
  near((koe.geometry as PolygonGeometry).coordinates[0]![0], [6.77312059, 51.22317845]); // 344500 5677000
  assert.equal(f.zones[6]?.geometry.type, "MultiPolygon");
});

Deno.test("GeoJSON in WGS84 without a crs member, lower-case property names", async () => {
  const f = parseBrwFile(await read(NI), { state: "NI" });
  assert.deepEqual([f.stichtag, f.zones.length, f.bad], ["2024-01-01", 3, []]);
  const mitte = f.zones[0]!;
  assert.deepEqual([mitte.zone_name, mitte.brw, mitte.gfz, mitte.nutzung, mitte.entwicklung], [
    "Mitte",
    2200,
    2.5,
    "MK",
    "B",
  ]);
  assert.deepEqual((mitte.geometry as PolygonGeometry).coordinates[0]![0], [9.73, 52.37], "unchanged");
  assert.deepEqual([mitte.min_lng, mitte.min_lat, mitte.max_lng, mitte.max_lat], [9.73, 52.37, 9.745, 52.38]);
});

Deno.test("the CRS: --crs for GeoJSON without crs member; a conflict with the file is refused", () => {
  const utm = JSON.stringify({
    type: "FeatureCollection",
    features: [{
      type: "Feature",
      properties: { BRW: 100, STAG: "2024-01-01" },
      geometry: {
        type: "Polygon",
        coordinates: [[[356000, 5645000], [357000, 5645000], [357000, 5646000], [356000, 5645000]]],
      },
    }],
  });
  const f = parseBrwFile(utm, { state: "NW", crs: "EPSG:25832" });
  assert.ok(Math.abs(f.zones[0]!.min_lat - 50.93) < 0.01);
  assert.throws(() => parseBrwFile(utm, { state: "NW" }), /no valid zone/, "read as WGS84 it lies nowhere");
  assert.throws(
    () =>
      parseBrwFile(new TextDecoder().decode(Deno.readFileSync(fixture(NW))), {
        state: "NW",
        crs: "EPSG:25833",
      }),
    /declares EPSG:25832 but EPSG:25833 was given/,
  );
});

const HEADER = "GENA|GASL|WNUM|BRW|STAG|NUTA|ENTW|WGFZ|GEOM";
const SQUARE = "POLYGON((367000 5806000, 368000 5806000, 368000 5807000, 367000 5807000, 367000 5806000))";
const row = (brw: string, stag = "2024-01-01", extra = "") =>
  `Potsdam|12054000|9|${brw}|${stag}|W|B|${extra}|${SQUARE}`;

Deno.test("bad rows are skipped and reported with their line number and reason", () => {
  const csv = [
    HEADER,
    row("500"),
    row("abc"),
    row("0"),
    row("500", "32.01.2024"),
    "Potsdam|05111000|9|500|2024-01-01|W|B||" + SQUARE,
    "",
    "Potsdam|12054000|9|500|2024-01-01|W|B||POLYGON((13.06 52.39, 13.07 52.39, 13.07 52.40, 13.06 52.39))",
    "Potsdam|12054000|9|500",
    'Potsdam|"12054000|9|500|2024-01-01|W|B||' + SQUARE,
    row("500", "2024-01-01", "x"),
    row("1.234,5"),
  ].join("\r\n");
  const f = parseBrwFile(csv, { state: "BB" });
  assert.equal(f.zones.length, 1);
  assert.equal(f.rows, 10, "the blank line is not a row");
  assert.deepEqual(f.bad.map(formatBadRow), [
    'line 3: BRW is not a number ≥ 0: "abc"',
    "line 4: BRW is 0: a zone without a land value",
    'line 5: STAG is not a date (YYYY-MM-DD or DD.MM.YYYY): "32.01.2024"',
    "line 6: GASL 05111000 belongs to NW, not BB",
    "line 8: geometry lies outside Germany after conversion from EPSG:25833 (wrong CRS?)",
    "line 9: 4 fields where the header has 9",
    "line 10: unterminated quote",
    'line 11: WGFZ is not a number ≥ 0: "x"',
    'line 12: BRW is not a number ≥ 0: "1.234,5"',
  ]);
});

Deno.test("one Stichtag per import: other Stichtage are bad rows, or chosen with the stichtag option", () => {
  const csv = [HEADER, row("500"), row("510", "01.01.2022"), row("520"), row("530")].join("\n");
  const f = parseBrwFile(csv, { state: "BB" });
  assert.deepEqual([f.stichtag, f.zones.map((z) => z.brw)], ["2024-01-01", [500, 520, 530]]);
  assert.deepEqual(f.bad, [{
    line: 3,
    reason: "Stichtag 2022-01-01 is not this import's Stichtag 2024-01-01",
  }]);
  const g = parseBrwFile(csv, { state: "BB", stichtag: "2022-01-01" });
  assert.deepEqual([g.stichtag, g.zones.map((z) => z.brw), g.bad.map((b) => b.line)], ["2022-01-01", [510], [
    2,
    4,
    5,
  ]]);
  assert.throws(
    () => parseBrwFile(csv, { state: "BB", stichtag: "2020-01-01" }),
    /no valid zone with Stichtag 2020-01-01/,
  );
});

Deno.test("quoted fields, a UTF-8 BOM, EWKT and Windows-1252 text", () => {
  const csv =
    `\uFEFF${HEADER}\n"Königs Wusterhausen"|12061260|"7|a"|"1,5"|2024-01-01|LW|LF||SRID=25833;${SQUARE}`;
  const utf8 = parseBrwFile(new TextEncoder().encode(csv), { state: "BB" });
  assert.deepEqual([utf8.zones[0]?.municipality_name, utf8.zones[0]?.zone_number, utf8.zones[0]?.brw], [
    "Königs Wusterhausen",
    "7|a",
    1.5,
  ]);
  const latin = Uint8Array.from([...csv.slice(1)].map((c) => c.charCodeAt(0)));
  assert.equal(parseBrwFile(latin, { state: "BB" }).zones[0]?.municipality_name, "Königs Wusterhausen");
});

Deno.test("unusable files are refused as a whole", async () => {
  const cases: Array<[Uint8Array | string, RegExp]> = [
    [await read(BROKEN), /not valid JSON/],
    ["", /empty/],
    ["BRW;STAG;GEOM\n1;2;3", /not a pipe-delimited file/],
    ["GENA|BRW|WNUM\nPotsdam|1|2", /lacks STAG, a geometry column/],
    ['{"type": "Feature"}', /not a FeatureCollection/],
    [
      JSON.stringify({
        type: "FeatureCollection",
        crs: { properties: { name: "EPSG:31467" } },
        features: [],
      }),
      /31467/,
    ],
    [[HEADER, row("abc")].join("\n"), /no valid zone in the file \(1 bad rows\)/],
  ];
  for (const [data, re] of cases) {
    assert.throws(
      () => parseBrwFile(data, { state: "BB" }),
      (e) => e instanceof AppError && re.test(e.message),
    );
  }
});

Deno.test("the four non-releasing states are refused with the licence reason", () => {
  assert.deepEqual([...REFUSED_STATES].sort(), ["BW", "BY", "SH", "SL"]);
  for (const s of ["BW", "SL", "SH", "BY", "by"]) {
    assert.throws(() => importState(s), /no licence to reuse/, s);
  }
  assert.throws(() => importState("XX"), /unknown state "XX"/);
  assert.equal(importState(" bb "), "BB");
  assert.equal(importState("NW"), "NW");
});

// ---------------------------------------------------------------------------------------------------------------
// Into the database

const tdb = await openTestDb();
const db = tdb.db;
closeAfterAll(tdb);

async function importFile(name: string, state: "BB" | "NW" | "NI", stichtag?: string): Promise<ParsedFile> {
  const f = parseBrwFile(await read(name), { state, stichtag });
  await replaceZones(db, { state, stichtag: f.stichtag, source: name, licence: "test", zones: f.zones });
  return f;
}

async function innenstadtValue(): Promise<number | undefined> {
  return (await zoneValueAt(db, POTSDAM_INNENSTADT[0], POTSDAM_INNENSTADT[1], "apartment"))?.brw;
}

Deno.test("re-importing the same Stichtag replaces it; other Stichtage and states stay", async () => {
  await importFile(BB_2022, "BB");
  await importFile(BB_2024, "BB");
  await importFile(NW, "NW");
  assert.deepEqual(
    [await countZones(db, { state: "BB", stichtag: "2024-01-01" }), await countZones(db, { state: "BB" })],
    [6, 8],
  );
  const again = parseBrwFile(await read(BB_2024), { state: "BB" });
  const r = await replaceZones(db, {
    state: "BB",
    stichtag: "2024-01-01",
    source: "s",
    licence: "l",
    zones: again.zones,
  });
  assert.deepEqual(r, { deleted: 6, inserted: 6 });
  assert.equal(await countZones(db, { state: "BB" }), 8, "no duplicates");
  // A smaller re-import of 2024 leaves 2022 and NW alone.
  const two = again.zones.slice(0, 2).map((z) => ({ ...z, brw: z.brw + 1 }));
  await replaceZones(db, { state: "BB", stichtag: "2024-01-01", source: "s", licence: "l", zones: two });
  assert.deepEqual(
    [
      await countZones(db, { state: "BB", stichtag: "2024-01-01" }),
      await countZones(db, { state: "BB", stichtag: "2022-01-01" }),
      await countZones(db, { state: "NW" }),
    ],
    [2, 2, 7],
  );
  assert.equal(await innenstadtValue(), 1101);
  await importFile(BB_2024, "BB");
  assert.equal(await innenstadtValue(), 1100);
});

Deno.test("a failure in the middle of a replacement rolls everything back", async () => {
  await importFile(BB_2024, "BB");
  const before = [await countZones(db, { state: "BB", stichtag: "2024-01-01" }), await innenstadtValue()];
  const zones = parseBrwFile(await read(BB_2024), { state: "BB" }).zones.map((z) => ({ ...z, brw: 5 }));
  zones.push({ ...zones[0]!, brw: -1 }); // violates the check constraint in the last batch
  let progressed = 0;
  await assert.rejects(
    replaceZones(db, { state: "BB", stichtag: "2024-01-01", source: "s", licence: "l", zones }, {
      batchSize: 2,
      onProgress: (n) => (progressed = n),
    }),
  );
  assert.equal(progressed, 6, "three batches went in before the failure");
  assert.deepEqual(
    [await countZones(db, { state: "BB", stichtag: "2024-01-01" }), await innenstadtValue()],
    before,
  );
});

Deno.test("concurrent replacements of the same state and Stichtag do not duplicate zones", async () => {
  const zones = parseBrwFile(await read(NW), { state: "NW" }).zones;
  const set = { state: "NW", stichtag: "2024-01-01", source: "s", licence: "l", zones };
  await Promise.all([replaceZones(db, set), replaceZones(db, set), replaceZones(db, set)]);
  assert.equal(await countZones(db, { state: "NW" }), 7);
});

// ---------------------------------------------------------------------------------------------------------------
// The task

async function runTask(args: string[]): Promise<{ code: number; out: string[]; err: string[] }> {
  const out: string[] = [];
  const err: string[] = [];
  const shared: Db = { ...db, close: () => Promise.resolve() };
  const code = await main(args, {
    open: () => Promise.resolve(shared),
    out: (l) => out.push(l),
    err: (l) => err.push(l),
    progress: false,
  });
  return { code, out, err };
}

Deno.test("task: imports a file and lists the bad rows with line numbers", async () => {
  const r = await runTask([fixture(BB_2024), "--state", "bb"]);
  assert.equal(r.code, 0, r.err.join("\n"));
  assert.match(
    r.out[0]!,
    /^imported 6 zones for BB, Stichtag 2024-01-01 \(6 previous zones of that Stichtag replaced/,
  );
  assert.deepEqual(r.out.slice(1), [
    "note: the file is marked ERFUNDENE TESTDATEN (invented data)",
    "1 bad row of 7 skipped:",
    "  line 8: WKT ends before the geometry is closed",
  ]);
  const v = await zoneValueAt(db, POTSDAM_INNENSTADT[0], POTSDAM_INNENSTADT[1], "apartment");
  assert.deepEqual([v?.source, v?.licence], [
    `ERFUNDENE TESTDATEN (${BB_2024})`,
    "ERFUNDENE TESTDATEN: keine amtlichen Werte, frei verwendbar",
  ]);
  const n = await runTask([fixture(NI), "--state", "NI", "--source", "Test NI", "--licence", "frei"]);
  assert.equal(n.code, 0, n.err.join("\n"));
  assert.equal((await zoneValueAt(db, 52.3744, 9.7386, undefined))?.source, "Test NI");
});

Deno.test("task: a broken file fails with exit 1 and changes nothing", async () => {
  const before = [await countZones(db), await innenstadtValue()];
  const r = await runTask([fixture(BROKEN), "--state", "NW"]);
  assert.equal(r.code, 1);
  assert.match(r.err[0]!, /^import failed, nothing changed: not valid JSON/);
  assert.deepEqual([await countZones(db), await innenstadtValue()], before);
});

Deno.test("task: refused states, unreadable files and bad usage exit with 2", async () => {
  const before = await countZones(db);
  for (const state of ["BW", "SL", "SH", "BY"]) {
    const r = await runTask([fixture(BB_2024), "--state", state]);
    assert.equal(r.code, 2, state);
    assert.match(r.err[0]!, new RegExp(`^${state}: refused, no licence to reuse`));
  }
  const missing = await runTask(["/nonexistent/brw.csv", "--state", "BB"]);
  assert.equal(missing.code, 2);
  assert.match(missing.err[0]!, /^cannot read \/nonexistent\/brw\.csv/);
  assert.equal((await runTask([fixture(BB_2024)])).code, 2, "no --state");
  assert.equal((await runTask([fixture(BB_2024), "--state", "BB", "--crs", "EPSG:31467"])).code, 2);
  assert.equal((await runTask([fixture(BB_2024), "--state", "BB", "--stichtag", "2024"])).code, 2);
  assert.equal((await runTask([fixture(BB_2024), "--state", "BB", "--bogus"])).code, 2, "unknown flag");
  const real = await Deno.makeTempFile({ suffix: ".csv" });
  try {
    await Deno.writeTextFile(real, [HEADER, row("500").replace("12054000", "06412000")].join("\n"));
    const unlicensed = await runTask([real, "--state", "HE", "--crs", "EPSG:25832"]);
    assert.equal(unlicensed.code, 2);
    assert.equal(unlicensed.err[0], 'HE: no default licence is known; name it with --licence "…"');
  } finally {
    await Deno.remove(real);
  }
  assert.equal(await countZones(db), before);
});

Deno.test({
  name: "task: `deno task brw:import` runs as a script on a fresh embedded database",
  fn: async () => {
    const dir = await Deno.makeTempDir();
    try {
      const run = (args: string[]) =>
        new Deno.Command("deno", {
          args: ["task", "-q", "brw:import", ...args],
          cwd: new URL("../", import.meta.url).pathname,
          env: { DATA_DIR: dir, DATABASE_URL: "", NO_COLOR: "1" },
          stdout: "piped",
          stderr: "piped",
        }).output();
      const ok = await run([fixture(NW), "--state", "NW"]);
      const out = new TextDecoder().decode(ok.stdout);
      const err = new TextDecoder().decode(ok.stderr);
      assert.equal(ok.code, 0, err);
      assert.match(out, /^imported 7 zones for NW, Stichtag 2024-01-01 \(0 previous zones/);
      assert.match(err, /importing \[#+\] 100% {2}7\/7/, "progress bar on stderr");
      const refused = await run([fixture(NW), "--state", "BY"]);
      assert.equal(refused.code, 2);
      assert.match(new TextDecoder().decode(refused.stderr), /no licence to reuse/);
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
  },
});
