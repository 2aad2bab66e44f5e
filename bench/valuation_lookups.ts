/**
 * The in-process part of `bench:valuation`: the zone lookup (`zoneValueAt`), its SQL and row decoding alone
 * (`zonesWithBoxAt`), and municipality medians, each timed call by call through postgres.js.
 */
import type { Db } from "../db/connection.ts";
import { zonesWithBoxAt } from "../db/brw_zones.ts";
import { containsPoint } from "../valuation/geometry.ts";
import { municipalityMedian, zoneValueAt } from "../valuation/zones.ts";
import { loadMeter } from "./cpu.ts";
import { say } from "./harness.ts";
import { formatLatency, type Latency, latencyOf } from "./stats.ts";
import { quietCheck, type ValuationSettings } from "./valuation_runs.ts";
import { type Municipality, randomPoints, rng } from "./zone_gen.ts";

const TYPES = ["apartment", "house", "land", "commercial", undefined] as const;

/** Figures of the in-process part. */
export interface InProcess {
  lookup: Latency;
  sqlOnly: Latency;
  median: Latency;
  bigMedians: Array<{ name: string; zones: number; ms: number }>;
  candidates: { mean: number; max: number };
  containing: number;
  withValue: number;
  machinePct: number;
  quiet: string;
}

/** Times `zoneValueAt`, the same SQL alone and `municipalityMedian`, one call at a time, after a quiet check. */
export async function inProcess(
  db: Db,
  s: ValuationSettings,
  munis: Municipality[],
  pgDataDir: string | undefined,
): Promise<InProcess> {
  const quietLine = await quietCheck(s, "the in-process lookups", pgDataDir);
  const pts = randomPoints(s.lookupWarmup + 2 * s.points, 4711);
  const cpu = loadMeter(pgDataDir, () => [Deno.pid], () => []);
  await cpu.start();
  say(`in process: ${s.lookupWarmup} warm-up lookups, then ${s.points} timed zoneValueAt (sequential)`);
  for (let i = 0; i < s.lookupWarmup; i++) {
    const p = pts[i]!;
    await zoneValueAt(db, p.lat, p.lng, TYPES[i % TYPES.length]);
  }
  const total: number[] = [];
  let withValue = 0;
  for (let i = 0; i < s.points; i++) {
    const p = pts[s.lookupWarmup + i]!;
    const t0 = performance.now();
    const v = await zoneValueAt(db, p.lat, p.lng, TYPES[i % TYPES.length]);
    total.push(performance.now() - t0);
    if (v) withValue++;
  }
  const lookup = latencyOf(total);
  say(`  zoneValueAt    ${formatLatency(lookup)}`);
  // the same SQL and row decoding alone, on other points (so that the pages are not fresh from the pass above)
  const sqlOnly: number[] = [];
  let cand = 0, candMax = 0, hits = 0;
  for (let i = 0; i < s.points; i++) {
    const p = pts[s.lookupWarmup + s.points + i]!;
    const t0 = performance.now();
    const rows = await zonesWithBoxAt(db, p.lat, p.lng);
    sqlOnly.push(performance.now() - t0);
    cand += rows.length;
    candMax = Math.max(candMax, rows.length);
    hits += rows.filter((z) => containsPoint(z.geometry, p.lng, p.lat)).length;
  }
  const sqlLat = latencyOf(sqlOnly);
  say(`  zonesWithBoxAt ${formatLatency(sqlLat)}`);

  // municipality medians: the three city-states and random municipalities, every property type
  const rand = rng(17);
  const big = [...munis].sort((a, b) => b.zones - a.zones);
  const chosen = new Map<string, Municipality>();
  for (const m of big.slice(0, 3)) chosen.set(`${m.state}/${m.name}`, m);
  while (chosen.size < Math.min(100, munis.length)) {
    const m = munis[Math.floor(rand() * munis.length)]!;
    chosen.set(`${m.state}/${m.name}`, m);
  }
  for (const m of chosen.values()) await municipalityMedian(db, m.name, m.state, "house");
  const medians: number[] = [];
  const bigMedians: InProcess["bigMedians"] = [];
  for (const type of TYPES) {
    for (const m of chosen.values()) {
      const t0 = performance.now();
      const v = await municipalityMedian(db, m.name, m.state, type);
      const ms = performance.now() - t0;
      medians.push(ms);
      if (type === "apartment" && big.indexOf(m) < 3) bigMedians.push({ name: m.name, zones: m.zones, ms });
      if (!v && type !== "land" && type !== "commercial") {
        // with ~70 % residential/mixed zones every municipality with a few zones has a match
        if (m.zones > 20) {
          say(`  note: no median for ${m.name} (${m.state}, ${m.zones} zones, ${type ?? "none"})`);
        }
      }
    }
  }
  const median = latencyOf(medians);
  say(
    `  municipalityMedian (${chosen.size} municipalities × ${TYPES.length} types) ${formatLatency(median)}`,
  );
  const cpuUse = await cpu.stop();
  return {
    lookup,
    sqlOnly: sqlLat,
    median,
    bigMedians,
    candidates: { mean: cand / s.points, max: candMax },
    containing: hits / s.points,
    withValue: withValue / s.points,
    machinePct: cpuUse.machine ?? 0,
    quiet: quietLine,
  };
}
