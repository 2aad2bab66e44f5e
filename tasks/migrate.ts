/** `deno task db:migrate`: applies every pending migration to the configured database. */
import { migrate } from "../db/migrate.ts";
import { openConfiguredDb } from "./open.ts";

const db = await openConfiguredDb("db:migrate");
try {
  const applied = await migrate(db);
  console.log(applied.length ? `applied: ${applied.join(", ")}` : "database is up to date");
} finally {
  await db.close();
}
