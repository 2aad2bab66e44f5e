/** Filling the catalogue with the invented sample listings (`beispiel: true`). */
import type { Db } from "../db/connection.ts";
import { countListings, insertListings, type NewListing } from "../db/listings.ts";
import { ensureOffice } from "../db/offices.ts";
import { prng, sampleListing } from "./sample.ts";

/** Name of the office that owns every sample listing. */
export const SAMPLE_OFFICE = "Musterimmobilien GmbH (Beispieldaten)";
/** Size of the sample catalogue that `task start` and `task db:seed` create. */
export const SAMPLE_COUNT = 360;
const BATCH = 1000;

/** Options of {@linkcode seedSample}. */
export interface SeedOptions {
  /** How many listings to add. */
  count: number;
  /** Seed of the generator (the same seed gives the same catalogue). */
  seed?: number;
  /** Anchor of the publication times (default: now). */
  now?: number;
  /** Called after each batch with the number inserted so far. */
  onProgress?: (done: number, total: number) => void;
}

/** Adds `count` sample listings owned by the sample office, in batches; returns how many were inserted. */
export async function seedSample(db: Db, opts: SeedOptions): Promise<number> {
  const office = await ensureOffice(db, SAMPLE_OFFICE);
  const rand = prng(opts.seed ?? 20260922);
  const now = opts.now ?? Date.now();
  const offset = await countListings(db);
  let done = 0;
  while (done < opts.count) {
    const n = Math.min(BATCH, opts.count - done);
    const rows: NewListing[] = [];
    for (let i = 0; i < n; i++) {
      const s = sampleListing(offset + done + i, rand, now);
      rows.push({ ...s, beispiel: true });
    }
    await insertListings(db, office, rows);
    done += n;
    opts.onProgress?.(done, opts.count);
  }
  return done;
}

/** Seeds the sample catalogue when the database holds no listing at all; returns how many were added. */
export async function seedIfEmpty(db: Db): Promise<number> {
  if (await countListings(db) > 0) return 0;
  return await seedSample(db, { count: SAMPLE_COUNT });
}
