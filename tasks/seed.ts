/**
 * `deno task db:seed [--count N] [--seed S]`: adds invented sample listings (`beispiel: true`) to the configured
 * database. Without `--count` it adds the sample catalogue of `deno task start`.
 */
import { parseArgs } from "node:util";
import { SAMPLE_COUNT, seedSample } from "../catalogue/seed.ts";
import { migrate } from "../db/migrate.ts";
import { openConfiguredDb } from "./open.ts";
import { progressBar } from "./progress.ts";

const USAGE = "usage: deno task db:seed [--count N] [--seed S]";
const values = (() => {
  try {
    return parseArgs({ args: Deno.args, options: { count: { type: "string" }, seed: { type: "string" } } })
      .values;
  } catch (e) {
    console.error(`${(e as Error).message}\n${USAGE}`);
    Deno.exit(2);
  }
})();
const count = values.count === undefined ? SAMPLE_COUNT : Number(values.count);
const seed = values.seed === undefined ? undefined : Number(values.seed);
if (!Number.isInteger(count) || count < 1 || count > 10_000_000) {
  console.error("--count must be a whole number from 1 to 10000000");
  Deno.exit(2);
}
if (seed !== undefined && !Number.isInteger(seed)) {
  console.error("--seed must be a whole number");
  Deno.exit(2);
}
const db = await openConfiguredDb("db:seed");
try {
  await migrate(db);
  const bar = progressBar("seeding", count);
  const n = await seedSample(db, { count, ...(seed === undefined ? {} : { seed }), onProgress: bar.update });
  bar.done();
  console.log(`added ${n} sample listings (beispiel: true)`);
} finally {
  await db.close();
}
