/**
 * Verifies OAuth access tokens presented to the MCP endpoint: a JWT signed by our authorization server (JWKS from
 * the database), issued by our issuer, for our MCP resource (RFC 8707 audience), not expired, not bound to a key
 * (we accept bearer tokens only). Then, on every request and in one SQL statement, the connection must still be
 * active: the person's consent for the app exists and is not newer than the token, none of the connection's grants
 * ended after the token was issued (a revoked or reused refresh token, a replayed code, a disconnect), the token
 * itself is not revoked (RFC 7009), the person exists, a provider is still a member of an office, and the token's
 * scopes hold the right of the person's role now.
 *
 * The signature check (jose, an Ed25519 verification and claim parsing) is done once per token and app: an
 * {@linkcode AccessTokenVerifier} keeps the claims of tokens it verified, keyed by the whole token text (a changed
 * byte is another token), until the token expires, and only while the key that signed it is still in the JWKS.
 * The SQL check above runs on every request, cached token or not.
 */
import type { createLocalJWKSet, JSONWebKeySet, JWK, JWTPayload } from "jose";
import type { Config } from "../config.ts";
import type { Db } from "../db/connection.ts";
import { connectionCheck, publicJwks, touchConnection } from "../db/oauth.ts";
import { ISSUED_US_CLAIM, issuer, mcpResource } from "./auth_settings.ts";
import { type Principal, rightOfRole } from "./principal.ts";

/** The outcome of checking a bearer token: a principal, or why it was refused. */
export type BearerResult =
  | { ok: true; principal: Principal; recordUse: () => Promise<void> }
  | { ok: false; status: 401; error: "invalid_token"; description: string }
  | { ok: false; status: 403; error: "insufficient_scope"; description: string; scope: string };

/** How long the signing keys read from the database are reused before they are read again. */
const JWKS_TTL_MS = 60_000;
/** Seconds of clock skew allowed on `exp` (and `nbf`), for fresh and cached tokens alike. */
const CLOCK_TOLERANCE_S = 5;
/** Verified tokens kept per app at most (a few hundred bytes each); the oldest go first beyond it. */
const VERIFIED_TOKENS_MAX = 1024;

/** How long a connection's last use stays fresh: within a minute of it, a request writes nothing. */
const USE_RECORD_MS = 60_000;

type SigningKeys = { at: number; set: ReturnType<typeof createLocalJWKSet>; kids: Set<string> };
type Verified = { claims: JWTPayload; kid: string; exp: number };

/**
 * The signature and claim check of access tokens for one app: the JWKS read from the database (for a minute, and
 * again at once for an unknown key id) and the claims of verified tokens (see the module comment). Created once per
 * app (`auth/runtime.ts`), so apps in one process share nothing.
 */
export class AccessTokenVerifier {
  #keys: SigningKeys | undefined;
  #verified = new Map<string, Verified>();

  constructor(
    readonly db: Db,
    readonly config: Config,
    readonly opts: { now?: () => number; maxTokens?: number } = {},
  ) {}

  /** Number of verified tokens kept now. */
  get size(): number {
    return this.#verified.size;
  }

  /** Whether the claims of `token` are kept now (expired ones may be kept until their next check). */
  has(token: string): boolean {
    return this.#verified.has(token);
  }

  /** The verified claims of an access token of our authorization server for our MCP resource, or undefined. */
  async claims(token: string): Promise<JWTPayload | undefined> {
    const hit = this.#verified.get(token);
    if (hit && this.#nowS() < hit.exp + CLOCK_TOLERANCE_S) {
      const keys = this.#freshKeys() ?? await this.#signingKeys(hit.kid);
      if (keys.kids.has(hit.kid)) return hit.claims;
    }
    if (hit) this.#verified.delete(token);
    return await this.#verify(token);
  }

