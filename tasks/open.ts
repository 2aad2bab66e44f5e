/** Opens the configured database for an operator task (the same database `deno task start` uses). */
import { configFromEnv } from "../config.ts";
import { type Db, openDb } from "../db/connection.ts";

/** The database named by the environment: `DATABASE_URL`, else the embedded PGlite under `DATA_DIR`. */
export async function openConfiguredDb(): Promise<Db> {
  const config = configFromEnv();
  if (!config.databaseUrl && config.dataDir !== ":memory:") {
    await Deno.mkdir(config.dataDir, { recursive: true });
  }
  return await openDb({
    databaseUrl: config.databaseUrl,
    dataDir: config.dataDir === ":memory:" ? undefined : `${config.dataDir}/pglite`,
  });
}
