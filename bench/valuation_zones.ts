/**
 * The land-value zones of `bench:valuation`: the synthetic zones written per state as a BRM 2.1 GML file and
 * imported by `deno task brw:import` under GNU time (import time and peak memory), the municipalities they hold,
 * and the table's size and query plans.
 */
import { type RawBuilder, sql } from "kysely";
import type { Db } from "../db/connection.ts";
import { writeBrmGml } from "./brw_gml.ts";
import { checkInterrupted, say } from "./harness.ts";
import { run } from "./processes.ts";
import { generateState, type Municipality, planZones, randomPoints, RELEASING_STATES } from "./zone_gen.ts";

/** Source text of the synthetic zones (also how a later run recognises them). */
export const BENCH_SOURCE = "SYNTHETISCHE TESTDATEN: bench/valuation.ts, zone_gen v1";
/** Stichtag of the synthetic zones. */
export const BENCH_STICHTAG = "2025-01-01";

/** Figures of importing the synthetic zones from GML files, one per state, with `deno task brw:import`. */
export interface ImportFigures {
  /** Per state: zones, file size (MB), seconds and peak resident memory (MB) of the import process. */
  states: Array<{ state: string; zones: number; fileMb: number; seconds: number; peakMb: number }>;
  /** Seconds writing the GML files (generation excluded). */
  writeS: number;
}

/** The municipalities of the synthetic zones in the database. */
async function benchMunicipalities(db: Db): Promise<Municipality[]> {
  const rows = await sql<{ name: string; state: string; key: string; zones: number }>`
    select z.municipality_name as name, z.state, min(z.municipality_key) as key, count(*)::int as zones
    from brw_zones z join brw_datasets d on d.id = z.dataset_id
    where d.status = 'active' and d.source = ${BENCH_SOURCE} group by 1, 2`.execute(db.kysely);
  return rows.rows.map((r) => ({ ...r, state: r.state as Municipality["state"] }));
}

/**
 * Imports the synthetic zones unless exactly `zones` of them are present: per state, the zones are written as a
 * BRM 2.1 GML file (`brw_gml.ts`) and imported by `deno task brw:import` in a child process under GNU time, which
 * reports its peak resident memory. Returns the municipalities and the import figures.
 */
export async function ensureZones(
  db: Db,
  zones: number,
  databaseUrl: string,
  workdir: string,
): Promise<{ munis: Municipality[]; imported?: ImportFigures }> {
  const counts = await sql<{ bench: number; foreign: number }>`
    select coalesce(sum(zone_count) filter (where source = ${BENCH_SOURCE}), 0)::int as bench,
      count(*) filter (where source <> ${BENCH_SOURCE})::int as foreign
    from brw_datasets where status = 'active'`.execute(db.kysely);
  const { bench, foreign } = counts.rows[0]!;
  if (bench === zones) {
    say(`${bench} synthetic zones present: import skipped`);
    return { munis: await benchMunicipalities(db) };
  }
  if (foreign > 0) {
    throw new Error(
      `the database holds ${foreign} land-value datasets that this benchmark did not create; importing its ` +
        "zones would replace them: use a throwaway database",
    );
  }
  const t0 = performance.now();
  const plan = planZones(zones);
  const c = plan.counts;
  say(
    `zone plan: ${plan.rows} × ${plan.cols} lattice, cells ${(plan.dx * 1e3).toFixed(2)}‰° × ${
      (plan.dy * 1e3).toFixed(2)
    }‰° (about ${(plan.dy * 111.2 * 1000).toFixed(0)} m square), ${c.cells} cells in releasing states; ` +
      `${c.blocks} rural 3×3 blocks, ${c.multipolygons} multipolygons, ${c.holes} zones with a hole ` +
      `(${c.filledHoles} filled by another zone), ${c.overlays} overlays (${
        (c.overlays / zones * 100).toFixed(1)
      } %) (${((performance.now() - t0) / 1000).toFixed(1)} s)`,
  );
  const figures: ImportFigures = { states: [], writeS: 0 };
  for (const state of RELEASING_STATES) {
    checkInterrupted();
    const file = `${workdir}/bench_${state}.gml`;
    let t = performance.now();
    let zones: ReturnType<typeof generateState>["zones"] | undefined = generateState(plan, state).zones;
    const count = zones.length;
    const bytes = await writeBrmGml(file, state, zones, BENCH_STICHTAG);
    zones = undefined;
    figures.writeS += (performance.now() - t) / 1000;
    t = performance.now();
    const stats = await importGml(file, state, databaseUrl, workdir);
    await Deno.remove(file);
    const row = { state, zones: count, fileMb: bytes / 1e6, seconds: stats.seconds, peakMb: stats.peakMb };
    figures.states.push(row);
    say(
      `  ${state}: ${count} zones, GML ${row.fileMb.toFixed(0)} MB, imported in ${
        row.seconds.toFixed(1)
      } s, ` +
        `peak memory ${row.peakMb.toFixed(0)} MB`,
    );
  }
  const total = figures.states.reduce((a, r) => a + r.seconds, 0);
  say(
    `zones written as GML in ${figures.writeS.toFixed(1)} s, imported in ${
      total.toFixed(1)
    } s (${RELEASING_STATES.length} files)`,
  );
  return { munis: await benchMunicipalities(db), imported: figures };
}

