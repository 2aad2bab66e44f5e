/** Opens the configured database for an operator task (the same database `deno task start` uses). */
import { configFromEnv } from "../config.ts";
import { type Db, openDb } from "../db/connection.ts";

/** What an operator task needs from its surroundings; tests pass their own database and output. */
export interface TaskDeps {
  /** Opens the database (default: the configured one). It is closed at the end. */
  open?: () => Promise<Db>;
  /** Receives each line of the report (default: stdout). */
  out?: (line: string) => void;
  /** Receives error messages (default: stderr). */
  err?: (line: string) => void;
  /** Whether to draw progress bars on stderr (default true). */
  progress?: boolean;
}

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
