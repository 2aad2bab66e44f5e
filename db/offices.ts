/** SQL of offices (the providers' organisations). */
import { isUuid } from "../ids.ts";
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

/** Creates an office named `name` (1–200 characters); returns its id. */
export async function createOffice(db: Db, name: string): Promise<string> {
  const made = await db.kysely.insertInto("offices").values({ name }).returning("id")
    .executeTakeFirstOrThrow();
  return made.id;
}

/** Every office with its number of active members. */
export async function listOffices(db: Db): Promise<Array<{ id: string; name: string; members: number }>> {
  return await db.kysely.selectFrom("offices")
    .select((eb) => [
      "offices.id",
      "offices.name",
      eb.selectFrom("office_memberships as m").select((e) => e.fn.countAll<number>().as("n"))
        .whereRef("m.office_id", "=", "offices.id").where("m.ended_at", "is", null).as("members"),
    ])
    .orderBy("offices.created_at").execute()
    .then((rows) => rows.map((r) => ({ id: r.id, name: r.name, members: Number(r.members ?? 0) })));
}

/** The office with id or exact name `ref`, or undefined. */
export async function findOffice(db: Db, ref: string): Promise<{ id: string; name: string } | undefined> {
  const byId = isUuid(ref);
  return await db.kysely.selectFrom("offices").select(["id", "name"])
    .where(byId ? "id" : "name", "=", ref).orderBy("created_at").limit(1).executeTakeFirst();
}
