/** SQL over better-auth's OAuth tables: connections (consents), disconnecting, usage, JWKS, operator lists. */
import { sql } from "kysely";
import type { Db } from "./connection.ts";
import { dropOpenDeliveries } from "./deliveries.ts";
import { endSubscriptions } from "./subscriptions.ts";

/** A person's connection to an app: the consent, the app's name, and when it was last used. */
export interface ConnectionRow {
  clientId: string;
  clientName: string | null;
  scopes: string[];
  connectedAt: Date;
  lastUsedAt: Date | null;
}

/** Every app `userId` has consented to, newest first. */
export async function connectionsOf(db: Db, userId: string): Promise<ConnectionRow[]> {
  const rows = await db.kysely.selectFrom("oauthConsent as k")
    .innerJoin("oauthClient as c", "c.clientId", "k.clientId")
    .leftJoin(
      "oauth_connection_usage as u",
      (j) => j.onRef("u.client_id", "=", "k.clientId").on("u.user_id", "=", userId),
    )
    .select(["k.clientId", "c.name", "k.scopes", "k.createdAt", "u.last_used_at"])
    .where("k.userId", "=", userId).orderBy("k.createdAt", "desc").execute();
  return rows.map((r) => ({
    clientId: r.clientId,
    clientName: r.name,
    scopes: parseScopes(r.scopes),
    connectedAt: new Date(r.createdAt),
    lastUsedAt: r.last_used_at ? new Date(r.last_used_at) : null,
  }));
}

/** The active consent of (`userId`, `clientId`): its scopes and creation time, or undefined. */
export async function consentOf(
  db: Db,
  userId: string,
  clientId: string,
): Promise<{ scopes: string[]; createdAt: Date } | undefined> {
  const row = await db.kysely.selectFrom("oauthConsent").select(["scopes", "createdAt"])
    .where("userId", "=", userId).where("clientId", "=", clientId)
    .orderBy("createdAt", "desc").limit(1).executeTakeFirst();
  return row ? { scopes: parseScopes(row.scopes), createdAt: new Date(row.createdAt) } : undefined;
}

/**
 * Ends a connection in one transaction: ends its event subscriptions, deletes the consent, the refresh and access
 * tokens of (`userId`, `clientId`) and its usage row. Returns whether a consent existed.
 */
export async function deleteConnection(
  db: Db,
  userId: string,
  clientId: string,
  now: Date = new Date(),
): Promise<boolean> {
  return await db.kysely.transaction().execute(async (tx) => {
    // The connection's event subscriptions end with it (spec §6.2 rule 4); a terminated message is owed.
    const ended = await endSubscriptions(tx, { userId, clientId }, {
      reason: "disconnected",
      now,
      terminate: true,
    });
    for (const id of ended) await dropOpenDeliveries(tx, id, now);
    await tx.deleteFrom("oauthAccessToken").where("userId", "=", userId).where("clientId", "=", clientId)
      .execute();
    await tx.deleteFrom("oauthRefreshToken").where("userId", "=", userId).where("clientId", "=", clientId)
      .execute();
    await tx.deleteFrom("oauth_connection_usage").where("user_id", "=", userId).where(
      "client_id",
      "=",
      clientId,
    )
      .execute();
    const res = await tx.deleteFrom("oauthConsent").where("userId", "=", userId).where(
      "clientId",
      "=",
      clientId,
    )
      .executeTakeFirst();
    return Number(res.numDeletedRows) > 0;
  });
}

/** Records that `clientId` called the MCP endpoint for `userId` now (at most one write a minute per pair). */
export async function touchConnection(db: Db, userId: string, clientId: string, now: Date): Promise<void> {
  await sql`insert into oauth_connection_usage (user_id, client_id, last_used_at)
    values (${userId}, ${clientId}, ${now})
    on conflict (user_id, client_id) do update set last_used_at = excluded.last_used_at
    where oauth_connection_usage.last_used_at < excluded.last_used_at - interval '1 minute'`.execute(
    db.kysely,
  );
}

/** The public signing keys better-auth's JWT plugin keeps: key id, algorithm and the public JWK as JSON text. */
export async function publicJwks(
  db: Db,
): Promise<Array<{ id: string; alg: string | null; publicKey: string }>> {
  const rows = await sql<{ id: string; alg: string | null; publicKey: string }>`
    select id, alg, "publicKey" from jwks where "expiresAt" is null or "expiresAt" > now() order by "createdAt"`
    .execute(db.kysely);
  return rows.rows;
}

/** A registered app as the consent page shows it. */
export async function clientById(
  db: Db,
  clientId: string,
): Promise<{ name: string | null; redirectUris: string[]; disabled: boolean; trusted: boolean } | undefined> {
  const row = await sql<
    { name: string | null; redirectUris: unknown; disabled: boolean | null; trusted: boolean }
  >`
    select name, "redirectUris", disabled, coalesce("skipConsent", false) or "userId" is not null as trusted
    from "oauthClient" where "clientId" = ${clientId}`.execute(db.kysely);
  const r = row.rows[0];
  return r
    ? { name: r.name, redirectUris: parseScopes(r.redirectUris), disabled: !!r.disabled, trusted: r.trusted }
    : undefined;
}

/** Every registered app with its number of connections (operator view). */
export async function clientsWithConnections(db: Db): Promise<
  Array<{
    clientId: string;
    name: string | null;
    applicationType: string | null;
    redirectUris: string[];
    createdAt: Date | null;
    connections: Array<{ email: string; scopes: string[]; connectedAt: Date; lastUsedAt: Date | null }>;
  }>
> {
  const clients = await db.kysely.selectFrom("oauthClient")
    .select(["clientId", "name", "applicationType", "redirectUris", "createdAt"]).orderBy("createdAt")
    .execute();
  const consents = await db.kysely.selectFrom("oauthConsent as k")
    .innerJoin("users as p", "p.id", "k.userId")
    .leftJoin(
      "oauth_connection_usage as u",
      (j) => j.onRef("u.client_id", "=", "k.clientId").onRef("u.user_id", "=", "k.userId"),
    )
    .select(["k.clientId", "p.email", "k.scopes", "k.createdAt", "u.last_used_at"]).execute();
  return clients.map((c) => ({
    clientId: c.clientId,
    name: c.name,
    applicationType: c.applicationType,
    redirectUris: parseScopes(c.redirectUris),
    createdAt: c.createdAt ? new Date(c.createdAt) : null,
    connections: consents.filter((k) => k.clientId === c.clientId).map((k) => ({
      email: k.email,
      scopes: parseScopes(k.scopes),
      connectedAt: new Date(k.createdAt),
      lastUsedAt: k.last_used_at ? new Date(k.last_used_at) : null,
    })),
  }));
}

/** jsonb arrays come back parsed from both drivers; older rows may hold a JSON string. */
/** The scopes of a consent row (better-auth stores a JSON array or a space-separated string). */
export function parseScopes(v: unknown): string[] {
  if (Array.isArray(v)) return v.map(String);
  if (typeof v === "string") {
    try {
      const p = JSON.parse(v);
      return Array.isArray(p) ? p.map(String) : v.split(" ").filter(Boolean);
    } catch {
      return v.split(" ").filter(Boolean);
    }
  }
  return [];
}
