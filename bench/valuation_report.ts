/** The printed report of `bench:valuation`: in-process latencies, the endpoint runs, the ratios and the import. */
import { otherCpu } from "./cpu.ts";
import { formatLatency, formatPct, mean, verdict } from "./stats.ts";
import type { InProcess } from "./valuation_lookups.ts";
import { cpuPerRequest, type Measurement, type ValuationSettings } from "./valuation_runs.ts";
import type { ImportFigures } from "./valuation_zones.ts";

/** Prints the in-process figures, the endpoint runs, the summary with the ratios, and the import figures. */
export function reportValuation(
  s: ValuationSettings,
  ip: InProcess,
  results: Measurement[],
  info: {
    quietLines: string[];
    sources: Map<string, number>;
    imported: ImportFigures | undefined;
    pgDataDir: string | undefined;
  },
): void {
  const yes = verdict;
  console.log(`\nResults (${s.zones} synthetic zones; in process: postgres.js pool, sequential calls):`);
  console.log(`  zoneValueAt          ${formatLatency(ip.lookup)}`);
  console.log(`  zonesWithBoxAt only  ${formatLatency(ip.sqlOnly)}   (SQL + row decoding, other points)`);
  console.log(
    `  per point: ${ip.candidates.mean.toFixed(2)} bbox candidates (max ${ip.candidates.max}), ` +
      `${ip.containing.toFixed(2)} containing zones; ${
        (ip.withValue * 100).toFixed(1)
      } % of points with a value`,
  );
  console.log(`  municipalityMedian   ${formatLatency(ip.median)}`);
  for (const b of ip.bigMedians) {
    console.log(`    ${b.name}: ${b.zones} zones, ${b.ms.toFixed(2)} ms (apartment)`);
  }
  console.log(
    `  machine CPU during the in-process part: ${ip.machinePct.toFixed(0)}% of one core (${ip.quiet})`,
  );
  console.log(
    `  in-process zoneValueAt p50 < 2 ms: ${ip.lookup.p50.toFixed(3)} ms  ${yes(ip.lookup.p50 < 2)}`,
  );

  console.log(
    `\nEndpoint runs (wrk, ${s.connections} connections, ${s.threads} threads, ${s.warmup} s warm-up + ` +
      `${s.seconds} s each, X-Forwarded-For from ${s.addressPool} addresses, TRUST_PROXY=1):`,
  );
  const pct = formatPct;
  const us = (m: Measurement, g: string) => cpuPerRequest(m, g).toFixed(0).padStart(6);
  let noisy = 0;
  const table = (rows: Measurement[], label: (m: Measurement) => string, head: string) => {
    console.log(
      `  ${head} ${"req/s".padStart(7)} ${"p50 ms".padStart(7)} ${"p99 ms".padStart(7)} ${
        "requests".padStart(8)
      } ${"errors".padStart(6)} | ${"service".padStart(7)} ${"postgres".padStart(8)} ${"wrk".padStart(4)} ${
        "other".padStart(5)
      } ${"machine".padStart(7)} | ${"svc µs".padStart(6)} ${"pg µs".padStart(6)}`,
    );
    for (const m of rows) {
      const c = m.cpu;
      const other = otherCpu(c);
      if (other > 30) noisy++;
      console.log(
        `  ${label(m)} ${m.rps.toFixed(0).padStart(7)} ${m.p50Ms.toFixed(2).padStart(7)} ${
          m.p99Ms.toFixed(2).padStart(7)
        } ${String(m.requests).padStart(8)} ${String(m.errors).padStart(6)} | ${pct(c.target, 7)} ${
          pct(info.pgDataDir ? c.postgres : undefined, 8)
        } ${pct(c.loader, 4)} ${pct(other, 5)} ${pct(c.machine, 7)} | ${us(m, "target")} ${
          us(m, "postgres")
        }`,
      );
    }
  };
  const mix = results.filter((m) => m.kind === "mix");
  table(
    mix,
    (m) => `${m.limiter.padEnd(7)} ${m.endpoint.padEnd(8)} ${String(m.round).padStart(5)}`,
    `${"limiter".padEnd(7)} ${"endpoint".padEnd(8)} ${"round".padStart(5)}`,
  );
  const perKind = results.filter((m) => m.kind !== "mix");
  if (perKind.length) {
    console.log(
      `\n  Baseline by body kind (2 s warm-up + ${s.kindSeconds} s each; with the limiter on only the most ` +
        "frequent kind; for information):",
    );
    table(
      perKind,
      (m) => `${m.limiter.padEnd(7)} ${m.kind.padEnd(29)}`,
      `${"limiter".padEnd(7)} ${"kind".padEnd(29)}`,
    );
    for (const limiter of ["on", "off"]) {
      const k = perKind.find((m) => m.limiter === limiter && m.kind === "kauf lat/lng");
      const floor = mix.filter((m) => m.limiter === limiter && m.endpoint === "single");
      const f = floor.reduce((a, m) => a + m.rps, 0) / Math.max(1, floor.length);
      if (k && f > 0) {
        console.log(
          `  limiter ${limiter}: kauf lat/lng alone / single-listing (mean of the mix runs): ${
            (k.rps / f).toFixed(2)
          }`,
        );
      }
    }
  }
  console.log(
    `  CPU in % of one core (the machine has ${navigator.hardwareConcurrency * 100}%); other = machine - ` +
      "service - postgres - wrk (kernel network work, this process, anything else on the host); svc µs / pg µs: " +
      "CPU of the service / of Postgres per request.",
  );
  if (noisy) console.log(`  WARNING: in ${noisy} runs more than 30% of a core went to "other".`);

  console.log(`\nSummary (mean over ${s.rounds} round${s.rounds > 1 ? "s" : ""}; like with like):`);
  for (const limiter of ["on", "off"] as const) {
    const pick = (e: Measurement["endpoint"]) => mix.filter((r) => r.limiter === limiter && r.endpoint === e);
    const single = pick("single"), base = pick("baseline");
    const row = (label: string, ms: Measurement[]) =>
      console.log(
        `  limiter ${limiter.padEnd(4)} ${label.padEnd(44)} ${
          mean(ms.map((m) => m.rps)).toFixed(0).padStart(7)
        } req/s  ` +
          `p50 ${mean(ms.map((m) => m.p50Ms)).toFixed(2).padStart(6)} ms  p99 ${
            mean(ms.map((m) => m.p99Ms)).toFixed(2).padStart(6)
          } ms`,
      );
    row("GET /api/public/properties/{id} (floor)", single);
    row("POST /api/public/valuation/location-baseline", base);
    const ratio = mean(base.map((m) => m.rps)) / mean(single.map((m) => m.rps));
    console.log(
      `  limiter ${limiter.padEnd(4)} ratio baseline / single-listing: ${ratio.toFixed(2)}${
        limiter === "on"
          ? `   (expected >= 0.7: ${yes(ratio >= 0.7)})`
          : `   (for information; expected >= 0.7: ${yes(ratio >= 0.7)})`
      }`,
    );
  }
  console.log(
    `\nBaseline answers of the mix: ${
      [...info.sources].map(([k, n]) => `${k} ${n}`).join(", ")
    } (of ${s.bodies}); machine before the runs: ${info.quietLines.join("; ")}`,
  );
  if (info.imported) reportImport(info.imported);
  const errors = results.reduce((a, r) => a + r.errors, 0);
  if (errors > 0) console.log(`\nWARNING: ${errors} failed requests in total (see the errors column)`);
}

