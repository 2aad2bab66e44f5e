/** SQL of API keys (table `api_keys`); the key format and its rules live in `auth/api_keys.ts`. */
import { sql } from "kysely";
import type { Db } from "./connection.ts";

/** One API key as lists show it (never the key or its hash). */
export interface ApiKeyListItem {
  id: string;
  name: string;
  displayPrefix: string;
  created_at: Date;
  last_used_at: Date | null;
  revoked_at: Date | null;
}

/** The stored row of a key found by its hash. */
export interface ApiKeyRow {
  id: string;
  userId: string;
  keyHash: string;
  lastUsedAt: Date | null;
  revokedAt: Date | null;
}

/** Inserts a key row for `userId`; returns its id. */
export async function insertApiKey(
  db: Db,
  k: { userId: string; name: string; keyHash: string; displayPrefix: string },
): Promise<string> {
  const row = await db.kysely.insertInto("api_keys").values({
    user_id: k.userId,
    name: k.name,
    key_hash: k.keyHash,
    display_prefix: k.displayPrefix,
  }).returning("id").executeTakeFirstOrThrow();
  return row.id;
}

/** Every key of `userId` (revoked ones included), newest first. */
export async function selectApiKeys(db: Db, userId: string): Promise<ApiKeyListItem[]> {
  const rows = await db.kysely.selectFrom("api_keys")
    .select(["id", "name", "display_prefix", "created_at", "last_used_at", "revoked_at"])
    .where("user_id", "=", userId)
    .orderBy("created_at", "desc").orderBy("id")
    .execute();
  return rows.map((r) => ({
    id: r.id,
    name: r.name,
    displayPrefix: r.display_prefix,
    created_at: r.created_at,
    last_used_at: r.last_used_at,
    revoked_at: r.revoked_at,
  }));
}

/** Marks key `keyId` of `userId` revoked; true when a not yet revoked key of that person was revoked. */
export async function markApiKeyRevoked(db: Db, userId: string, keyId: string): Promise<boolean> {
  const res = await db.kysely.updateTable("api_keys").set({ revoked_at: sql<Date>`now()` })
    .where("id", "=", keyId).where("user_id", "=", userId).where("revoked_at", "is", null)
    .executeTakeFirst();
  return Number(res.numUpdatedRows) > 0;
}

/** A key row with its owner's role and active office now (one query: this runs on every MCP call). */
export interface ApiKeyWithAccess extends ApiKeyRow {
  role: "seeker" | "provider";
  officeId: string | null;
}

/**
 * The keys whose hashes are among `keyHashes` (lower-case hex), each with its owner's role and active office
 * membership, by hash; one query with one text parameter (the same statement text for any number of hashes).
 */
export async function findApiKeysByHashes(
  db: Db,
  keyHashes: readonly string[],
): Promise<Map<string, ApiKeyWithAccess>> {
  const found = new Map<string, ApiKeyWithAccess>();
  if (keyHashes.length === 0) return found;
  const { rows } = await sql<KeyAccessRow>`
    select k.id, k.user_id, k.key_hash, k.last_used_at, k.revoked_at, u.role, m.office_id
    from api_keys k
    join users u on u.id = k.user_id
    left join office_memberships m on m.user_id = k.user_id and m.ended_at is null
    where k.key_hash = any(string_to_array(${keyHashes.join(",")}, ','))`.execute(db.kysely);
  for (const r of rows) {
    if (found.has(r.key_hash)) continue;
    found.set(r.key_hash, {
      id: r.id,
      userId: r.user_id,
      keyHash: r.key_hash,
      lastUsedAt: r.last_used_at === null ? null : new Date(r.last_used_at),
      revokedAt: r.revoked_at === null ? null : new Date(r.revoked_at),
      role: r.role,
      officeId: r.office_id ?? null,
    });
  }
  return found;
}

interface KeyAccessRow {
  id: string;
  user_id: string;
  key_hash: string;
  last_used_at: Date | string | null;
  revoked_at: Date | string | null;
  role: "seeker" | "provider";
  office_id: string | null;
}

/**
 * Sets `last_used_at` of `keyId` to now unless it was set less than `minAgeSeconds` ago (checked in SQL, so
 * several processes write at most once per interval); true when a row was written.
 */
export async function touchApiKey(db: Db, keyId: string, minAgeSeconds: number): Promise<boolean> {
  const res = await db.kysely.updateTable("api_keys").set({ last_used_at: sql<Date>`now()` })
    .where("id", "=", keyId)
    .where((eb) =>
      eb.or([
        eb("last_used_at", "is", null),
        eb("last_used_at", "<", sql<Date>`now() - cast(${minAgeSeconds} as int) * interval '1 second'`),
      ])
    )
    .executeTakeFirst();
  return Number(res.numUpdatedRows) > 0;
}
