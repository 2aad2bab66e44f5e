/**
 * Versioned SQL migrations: every `db/migrations/NNNN_name.sql` is applied once, in name order, each in its own
 * transaction, under an advisory lock so several processes may migrate at the same time.
 */
import type { Db } from "./connection.ts";

const LOCK = 72_451_301;
const DIR = new URL("./migrations/", import.meta.url);

/** The migration files, sorted: `[version, sql]` pairs where version is the file name without `.sql`. */
export async function migrationFiles(): Promise<Array<[string, string]>> {
  const versions = await migrationVersions();
  return await Promise.all(
    versions.map(async (v) => [v, await Deno.readTextFile(new URL(`${v}.sql`, DIR))] as [string, string]),
  );
}

/** The versions of the migration files (their names without `.sql`), sorted; reads no file. */
export async function migrationVersions(): Promise<string[]> {
  const names: string[] = [];
  for await (const e of Deno.readDir(DIR)) if (e.isFile && e.name.endsWith(".sql")) names.push(e.name);
  return names.sort().map((n) => n.slice(0, -4));
}

/** Applies every pending migration; returns the versions applied by this call. */
export async function migrate(db: Db): Promise<string[]> {
  await db.execScript(
    `select pg_advisory_xact_lock(${LOCK});
     create table if not exists schema_migrations (
       version text primary key, applied_at timestamptz not null default now());`,
  );
  const done = new Set(
    (await db.kysely.selectFrom("schema_migrations").select("version").execute()).map((r) => r.version),
  );
  const applied: string[] = [];
  for (const [version, script] of await migrationFiles()) {
    if (done.has(version)) continue;
    try {
      await db.execScript(
        `select pg_advisory_xact_lock(${LOCK});
         insert into schema_migrations (version) values ('${version.replaceAll("'", "''")}');
         ${script}`,
      );
      applied.push(version);
    } catch (err) {
      if (!isAlreadyApplied(err)) throw err;
    }
  }
  return applied;
}

function isAlreadyApplied(err: unknown): boolean {
  const e = err as { code?: string; constraint_name?: string; constraint?: string; message?: string };
  return e.code === "23505" &&
    (e.constraint_name ?? e.constraint ?? e.message ?? "").includes("schema_migrations_pkey");
}
