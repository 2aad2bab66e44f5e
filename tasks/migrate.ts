/** `deno task db:migrate`: applies every pending migration to the configured database (`--help` for the usage). */
import { migrate } from "../db/migrate.ts";
import { commandLine, taskArgs, usageText } from "./args.ts";
import { openConfiguredDb } from "./open.ts";

const USAGE = usageText({
  synopsis: ["db:migrate"],
  about: [
    "Applies every pending migration to the configured database and prints the ones applied",
    '(or "database is up to date"). The service and the other tasks migrate the embedded database',
    "themselves; run this before starting the service on a new Postgres server.",
  ],
});

/** Runs the task with `args`; returns the exit code. */
export async function main(args: string[]): Promise<number> {
  const parsed = commandLine(args, USAGE, (a) => taskArgs(a, {}));
  if (typeof parsed === "number") return parsed;
  const db = await openConfiguredDb("db:migrate");
  try {
    const applied = await migrate(db);
    console.log(applied.length ? `applied: ${applied.join(", ")}` : "database is up to date");
    return 0;
  } finally {
    await db.close();
  }
}

if (import.meta.main) Deno.exit(await main(Deno.args));
