/**
 * Photos (issue 31), two figures with their floors measured in the same run (docs/benchmarks.md §10):
 *
 * 1. Deriving: `derivePhoto` on a 12-megapixel JPEG (4000 × 3000, EXIF orientation 6, made here with sharp):
 *    ms per image and the process's peak RSS, against sharp decoding the same JPEG to raw pixels (the floor: no
 *    pipeline can be faster than one decode), and the share of the one JPEG variant (WebP only vs all).
 * 2. Serving, through the app in process (no network): GET of a warm 320 px WebP thumbnail (200 with its bytes)
 *    and of the same with `If-None-Match` (304), against GET of the listing's JSON (`/api/public/properties/{id}`),
 *    `BENCH_N` requests each in turn; p50 and p99 and the ratios to the listing JSON.
 *
 *   deno task bench:photos                                   PGlite
 *   DATABASE_URL=postgres://… deno task bench:photos         real Postgres (a fresh schema, dropped afterwards)
 *   BENCH_N=2000 BENCH_DERIVE=7                              requests per endpoint, images derived (defaults)
 */
import sharp from "sharp";
import { prng, sampleListing } from "../catalogue/sample.ts";
import { insertListings } from "../db/listings.ts";
import { ensureOffice } from "../db/offices.ts";
import { derivePhoto } from "../photos/image.ts";
import { addPhotos, preparePhotos } from "../photos/photos.ts";
import { act } from "../deps.ts";
import { openTestDb, testApp } from "../tests/helpers.ts";
import { atCleanup, intSetting, loadAverage, runBenchmark } from "./harness.ts";
import { ascending, percentile } from "./stats.ts";

const N = intSetting("BENCH_N", 2000, 1);
const DERIVE = intSetting("BENCH_DERIVE", 7, 1);

/** A photo-like 4000 × 3000 JPEG (sky gradient, patterned ground, noise) with EXIF orientation 6. */
async function photo12mp(): Promise<Uint8Array> {
  const w = 4000, h = 3000;
  const raw = new Uint8Array(w * h * 3);
  let s = 42;
  for (let y = 0; y < h; y++) {
    for (let x = 0; x < w; x++) {
      s = (s * 1103515245 + 12345) & 0x7fffffff;
      const n = (s % 24) - 12, i = (y * w + x) * 3, sky = y < h * 0.45;
      raw[i] = Math.max(0, Math.min(255, (sky ? 110 + 80 * y / h : 90 + 60 * Math.sin(x / 37)) + n));
      raw[i + 1] = Math.max(
        0,
        Math.min(255, (sky ? 150 + 60 * y / h : 110 + 50 * Math.sin(x / 91 + y / 71)) + n),
      );
      raw[i + 2] = Math.max(
        0,
        Math.min(255, (sky ? 220 - 40 * y / h : 60 + 40 * Math.cos(x / 23 - y / 29)) + n),
      );
    }
  }
  const img = sharp(raw, { raw: { width: w, height: h, channels: 3 } }).jpeg({ quality: 90 });
  return new Uint8Array(await img.withMetadata({ orientation: 6 }).toBuffer());
}

/** Samples the process's RSS every 5 ms while `fn` runs (the work runs on libvips' threads); answers the most. */
async function peakRss<T>(fn: () => Promise<T>): Promise<{ value: T; mb: number }> {
  let most = Deno.memoryUsage().rss;
  const timer = setInterval(() => most = Math.max(most, Deno.memoryUsage().rss), 5);
  try {
    const value = await fn();
    return { value, mb: Math.max(most, Deno.memoryUsage().rss) / 1e6 };
  } finally {
    clearInterval(timer);
  }
}

async function timed(n: number, fn: () => Promise<unknown>): Promise<number[]> {
  await fn();
  const ms: number[] = [];
  for (let i = 0; i < n; i++) {
    const t = performance.now();
    await fn();
    ms.push(performance.now() - t);
  }
  return ascending(ms);
}

const fmt = (ms: number) => ms < 10 ? ms.toFixed(3) : ms.toFixed(0);
const row = (name: string, ms: number[]) =>
  console.log(
    `${name.padEnd(44)} p50 ${fmt(percentile(ms, 0.5)).padStart(8)} ms   ` +
      `min ${fmt(ms[0]!).padStart(8)}   p99/max ${fmt(percentile(ms, 0.99)).padStart(8)} ms`,
  );

