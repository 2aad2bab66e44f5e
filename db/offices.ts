/** SQL of offices (the providers' organisations). */
import type { Db } from "./connection.ts";

/** The id of the office named `name`, created when no office has that name. */
export async function ensureOffice(db: Db, name: string): Promise<string> {
  const found = await db.kysely.selectFrom("offices").select("id").where("name", "=", name)
    .orderBy("created_at").limit(1).executeTakeFirst();
  if (found) return found.id;
  const made = await db.kysely.insertInto("offices").values({ name }).returning("id")
    .executeTakeFirstOrThrow();
  return made.id;
}
