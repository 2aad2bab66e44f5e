/**
 * SQL over better-auth's OAuth tables and ours: connections (consents), the per-request check, revocation
 * (grant cutoffs, revoked access tokens, exchanged codes; migration 0018), disconnecting, usage, JWKS, operator
 * lists.
 */
import { type Kysely, sql } from "kysely";
import type { Database, Role } from "./schema.ts";
import type { Db } from "./connection.ts";
import { parseScopes } from "./scopes.ts";
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
export async function connectionsOf(q: Kysely<Database>, userId: string): Promise<ConnectionRow[]> {
  const rows = await q.selectFrom("oauthConsent as k")
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

/** What the MCP check needs to know about a connection, read in one statement. */
export interface ConnectionCheck {
  role: Role;
  /** The office of an active membership, or null. */
  officeId: string | null;
  /** The scopes of the newest consent of (person, app), or null without consent. */
  consentScopes: string[] | null;
  consentAt: Date | null;
  /** Whether the connection's grants ended after the token was issued (migration 0018). */
  cutOff: boolean;
  /** Whether the token's `jti` was revoked (RFC 7009). */
  revoked: boolean;
  lastUsedAt: Date | null;
}

/**
 * One statement for the MCP check of an access token: the person's role and active office, the consent of
 * (`userId`, `clientId`), whether a grant cutoff is later than `issuedUs` (µs since the epoch, database clock),
 * whether `jti` is revoked, and when the connection was last used. Undefined when the person does not exist.
 */
export async function connectionCheck(
  db: Db,
  p: { userId: string; clientId: string; jti: string; issuedUs: number },
): Promise<ConnectionCheck | undefined> {
  const { rows } = await sql<{
    role: Role;
    office_id: string | null;
    scopes: unknown;
    consent_at: Date | string | null;
    last_used_at: Date | string | null;
    cut_off: boolean;
    revoked: boolean;
  }>`
    select u.role, m.office_id, k.scopes, k."createdAt" as consent_at, x.last_used_at,
      exists (select 1 from oauth_grant_cutoffs g where g.user_id = ${p.userId} and g.client_id = ${p.clientId}
        and extract(epoch from g.not_before) * 1000000 > ${String(p.issuedUs)}::numeric) as cut_off,
      exists (select 1 from oauth_revoked_access_tokens r where r.jti = ${p.jti}) as revoked
    from users u
    left join office_memberships m on m.user_id = ${p.userId} and m.ended_at is null
    left join lateral (select scopes, "createdAt" from "oauthConsent" c
      where c."userId" = ${p.userId} and c."clientId" = ${p.clientId} order by c."createdAt" desc limit 1) k
      on true
    left join oauth_connection_usage x on x.user_id = ${p.userId} and x.client_id = ${p.clientId}
    where u.id = ${p.userId}`.execute(db.kysely);
  const r = rows[0];
  if (!r) return undefined;
  return {
    role: r.role,
    officeId: r.office_id ?? null,
    consentScopes: r.consent_at === null ? null : parseScopes(r.scopes),
    consentAt: r.consent_at === null ? null : new Date(r.consent_at),
    cutOff: r.cut_off,
    revoked: r.revoked,
    lastUsedAt: r.last_used_at === null ? null : new Date(r.last_used_at),
  };
}

/** The database clock in whole microseconds since the epoch (the issue time access tokens carry). */
export async function databaseMicros(db: Db): Promise<number> {
  const { rows } = await sql<{ us: string }>`
    select floor(extract(epoch from clock_timestamp()) * 1000000)::text as us`.execute(db.kysely);
  return Number(rows[0]!.us);
}

/** Revokes the access token `jti` until `expiresAt` (RFC 7009); forgets revocations of expired tokens. */
export async function revokeAccessTokenId(db: Db, jti: string, expiresAt: Date): Promise<void> {
  await sql`with expired as (delete from oauth_revoked_access_tokens where expires_at < now())
    insert into oauth_revoked_access_tokens (jti, expires_at) values (${jti}, ${expiresAt})
    on conflict (jti) do nothing`.execute(db.kysely);
}

/**
 * Records that the code with SHA-256 `codeHash` was exchanged for (`userId`, `clientId`), until `expiresAt` (when
 * the access token it gave expires); forgets expired records.
 */
export async function recordCodeExchange(
  db: Db,
  p: { codeHash: string; userId: string; clientId: string; expiresAt: Date },
): Promise<void> {
  await sql`with expired as (delete from oauth_code_exchanges where expires_at < now())
    insert into oauth_code_exchanges (code_hash, user_id, client_id, expires_at)
    values (${p.codeHash}, ${p.userId}, ${p.clientId}, ${p.expiresAt})
    on conflict (code_hash) do nothing`.execute(db.kysely);
}

/**
 * A replayed code: ends every grant of the connection the code with SHA-256 `codeHash` was exchanged for (its
 * access tokens are refused from now on). Returns whether the code was known.
 */
export async function endGrantsOfCode(db: Db, codeHash: string): Promise<boolean> {
  const { rows } = await sql<{ user_id: string }>`
    insert into oauth_grant_cutoffs (user_id, client_id, not_before)
    select user_id, client_id, clock_timestamp() from oauth_code_exchanges
    where code_hash = ${codeHash} and expires_at > now()
    on conflict (user_id, client_id) do update
      set not_before = greatest(oauth_grant_cutoffs.not_before, excluded.not_before)
    returning user_id`.execute(db.kysely);
  return rows.length > 0;
}

/**
 * Ends a connection within transaction `tx`: ends its event subscriptions, deletes the consent, the refresh and access
 * tokens of (`userId`, `clientId`) and its usage row; the deletes' triggers refuse the JWT access tokens issued so
 * far (a grant cutoff). Returns whether a consent existed.
 */
export async function deleteConnection(
  tx: Kysely<Database>,
  userId: string,
  clientId: string,
  now: Date,
): Promise<boolean> {
  // The connection's event subscriptions end with it (docs/contract.md §6.3); a terminated message is owed.
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
