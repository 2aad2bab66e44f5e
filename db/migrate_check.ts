/** Reports migrations that exist as files but are not yet applied. */
import type { Db } from "./connection.ts";
import { migrationVersions } from "./migrate.ts";
import { sql } from "kysely";

/** Versions not yet applied to `db` (all of them on an empty database). */
export async function pendingMigrations(db: Db): Promise<string[]> {
  const exists = await sql<{ t: string | null }>`select to_regclass('schema_migrations')::text as t`
    .execute(db.kysely);
  const applied = exists.rows[0]?.t
    ? new Set(
      (await db.kysely.selectFrom("schema_migrations").select("version").execute()).map((r) => r.version),
    )
    : new Set<string>();
  return (await migrationVersions()).filter((v) => !applied.has(v));
}
