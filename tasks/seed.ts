/**
 * `deno task db:seed [--count N] [--seed S]`: adds invented sample listings (`beispiel: true`) to the configured
 * database. Without `--count` it adds the sample catalogue of `deno task start` (`--help` for the usage).
 */
import { SAMPLE_COUNT, seedSample } from "../catalogue/seed.ts";
import { migrate } from "../db/migrate.ts";
import { commandLine, taskArgs, UsageError, usageText } from "./args.ts";
import { openConfiguredDb } from "./open.ts";
import { progressBar } from "./progress.ts";

const USAGE = usageText({
  synopsis: ["db:seed [--count N] [--seed S]"],
  about: [
    "Adds invented sample listings (marked beispiel: true) to the configured database, with a progress",
    "bar on stderr. Existing listings stay; each run adds more.",
  ],
  options: [
    [
      "--count N",
      `how many listings, 1 to 10000000 (default ${SAMPLE_COUNT}, the sample catalogue of start)`,
    ],
    ["--seed S", "seed of the generator, a whole number (the same seed gives the same listings)"],
  ],
});

/** Parses `args`; throws {@linkcode UsageError} for anything wrong. */
function parse(args: string[]): { count: number; seed: number | undefined } {
  const { values } = taskArgs<{ count?: string; seed?: string }>(args, {
    count: { type: "string" },
    seed: { type: "string" },
  });
  const count = values.count === undefined ? SAMPLE_COUNT : Number(values.count);
  const seed = values.seed === undefined ? undefined : Number(values.seed);
  if (!Number.isInteger(count) || count < 1 || count > 10_000_000) {
    throw new UsageError("--count must be a whole number from 1 to 10000000");
  }
  if (seed !== undefined && !Number.isInteger(seed)) throw new UsageError("--seed must be a whole number");
  return { count, seed };
}

/** Runs the task with `args`; returns the exit code. */
export async function main(args: string[]): Promise<number> {
  const a = commandLine(args, USAGE, parse);
  if (typeof a === "number") return a;
  const db = await openConfiguredDb("db:seed");
  try {
    await migrate(db);
    const bar = progressBar("seeding", a.count);
    const n = await seedSample(db, {
      count: a.count,
      ...(a.seed === undefined ? {} : { seed: a.seed }),
      onProgress: bar.update,
    });
    bar.done();
    console.log(`added ${n} sample listings (beispiel: true)`);
    return 0;
  } finally {
    await db.close();
  }
}

if (import.meta.main) Deno.exit(await main(Deno.args));
