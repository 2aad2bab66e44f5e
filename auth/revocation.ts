/**
 * What the token and revocation endpoints need beyond better-auth (called by `routes/oauth.ts` around them):
 *
 * - Token endpoint: every exchanged code is recorded with its connection, so a replay of it ends that connection's
 *   grants. better-auth then only deletes stored rows; our access tokens are JWTs it never stored. A wrong PKCE
 *   verifier is `400 invalid_grant` (RFC 7636 §4.6), and only `invalid_client` may answer 401 (RFC 6749 §5.2).
 * - Revocation endpoint (RFC 7009): better-auth answers `unsupported_token_type` for a JWT access token; we revoke
 *   it by its `jti` until it expires and answer 200. A JWT is always looked up as an access token whatever the
 *   `token_type_hint` says (§2.1: a wrong hint must not stop the search). better-auth answers a token it does
 *   not find (already revoked, deleted by refresh-token reuse detection, unknown) with 400 `invalid_request`;
 *   §2.2 wants 200 for an invalid token. So a malformed request is refused before better-auth sees it
 *   ({@linkcode malformedRevocation}), and its `invalid_request` to a well-formed one becomes 200.
 *
 * Refresh tokens and consents need nothing here: deleting or revoking them ends the connection's grants through
 * the triggers of migration 0018.
 */
import { sha256HexSync } from "../crypto.ts";
import type { decodeJwt as DecodeJwt } from "jose";
import { endGrantsOfCode, recordCodeExchange, revokeAccessTokenId } from "../db/oauth.ts";
import type { AppDeps } from "../deps.ts";
import { ACCESS_TOKEN_SECONDS } from "./auth_settings.ts";

type Deps = Pick<AppDeps, "db" | "config" | "log" | "authRuntime">;

/** The parameters of a token or revocation request (form-encoded, or JSON as better-auth also takes). */
export async function oauthParams(req: Request): Promise<URLSearchParams> {
  const type = req.headers.get("content-type") ?? "";
  const text = await req.clone().text().catch(() => "");
  if (!type.includes("application/json")) return new URLSearchParams(text);
  try {
    const body = JSON.parse(text);
    const entries = Object.entries(body && typeof body === "object" ? body : {});
    return new URLSearchParams(entries.filter(([, v]) => typeof v === "string") as Array<[string, string]>);
  } catch {
    return new URLSearchParams();
  }
}

/** The token endpoint's answer after better-auth's: codes recorded, replays ending grants, RFC status codes. */
export async function afterTokenRequest(
  deps: Deps,
  params: URLSearchParams,
  res: Response,
): Promise<Response> {
  const code = params.get("code");
  if (params.get("grant_type") !== "authorization_code" || !code) return res;
  if (res.status === 200) {
    await recordExchange(deps, code, res.clone());
    return res;
  }
  const body = await res.clone().json().catch(() => ({}));
  if (res.status === 400 && body.error === "invalid_grant") {
    if (await endGrantsOfCode(deps.db, codeHash(code))) deps.log.log("warn", "authorization code replayed");
    return res;
  }
  if (res.status !== 401 || body.error === "invalid_client") return res;
  // better-auth answers a failed PKCE check with 401 invalid_request.
  const pkceFailed = body.error_description === "code verification failed";
  return Response.json(
    { error: pkceFailed ? "invalid_grant" : body.error, error_description: body.error_description },
    { status: 400, headers: { "cache-control": "no-store" } },
  );
}

async function recordExchange(deps: Deps, code: string, res: Response): Promise<void> {
  const body = await res.json().catch(() => ({}));
  const decodeJwt = await jwtDecoder();
  let claims;
  try {
    claims = decodeJwt(String(body.access_token));
  } catch {
    return;
  }
  if (typeof claims.sub !== "string" || typeof claims.client_id !== "string") return;
  const exp = typeof claims.exp === "number" ? claims.exp : Date.now() / 1000 + ACCESS_TOKEN_SECONDS;
  await recordCodeExchange(deps.db, {
    codeHash: codeHash(code),
    userId: claims.sub,
    clientId: claims.client_id,
    expiresAt: new Date((exp + 60) * 1000),
  });
}

/** SHA-256 hex of an authorization code (what `oauth_code_exchanges` keeps). */
export function codeHash(code: string): string {
  return sha256HexSync(code);
}

