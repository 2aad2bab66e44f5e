/**
 * Verifies OAuth access tokens presented to the MCP endpoint: a JWT signed by our authorization server (JWKS from
 * the database), issued by our issuer, for our MCP resource (RFC 8707 audience), not expired. Then, on every
 * request, the connection must still be active: the person's consent for the app exists and is not newer than the
 * token (a disconnect, even followed by a new connection, kills older tokens), the person exists, a provider is
 * still a member of an office, and the token's scopes hold the right of the person's role now.
 */
import { createLocalJWKSet, type JSONWebKeySet, type JWK, jwtVerify } from "jose";
import type { Db } from "../db/connection.ts";
import { personAccess } from "../db/accounts.ts";
import { consentOf, publicJwks, touchConnection } from "../db/oauth.ts";
import type { AppDeps } from "../routes/env.ts";
import { issuer, mcpResource } from "./better_auth.ts";
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

/** Checks an OAuth access token for the MCP resource; refuses it when the connection is no longer active. */
export async function verifyOAuthBearer(deps: AppDeps, token: string): Promise<BearerResult> {
  const invalid = (description: string): BearerResult => ({
    ok: false,
    status: 401,
    error: "invalid_token",
    description,
  });
  if (token.length > 8192 || token.split(".").length !== 3) return invalid("malformed token");
  let claims;
  try {
    const keys = await signingKeys(deps.db, kidOf(token));
    ({ payload: claims } = await jwtVerify(token, keys, {
      issuer: issuer(deps.config),
      audience: mcpResource(deps.config),
      clockTolerance: 5,
      requiredClaims: ["sub", "exp", "iat"],
    }));
  } catch {
    return invalid("token not valid for this resource");
  }
  const userId = String(claims.sub);
  const clientId = typeof claims.client_id === "string" ? claims.client_id : String(claims.azp ?? "");
  const scopes = typeof claims.scope === "string" ? claims.scope.split(" ") : [];
  const consent = await consentOf(deps.db, userId, clientId);
  if (!consent || (claims.iat ?? 0) < Math.floor(consent.createdAt.getTime() / 1000)) {
    return invalid("connection ended");
  }
  const access = await personAccess(deps.db, userId);
  if (!access || (access.role === "provider" && !access.officeId)) return invalid("access ended");
  const right = rightOfRole(access.role);
  if (!scopes.includes(right) || !consent.scopes.includes(right)) {
    return {
      ok: false,
      status: 403,
      error: "insufficient_scope",
      description: `needs ${right}`,
      scope: right,
    };
  }
  return {
    ok: true,
    principal: {
      userId,
      role: access.role,
      officeId: access.officeId,
      right,
      origin: { kind: "oauth", clientId },
    },
    recordUse: () => touchConnection(deps.db, userId, clientId, new Date()),
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
