/**
 * The statistics and the number formatting the benchmarks share: percentiles (nearest rank), medians and means,
 * latency summaries, one printed row per load run, CPU percentages and verdicts.
 */

/** The values in ascending order (a copy). */
export function ascending(values: Iterable<number>): number[] {
  return [...values].sort((a, b) => a - b);
}

/** The value below which `q` of the ascending `sorted` values fall (nearest rank); NaN when there are none. */
export function percentile(sorted: ArrayLike<number>, q: number): number {
  if (sorted.length === 0) return NaN;
  const i = Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1));
  return sorted[i]!;
}

/** The median of `xs` (the mean of the middle two for an even count). */
export function median(xs: number[]): number {
  const s = ascending(xs);
  const mid = s.length >> 1;
  return s.length % 2 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
}

/** The arithmetic mean of `xs` (0 when there are none). */
export function mean(xs: number[]): number {
  return xs.reduce((a, b) => a + b, 0) / Math.max(1, xs.length);
}

/** Latency figures of a series of timings, in ms. */
export interface Latency {
  /** Timings. */
  n: number;
  /** Median (nearest rank). */
  p50: number;
  /** 95th percentile. */
  p95: number;
  /** 99th percentile. */
  p99: number;
  /** Mean. */
  mean: number;
  /** Slowest. */
  max: number;
}

/** Summarises a series of timings in ms. */
export function latencyOf(values: number[]): Latency {
  const s = ascending(values);
  return {
    n: s.length,
    p50: percentile(s, 0.5),
    p95: percentile(s, 0.95),
    p99: percentile(s, 0.99),
    mean: mean(s),
    max: s.at(-1) ?? 0,
  };
}

/** "p50 0.812 ms  p95 … ms  p99 … ms  mean … ms  max … ms  (n=…)". */
export function formatLatency(l: Latency): string {
  return `p50 ${l.p50.toFixed(3)} ms  p95 ${l.p95.toFixed(3)} ms  p99 ${l.p99.toFixed(3)} ms  mean ${
    l.mean.toFixed(3)
  } ms  max ${l.max.toFixed(1)} ms  (n=${l.n})`;
}

/** The figures of one load run that every HTTP benchmark prints. */
export interface RunFigures {
  /** Requests completed. */
  requests: number;
  /** Requests per second. */
  rps: number;
  /** Median latency in ms. */
  p50Ms: number;
  /** 99th percentile latency in ms. */
  p99Ms: number;
  /** Failed requests. */
  errors: number;
}

/** "  1234 req/s  p50    4.90 ms  p99   16.58 ms  (2758 requests, 0 errors[; extra])". */
export function formatRun(m: RunFigures, extra = ""): string {
  return `${m.rps.toFixed(0).padStart(7)} req/s  p50 ${m.p50Ms.toFixed(2).padStart(7)} ms  p99 ${
    m.p99Ms.toFixed(2).padStart(7)
  } ms  (${m.requests} requests, ${m.errors} errors${extra ? `; ${extra}` : ""})`;
}

/** A CPU figure in percent of one core, `-` when not measured, padded to `width`. */
export function formatPct(v: number | undefined, width = 0): string {
  return (v === undefined ? "-" : `${v.toFixed(0)}%`).padStart(width);
}

/** "yes" or "NO": the verdict against an expectation. */
export function verdict(ok: boolean): string {
  return ok ? "yes" : "NO";
}