/** The revocation request to give better-auth: a JWT is looked up as an access token, whatever the hint. */
export function revocationRequest(req: Request, params: URLSearchParams): Request {
  const token = params.get("token") ?? "";
  if (token.split(".").length !== 3 || params.get("token_type_hint") === "access_token") return req;
  const form = new URLSearchParams(params);
  form.set("token_type_hint", "access_token");
  const headers = new Headers(req.headers);
  headers.set("content-type", "application/x-www-form-urlencoded");
  headers.delete("content-length");
  return new Request(req.url, { method: "POST", headers, body: form.toString() });
}

/** The parameters of a revocation request that name the token or the client (RFC 7009 §2.1, RFC 6749 §2.3). */
const REVOCATION_PARAMS = [
  "token",
  "token_type_hint",
  "client_id",
  "client_secret",
  "client_assertion",
  "client_assertion_type",
] as const;

/**
 * What makes a form-encoded revocation request malformed (RFC 7009 §2.1 with RFC 6749 §2.3 and §3.1), or
 * undefined when it is well-formed (better-auth answers other media types 415 itself): exactly one non-empty
 * `token`, none of {@linkcode REVOCATION_PARAMS} repeated, at most one client authentication method,
 * and an `Authorization` header, if any, that starts with an auth scheme. A malformed request is answered 400
 * `invalid_request` before better-auth sees it; for a well-formed one whose client better-auth authenticated,
 * its `invalid_request` can only be about the token.
 */
export function malformedRevocation(req: Request, params: URLSearchParams): string | undefined {
  if (params.getAll("token").length !== 1 || !params.get("token")) return "exactly one token is required";
  const repeated = REVOCATION_PARAMS.find((name) => params.getAll(name).length > 1);
  if (repeated) return `${repeated} is repeated`;
  const authorization = req.headers.get("authorization");
  const assertion = params.has("client_assertion") || params.has("client_assertion_type");
  if ([authorization !== null, params.has("client_secret"), assertion].filter(Boolean).length > 1) {
    return "more than one client authentication method";
  }
  if (authorization !== null && !/^[!#$%&'*+.^_`|~0-9A-Za-z-]+(\s|$)/.test(authorization)) {
    return "malformed Authorization header";
  }
  return undefined;
}

/**
 * The revocation endpoint's answer after better-auth's to a well-formed request (RFC 7009 §2.2: 200 when the
 * token was revoked or is invalid):
 * - when it refused a valid JWT access token as `unsupported_token_type`, the token is revoked by its `jti` if it
 *   was issued to the calling client, and the answer is 200 either way;
 * - when it answered `invalid_request` (the token is unknown, already revoked, or was deleted with its grant),
 *   the answer is 200.
 */
export async function afterRevocation(
  deps: Deps,
  params: URLSearchParams,
  headers: Headers,
  res: Response,
): Promise<Response> {
  if (res.status !== 400) return res;
  const body = await res.clone().json().catch(() => ({}));
  if (body.error === "invalid_request") return await revoked(res);
  if (body.error !== "unsupported_token_type") return res;
  const claims = await deps.authRuntime.tokens.claims(params.get("token") ?? "");
  const caller = callingClient(params, headers, await jwtDecoder());
  if (claims && caller && claims.client_id === caller && typeof claims.jti === "string") {
    await revokeAccessTokenId(deps.db, claims.jti, new Date(((claims.exp ?? 0) + 60) * 1000));
  }
  return await revoked(res);
}

/** The 200 of RFC 7009 §2.2 in place of `res`. */
async function revoked(res: Response): Promise<Response> {
  await res.body?.cancel();
  return new Response(null, { status: 200, headers: { "cache-control": "no-store" } });
}

/**
 * The client that called (better-auth has authenticated it): `client_id`, else the user of HTTP Basic
 * authentication, else the subject of a `private_key_jwt` client assertion.
 */
export function callingClient(
  params: URLSearchParams,
  headers: Headers,
  decodeJwt: typeof DecodeJwt,
): string | undefined {
  const id = params.get("client_id");
  if (id) return id;
  const basic = /^Basic\s+(\S+)$/i.exec(headers.get("authorization") ?? "");
  if (basic) {
    try {
      return decodeURIComponent(atob(basic[1]!).split(":")[0]!);
    } catch {
      return undefined;
    }
  }
  try {
    const sub = decodeJwt(params.get("client_assertion") ?? "").sub;
    return typeof sub === "string" ? sub : undefined;
  } catch {
    return undefined;
  }
}

/** jose's `decodeJwt`, loaded by the first OAuth call that needs it, not at start (docs/architecture.md §11.17). */
async function jwtDecoder(): Promise<typeof DecodeJwt> {
  return (await import("jose")).decodeJwt;
}