/** Part 1: `derivePhoto` against sharp decoding the same JPEG, with the peak memory of each. */
async function deriving(jpeg: Uint8Array): Promise<void> {
  console.log(
    `\n1. deriving a 12 MP JPEG (${
      (jpeg.length / 1e6).toFixed(1)
    } MB), ${DERIVE} runs each after one warm-up`,
  );
  const rssBefore = Deno.memoryUsage().rss / 1e6;
  const { value: floor, mb: floorRss } = await peakRss(() =>
    timed(DERIVE, () => sharp(jpeg).raw().toBuffer())
  );
  const { value: derive, mb: deriveRss } = await peakRss(() => timed(DERIVE, () => derivePhoto(jpeg)));
  row("floor: sharp decodes it to raw pixels", floor);
  row("derivePhoto: 4 WebP + 1 JPEG", derive);
  const result = await derivePhoto(jpeg);
  if (!result.ok) throw new Error(result.refusal);
  for (const v of result.photo.variants) {
    console.log(`  ${v.mime} ${v.width}×${v.height}: ${v.bytes.length} bytes`);
  }
  console.log(
    `ratio derivePhoto / decode floor (p50): ${
      (percentile(derive, 0.5) / percentile(floor, 0.5)).toFixed(2)
    }`,
  );
  console.log(
    `process RSS: ${rssBefore.toFixed(0)} MB before, peak ${floorRss.toFixed(0)} MB while decoding, ` +
      `${deriveRss.toFixed(0)} MB while deriving (sampled every 5 ms)`,
  );
}

/** Part 2: a warm thumbnail (200 and 304) against the listing's JSON, through the app in process. */
async function serving(jpeg: Uint8Array): Promise<void> {
  const tdb = await openTestDb();
  atCleanup(() => tdb.close());
  const a = await testApp(tdb.db);
  atCleanup(() => a.close());
  const office = await ensureOffice(tdb.db, "Bench-Fotos");
  const [id] = await insertListings(tdb.db, office, [
    {
      ...sampleListing(1, prng(31), a.now()),
      beispiel: false,
      status: "published",
      published_at: new Date(),
    },
  ]);
  const ready = await preparePhotos([{ bytes: jpeg }]);
  const who = { actor: { kind: "service", officeId: office }, origin: null } as const;
  const added = await act(a.deps, who, (x) => addPhotos(x, id!, ready));
  const thumb = added.photos[0]!.varianten[0]!;
  const etag = `"${/([0-9a-f]{64})/.exec(thumb.url)![1]}"`;
  console.log(
    `\n2. serving (${tdb.db.kind}), ${N} requests each in turn, in process; thumbnail ${thumb.bytes} bytes`,
  );
  const get = async (path: string, headers: Record<string, string> = {}, status = 200) => {
    const res = await a.app.request(path, { headers });
    if (res.status !== status) throw new Error(`${path}: ${res.status}`);
    await res.arrayBuffer();
  };
  const json = await timed(N, () => get(`/api/public/properties/${id}`));
  const full = await timed(N, () => get(thumb.url));
  const cond = await timed(N, () => get(thumb.url, { "if-none-match": etag }, 304));
  row("floor: GET /api/public/properties/{id}", json);
  row("GET thumbnail (200, warm)", full);
  row("GET thumbnail, If-None-Match (304)", cond);
  const p50 = percentile(json, 0.5);
  console.log(
    `ratio to the listing JSON (p50): thumbnail ${(percentile(full, 0.5) / p50).toFixed(2)}, ` +
      `304 ${(percentile(cond, 0.5) / p50).toFixed(2)} (expected ≤ 1.5 and ≤ 1.0)`,
  );
  await pages(a, office, ready, who);
}

/** Part 3: the search page of 24 listings with title images against 24 without (the floor). */
async function pages(
  a: Awaited<ReturnType<typeof testApp>>,
  office: string,
  ready: Awaited<ReturnType<typeof preparePhotos>>,
  who: Parameters<typeof act>[1],
): Promise<void> {
  const rows = (city: string) =>
    Array.from({ length: 24 }, (_, i) => ({
      ...sampleListing(i, prng(40 + i), a.now()),
      city,
      reference: null,
      beispiel: false,
      status: "published" as const,
      published_at: new Date(),
    }));
  const withPhotos = await insertListings(a.deps.db, office, rows("Bench-Mit"));
  await insertListings(a.deps.db, office, rows("Bench-Ohne"));
  for (const id of withPhotos) await act(a.deps, who, (x) => addPhotos(x, id, ready));
  const size = new Map<string, number>();
  const html = async (path: string) => {
    const res = await a.app.request(path, { headers: { accept: "text/html" } });
    if (res.status !== 200) throw new Error(`${path}: ${res.status}`);
    size.set(path, (await res.arrayBuffer()).byteLength);
  };
  const n = Math.max(50, Math.floor(N / 4));
  console.log(`\n3. pages, ${n} requests each in turn, in process`);
  const floor = await timed(n, () => html("/objekte?city=Bench-Ohne"));
  const cards = await timed(n, () => html("/objekte?city=Bench-Mit"));
  row("floor: /objekte, 24 cards without photos", floor);
  row("/objekte, 24 cards with title images", cards);
  console.log(
    `ratio (p50): ${(percentile(cards, 0.5) / percentile(floor, 0.5)).toFixed(2)}; page bytes ` +
      `${size.get("/objekte?city=Bench-Ohne")} without, ${size.get("/objekte?city=Bench-Mit")} with photos`,
  );
}

async function main(): Promise<void> {
  console.log(`load average ${loadAverage()}, ${navigator.hardwareConcurrency} cores`);
  const jpeg = await photo12mp();
  await deriving(jpeg);
  await serving(jpeg);
}

if (import.meta.main) await runBenchmark(main);