function reportImport(f: ImportFigures): void {
  const zones = f.states.reduce((a, r) => a + r.zones, 0);
  const seconds = f.states.reduce((a, r) => a + r.seconds, 0);
  const mb = f.states.reduce((a, r) => a + r.fileMb, 0);
  const peak = Math.max(...f.states.map((r) => r.peakMb));
  const biggest = [...f.states].sort((a, b) => b.fileMb - a.fileMb)[0]!;
  console.log(
    `\nZone import from GML (deno task brw:import, one BRM 2.1 file per state): ${zones} zones, ${
      mb.toFixed(0)
    } MB ` +
      `in ${f.states.length} files, ${seconds.toFixed(1)} s (${(zones / seconds).toFixed(0)} zones/s, ` +
      `${(mb / seconds).toFixed(1)} MB/s); peak resident memory of an import process ${peak.toFixed(0)} MB ` +
      `(largest file ${biggest.state}, ${biggest.fileMb.toFixed(0)} MB: ${biggest.peakMb.toFixed(0)} MB).`,
  );
  console.log("  state   zones   GML MB   seconds   peak MB");
  for (const r of f.states) {
    console.log(
      `  ${r.state.padEnd(5)} ${String(r.zones).padStart(7)} ${r.fileMb.toFixed(0).padStart(8)} ${
        r.seconds.toFixed(1).padStart(9)
      } ${r.peakMb.toFixed(0).padStart(9)}`,
    );
  }
}
