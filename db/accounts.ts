/** SQL of people, their roles and office memberships (the better-auth `users` table plus ours). */
import type { Kysely } from "kysely";
import type { Db } from "./connection.ts";
import type { Database, Role } from "./schema.ts";

/** A person's access now: role and, for a provider with an active membership, the office. */
export interface PersonAccess {
  role: Role;
  officeId: string | null;
}

/** The role and active office of `userId`, or undefined when no such person exists. */
export async function personAccess(db: Db, userId: string): Promise<PersonAccess | undefined> {
  const row = await db.kysely.selectFrom("users")
    .leftJoin(
      "office_memberships as m",
      (j) => j.onRef("m.user_id", "=", "users.id").on("m.ended_at", "is", null),
    )
    .select(["users.role", "m.office_id"])
    .where("users.id", "=", userId)
    .executeTakeFirst();
  return row ? { role: row.role, officeId: row.office_id ?? null } : undefined;
}

/** The person with e-mail `email` (compared case-insensitively), or undefined. */
export async function userByEmail(
  db: Db,
  email: string,
): Promise<{ id: string; email: string; name: string; role: Role; emailVerified: boolean } | undefined> {
  return await db.kysely.selectFrom("users").select(["id", "email", "name", "role", "emailVerified"])
    .where((eb) => eb(eb.fn("lower", ["email"]), "=", email.toLowerCase()))
    .executeTakeFirst();
}

/** Sets a person's role. */
export async function setRole(db: Db, userId: string, role: Role): Promise<void> {
  await db.kysely.updateTable("users").set({ role, updatedAt: new Date() }).where("id", "=", userId)
    .execute();
}

/** Makes `userId` a member of `officeId`, ending any other active membership first (one transaction). */
export async function startMembership(db: Db, userId: string, officeId: string): Promise<void> {
  await db.kysely.transaction().execute(async (tx) => {
    await tx.updateTable("office_memberships").set({ ended_at: new Date() })
      .where("user_id", "=", userId).where("ended_at", "is", null).where("office_id", "<>", officeId)
      .execute();
    const active = await tx.selectFrom("office_memberships").select("id")
      .where("user_id", "=", userId).where("ended_at", "is", null).executeTakeFirst();
    if (!active) {
      await tx.insertInto("office_memberships").values({ user_id: userId, office_id: officeId }).execute();
    }
    await tx.updateTable("users").set({ role: "provider", updatedAt: new Date() }).where("id", "=", userId)
      .execute();
  });
}

/** Ends the active membership of `userId`; returns whether one was active. */
export async function endMembership(db: Db, userId: string): Promise<boolean> {
  const res = await db.kysely.updateTable("office_memberships").set({ ended_at: new Date() })
    .where("user_id", "=", userId).where("ended_at", "is", null).executeTakeFirst();
  return Number(res.numUpdatedRows) > 0;
}

/**
 * Ends `userId`'s work for an office in one transaction: the active membership ends, every API key of the person
 * is revoked, and the role goes back to `seeker` (a person without an office is a seeker). Returns whether a
 * membership was active.
 */
export async function leaveOffice(tx: Kysely<Database>, userId: string, now: Date): Promise<boolean> {
  const res = await tx.updateTable("office_memberships").set({ ended_at: now })
    .where("user_id", "=", userId).where("ended_at", "is", null).executeTakeFirst();
  await tx.updateTable("api_keys").set({ revoked_at: now })
    .where("user_id", "=", userId).where("revoked_at", "is", null).execute();
  await tx.updateTable("users").set({ role: "seeker", updatedAt: now }).where("id", "=", userId).execute();
  return Number(res.numUpdatedRows) > 0;
}

/** Inserts a person without a password (operator tasks set one through better-auth; tests use it as is). */
export async function insertUser(
  db: Db,
  p: { email: string; name: string; role: Role; emailVerified?: boolean },
): Promise<string> {
  const id = crypto.randomUUID();
  await db.kysely.insertInto("users").values({
    id,
    email: p.email.toLowerCase(),
    name: p.name,
    role: p.role,
    emailVerified: p.emailVerified ?? true,
  }).execute();
  return id;
}
