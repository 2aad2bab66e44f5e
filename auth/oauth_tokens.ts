/**
 * Verifies OAuth access tokens presented to the MCP endpoint: a JWT signed by our authorization server (JWKS from
 * the database), issued by our issuer, for our MCP resource (RFC 8707 audience), not expired, not bound to a key
 * (we accept bearer tokens only). Then, on every request and in one SQL statement, the connection must still be
 * active: the person's consent for the app exists and is not newer than the token, none of the connection's grants
 * ended after the token was issued (a revoked or reused refresh token, a replayed code, a disconnect), the token
 * itself is not revoked (RFC 7009), the person exists, a provider is still a member of an office, and the token's
 * scopes hold the right of the person's role now.
 */
import { createLocalJWKSet, type JSONWebKeySet, type JWK, jwtVerify } from "jose";
import type { Db } from "../db/connection.ts";
import { connectionCheck, publicJwks, touchConnection } from "../db/oauth.ts";
import type { AppDeps } from "../deps.ts";
import { ISSUED_US_CLAIM, issuer, mcpResource } from "./better_auth.ts";
import { type Principal, rightOfRole } from "./principal.ts";

/** The outcome of checking a bearer token: a principal, or why it was refused. */
export type BearerResult =
  | { ok: true; principal: Principal; recordUse: () => Promise<void> }
  | { ok: false; status: 401; error: "invalid_token"; description: string }
  | { ok: false; status: 403; error: "insufficient_scope"; description: string; scope: string };

/** How long the signing keys read from the database are reused before they are read again. */
const JWKS_TTL_MS = 60_000;
const jwksCache = new WeakMap<
  Db,
  { at: number; set: ReturnType<typeof createLocalJWKSet>; kids: Set<string> }
>();

/** How long a connection's last use stays fresh: within a minute of it, a request writes nothing. */
const USE_RECORD_MS = 60_000;

/** The verified claims of an access token of our authorization server for our MCP resource, or undefined. */
export async function accessTokenClaims(deps: Pick<AppDeps, "db" | "config">, token: string) {
  if (token.length > 8192 || token.split(".").length !== 3) return undefined;
  try {
    const keys = await signingKeys(deps.db, kidOf(token));
    const { payload } = await jwtVerify(token, keys, {
      issuer: issuer(deps.config),
      audience: mcpResource(deps.config),
      clockTolerance: 5,
      requiredClaims: ["sub", "exp", "iat"],
    });
    return payload;
  } catch {
    return undefined;
  }
}

/** When a token was issued, in µs of the database clock: its `iat_us`, else the start of its `iat` second. */
export function issuedMicros(claims: { iat?: number; [k: string]: unknown }): number {
  const us = claims[ISSUED_US_CLAIM];
  return typeof us === "number" && Number.isSafeInteger(us) ? us : (claims.iat ?? 0) * 1_000_000;
}

/** Checks an OAuth access token for the MCP resource; refuses it when the connection is no longer active. */
export async function verifyOAuthBearer(deps: AppDeps, token: string): Promise<BearerResult> {
  const invalid = (description: string): BearerResult => ({
    ok: false,
    status: 401,
    error: "invalid_token",
    description,
  });
  const claims = await accessTokenClaims(deps, token);
  if (!claims) return invalid("token not valid for this resource");
  if (claims.cnf !== undefined) return invalid("key-bound tokens are not accepted");
  const userId = String(claims.sub);
  const clientId = typeof claims.client_id === "string" ? claims.client_id : String(claims.azp ?? "");
  const scopes = typeof claims.scope === "string" ? claims.scope.split(" ") : [];
  const check = await connectionCheck(deps.db, {
    userId,
    clientId,
    jti: typeof claims.jti === "string" ? claims.jti : "",
    issuedUs: issuedMicros(claims),
  });
  if (!check) return invalid("access ended");
  const { consentAt, consentScopes } = check;
  if (!consentAt || !consentScopes || (claims.iat ?? 0) < Math.floor(consentAt.getTime() / 1000)) {
    return invalid("connection ended");
  }
  if (check.cutOff || check.revoked) return invalid("token revoked");
  if (check.role === "provider" && !check.officeId) return invalid("access ended");
  const right = rightOfRole(check.role);
  if (!scopes.includes(right) || !consentScopes.includes(right)) {
    return {
      ok: false,
      status: 403,
      error: "insufficient_scope",
      description: `needs ${right}`,
      scope: right,
    };
  }
  const now = new Date();
  const fresh = check.lastUsedAt && now.getTime() - check.lastUsedAt.getTime() < USE_RECORD_MS;
  return {
    ok: true,
    principal: {
      userId,
      role: check.role,
      officeId: check.officeId,
      right,
      origin: { kind: "oauth", clientId },
    },
    recordUse: fresh ? () => Promise.resolve() : () => touchConnection(deps.db, userId, clientId, now),
  };
}

function kidOf(token: string): string | undefined {
  try {
    const header = JSON.parse(atob(token.split(".")[0]!.replaceAll("-", "+").replaceAll("_", "/")));
    return typeof header.kid === "string" ? header.kid : undefined;
  } catch {
    return undefined;
  }
}

/** The JWKS of the authorization server, cached for a minute and read again at once for an unknown key id. */
async function signingKeys(db: Db, kid: string | undefined) {
  const cached = jwksCache.get(db);
  if (cached && Date.now() - cached.at < JWKS_TTL_MS && (!kid || cached.kids.has(kid))) return cached.set;
  const rows = await publicJwks(db);
  const keys: JWK[] = rows.map((r) => ({
    ...JSON.parse(r.publicKey),
    kid: r.id,
    ...(r.alg ? { alg: r.alg } : {}),
  }));
  const set = createLocalJWKSet({ keys } as JSONWebKeySet);
  jwksCache.set(db, { at: Date.now(), set, kids: new Set(rows.map((r) => r.id)) });
  return set;
}