  /** Verifies `token` with jose (signature, issuer, audience, times) and keeps its claims when it passes. */
  async #verify(token: string): Promise<JWTPayload | undefined> {
    if (token.length > 8192 || token.split(".").length !== 3) return undefined;
    const kid = kidOf(token);
    // jose is loaded by the first token, not at start (docs/architecture.md §11.17).
    const { jwtVerify } = await import("jose");
    try {
      const { payload } = await jwtVerify(token, (await this.#signingKeys(kid)).set, {
        issuer: issuer(this.config),
        audience: mcpResource(this.config),
        clockTolerance: CLOCK_TOLERANCE_S,
        requiredClaims: ["sub", "exp", "iat"],
        currentDate: new Date(this.#nowMs()),
      });
      if (kid !== undefined) this.#keep(token, { claims: payload, kid, exp: payload.exp! });
      return payload;
    } catch {
      return undefined;
    }
  }

  #nowMs(): number {
    return this.opts.now ? this.opts.now() : Date.now();
  }

  #nowS(): number {
    return Math.floor(this.#nowMs() / 1000);
  }

  /** Keeps a verified token; when full, drops the expired ones, then the oldest. */
  #keep(token: string, v: Verified): void {
    const max = this.opts.maxTokens ?? VERIFIED_TOKENS_MAX;
    if (this.#verified.size >= max) {
      const now = this.#nowS();
      for (const [t, e] of this.#verified) if (now >= e.exp + CLOCK_TOLERANCE_S) this.#verified.delete(t);
      for (const t of this.#verified.keys()) {
        if (this.#verified.size < max) break;
        this.#verified.delete(t);
      }
    }
    this.#verified.set(token, v);
  }

  /** The signing keys read less than a minute ago, if any. */
  #freshKeys(): SigningKeys | undefined {
    const cached = this.#keys;
    return cached && this.#nowMs() - cached.at < JWKS_TTL_MS ? cached : undefined;
  }

  /** The JWKS of the authorization server, read again after a minute and at once for an unknown key id. */
  async #signingKeys(kid: string | undefined): Promise<SigningKeys> {
    const cached = this.#freshKeys();
    if (cached && (!kid || cached.kids.has(kid))) return cached;
    const now = this.#nowMs();
    const rows = await publicJwks(this.db);
    const keys: JWK[] = rows.map((r) => ({
      ...JSON.parse(r.publicKey),
      kid: r.id,
      ...(r.alg ? { alg: r.alg } : {}),
    }));
    const set = (await import("jose")).createLocalJWKSet({ keys } as JSONWebKeySet);
    return this.#keys = { at: now, set, kids: new Set(rows.map((r) => r.id)) };
  }
}

/** When a token was issued, in µs of the database clock: its `iat_us`, else the start of its `iat` second. */
export function issuedMicros(claims: { iat?: number; [k: string]: unknown }): number {
  const us = claims[ISSUED_US_CLAIM];
  return typeof us === "number" && Number.isSafeInteger(us) ? us : (claims.iat ?? 0) * 1_000_000;
}

/** Checks an OAuth access token for the MCP resource; refuses it when the connection is no longer active. */
export async function verifyOAuthBearer(verifier: AccessTokenVerifier, token: string): Promise<BearerResult> {
  const claims = await verifier.claims(token);
  if (!claims) return invalid("token not valid for this resource");
  if (claims.cnf !== undefined) return invalid("key-bound tokens are not accepted");
  const userId = String(claims.sub);
  const clientId = typeof claims.client_id === "string" ? claims.client_id : String(claims.azp ?? "");
  const scopes = typeof claims.scope === "string" ? claims.scope.split(" ") : [];
  const db = verifier.db;
  const check = await connectionCheck(db, {
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
    recordUse: fresh ? () => Promise.resolve() : () => touchConnection(db, userId, clientId, now),
  };
}

function invalid(description: string): BearerResult {
  return { ok: false, status: 401, error: "invalid_token", description };
}

function kidOf(token: string): string | undefined {
  try {
    const header = JSON.parse(atob(token.split(".")[0]!.replaceAll("-", "+").replaceAll("_", "/")));
    return typeof header.kid === "string" ? header.kid : undefined;
  } catch {
    return undefined;
  }
}