/** Runs `deno task brw:import` on one file under GNU time; its wall time and peak resident memory. */
async function importGml(
  file: string,
  state: string,
  databaseUrl: string,
  workdir: string,
): Promise<{ seconds: number; peakMb: number }> {
  const timing = `${workdir}/time_${state}.txt`;
  const root = new URL("../", import.meta.url).pathname;
  await run("/usr/bin/time", [
    "-f",
    "%e %M",
    "-o",
    timing,
    Deno.execPath(),
    "run",
    "--allow-net",
    "--allow-env",
    "--allow-read",
    "--allow-write",
    "--allow-sys",
    `${root}tasks/brw_import.ts`,
    file,
    "--state",
    state,
    "--source",
    BENCH_SOURCE,
    "--licence",
    "synthetische Daten, keine Lizenz nötig",
  ], { env: { DATABASE_URL: databaseUrl, NO_COLOR: "1" }, cwd: root });
  const [seconds, kb] = (await Deno.readTextFile(timing)).trim().split("\n").at(-1)!.split(" ").map(Number);
  return { seconds: seconds!, peakMb: kb! / 1024 };
}

/** Sizes of the zone table and the plans of the point lookup and the municipality median query, as lines. */
export async function tableFigures(db: Db, munis: Municipality[]): Promise<string[]> {
  const out: string[] = [];
  const size = await sql<
    {
      total: string;
      heap: string;
      toast: string;
      bbox: string;
      rows: number;
      shared: string;
      version: string;
    }
  >`
    select pg_size_pretty(pg_total_relation_size('brw_zones')) as total,
      pg_size_pretty(pg_relation_size('brw_zones')) as heap,
      pg_size_pretty(coalesce(pg_total_relation_size(nullif(reltoastrelid, 0)), 0)) as toast,
      pg_size_pretty(pg_relation_size('brw_zones_bbox')) as bbox,
      (select count(*)::int from brw_zones) as rows,
      current_setting('shared_buffers') as shared, current_setting('server_version') as version
    from pg_class where oid = 'brw_zones'::regclass`.execute(db.kysely);
  const z = size.rows[0]!;
  out.push(
    `brw_zones: ${z.rows} rows, ${z.total} with indexes and TOAST (heap ${z.heap}, TOAST ${z.toast}, GiST bbox ` +
      `${z.bbox}); shared_buffers ${z.shared}; Postgres ${z.version}`,
  );
  const explain = async (label: string, query: RawBuilder<Record<string, unknown>>) => {
    const rows = (await query.execute(db.kysely)).rows.map((r) => String(Object.values(r)[0]));
    out.push(`${label}:`);
    for (const r of rows) out.push(`    ${r}`);
  };
  const [p] = randomPoints(1, 99);
  // hand copies of zonesWithBoxAt and latestMunicipalityZones (db/brw_zones.ts), with literal values
  await explain(
    `plan of the point lookup (zonesWithBoxAt) at ${p!.lat}, ${p!.lng}`,
    sql`explain (analyze, buffers, costs off) select z.id::text, z.state, z.geometry, d.source, d.licence
      from brw_zones z join brw_datasets d on d.id = z.dataset_id
      where d.status = 'active' and z.bbox @> box(point(${p!.lng}::float8, ${p!.lat}::float8), point(${
      p!.lng
    }::float8, ${p!.lat}::float8))`,
  );
  const top = [...munis].sort((a, b) => b.zones - a.zones)[0];
  if (top) {
    await explain(
      `plan of the municipality median query (latestMunicipalityZones) for ${top.name} (${top.zones} zones)`,
      sql`explain (analyze, buffers, costs off) select * from (
          select z.id::text as id, z.state, z.brw::float8 as brw, z.nutzung, z.entwicklung, d.source,
            z.stichtag = max(z.stichtag) over (partition by z.state, z.nutzung, z.entwicklung) as latest
          from brw_zones z join brw_datasets d on d.id = z.dataset_id
          where d.status = 'active' and z.municipality_norm = city_key(${top.name}) and z.state = ${top.state}) z
        where latest = true order by id::bigint`,
    );
  }
  return out;
}
