/**
 * The settings of accounts and the OAuth 2.1 authorization server that the rest of the service needs without
 * loading better-auth (`auth/better_auth.ts`, loaded on first use): paths, scopes, lifetimes, password lengths,
 * the issuer and the MCP resource, and the two rules we add to better-auth (docs/architecture.md §12).
 */
import type { Config } from "../config.ts";
import { rightOfRole } from "./principal.ts";

/** Path under which better-auth's endpoints live; the OAuth issuer is `${BASE_URL}${AUTH_BASE_PATH}`. */
export const AUTH_BASE_PATH = "/api/auth";
/** Scopes the authorization server knows: the two rights and `offline_access` (refresh tokens). */
export const SCOPES = ["lesen", "suchen", "offline_access"] as const;
/** Lifetime of an access token in seconds (about 10 minutes, issue 4). */
export const ACCESS_TOKEN_SECONDS = 600;
/**
 * The access-token claim holding its issue time in whole microseconds of the database clock. Grant cutoffs
 * (migration 0018) are taken from the same clock, so a token issued after a revocation, even within the same
 * second, is told apart from one issued before it (`iat` has whole seconds only).
 */
export const ISSUED_US_CLAIM = "iat_us";
/** Lifetime of a refresh token in seconds (30 days). */
export const REFRESH_TOKEN_SECONDS = 30 * 24 * 3600;
/** Sign-in page (server-rendered, `pages/`). */
export const LOGIN_PAGE = "/anmelden";
/**
 * Where the e-mail confirmation link sends the browser: the sign-in page, which takes a person signed in by the
 * link to their account and shows an invalid or expired link (`error=…`, added by better-auth) as such.
 */
export const VERIFIED_CALLBACK = `${LOGIN_PAGE}?verified=1`;

/**
 * {@linkcode VERIFIED_CALLBACK} carrying the page to return to after signing in (`weiter`, checked again where
 * it is read: `pages/return_path.ts`), so that a seeker who signed up to save a search lands on it.
 */
export function verifiedCallback(back: string | undefined): string {
  return back ? `${VERIFIED_CALLBACK}&weiter=${encodeURIComponent(back)}` : VERIFIED_CALLBACK;
}
/** Fewest characters of a password (sign-up and password reset). */
export const PASSWORD_MIN_LENGTH = 10;
/** Most characters of a password (sign-up and password reset). */
export const PASSWORD_MAX_LENGTH = 128;
/** Consent page (server-rendered, `pages/`). */
export const CONSENT_PAGE = "/zustimmung";

/** The MCP resource identifier (RFC 8707) of a deployment. */
export function mcpResource(config: Config): string {
  return `${config.baseUrl}/mcp`;
}

/** The OAuth issuer of a deployment. */
export function issuer(config: Config): string {
  return `${config.baseUrl}${AUTH_BASE_PATH}`;
}

/**
 * Gap 1: a client registering only loopback `http://` redirect URIs without `application_type` is a native
 * client (RFC 8252 §7.3); better-auth would treat it as `web` and refuse them.
 */
export function markLoopbackClientsNative(body: unknown): void {
  if (!body || typeof body !== "object") return;
  const b = body as { redirect_uris?: unknown; application_type?: unknown };
  if (b.application_type !== undefined || !Array.isArray(b.redirect_uris) || b.redirect_uris.length === 0) {
    return;
  }
  if (b.redirect_uris.every(isLoopbackHttp)) b.application_type = "native";
}

function isLoopbackHttp(u: unknown): boolean {
  if (typeof u !== "string") return false;
  try {
    const url = new URL(u);
    return url.protocol === "http:" && ["127.0.0.1", "[::1]", "localhost"].includes(url.hostname);
  } catch {
    return false;
  }
}

/**
 * The scopes a person may grant out of `requested`: the right of their role (a provider only with an active
 * membership) and `offline_access`.
 */
export function grantableScopes(
  requested: string[],
  access: { role: "seeker" | "provider"; officeId: string | null } | undefined,
): string[] {
  if (!access || (access.role === "provider" && !access.officeId)) return [];
  const right = rightOfRole(access.role);
  return [...new Set(requested)].filter((s) => s === right || s === "offline_access");
}
