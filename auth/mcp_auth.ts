/**
 * Authentication of the MCP endpoint (docs/contract.md §5): an API key (`immo_…`) or an OAuth access token as a bearer.
 *
 * Refusals follow RFC 6750 / RFC 9728: 401 with `WWW-Authenticate: Bearer resource_metadata="…"` (plus
 * `error="invalid_token"` when a token was presented), or 403 `insufficient_scope` with the scope needed.
 */
import type { AppDeps } from "../deps.ts";
import { API_KEY_PREFIX, apiKeyPrincipal, recordApiKeyUse } from "./api_keys.ts";
import { verifyOAuthBearer } from "./oauth_tokens.ts";
import type { Principal } from "./principal.ts";

/** The outcome of {@linkcode authenticateMcp}. */
export type McpAuthResult =
  | {
    ok: true;
    principal: Principal;
    /** Records the use of the credential (an API key's `last_used_at`); call it once the call is admitted. */
    recordUse: () => Promise<void>;
  }
  | { ok: false; response: Response };

/**
 * Scopes named in a 401 challenge: both rights (the consent grants the one of the person's role) and
 * `offline_access`, so clients ask for a refresh token (better-auth's MCP plugin would leave it out).
 */
export const CHALLENGE_SCOPE = "lesen suchen offline_access";

/** URL of the RFC 9728 protected-resource metadata of the MCP endpoint. */
export function mcpResourceMetadataUrl(baseUrl: string): string {
  return `${baseUrl}/.well-known/oauth-protected-resource/mcp`;
}

/** Authenticates an MCP request from its `Authorization` header; never throws for a bad credential. */
export async function authenticateMcp(deps: AppDeps, request: Request): Promise<McpAuthResult> {
  const metadata = mcpResourceMetadataUrl(deps.config.baseUrl);
  const header = request.headers.get("authorization")?.trim() ?? "";
  if (header === "" || /^Bearer$/i.test(header)) {
    return refuse(
      401,
      { error: "unauthorized" },
      `Bearer resource_metadata="${metadata}", scope="${CHALLENGE_SCOPE}"`,
    );
  }
  const match = /^Bearer[ ]+(\S+)$/i.exec(header);
  const invalid = () =>
    refuse(
      401,
      { error: "invalid_token" },
      `Bearer error="invalid_token", resource_metadata="${metadata}", scope="${CHALLENGE_SCOPE}"`,
    );
  if (!match) return invalid();
  const token = match[1]!;

  const runtime = deps.authRuntime;
  if (token.startsWith(API_KEY_PREFIX)) {
    const found = await apiKeyPrincipal(deps.db, token, runtime.keys);
    if (!found) return invalid();
    return {
      ok: true,
      principal: found.principal,
      recordUse: () => recordApiKeyUse(deps.db, found.verified),
    };
  }

  const result = await verifyOAuthBearer(runtime.tokens, token);
  if (result.ok) return { ok: true, principal: result.principal, recordUse: result.recordUse };
  if (result.status === 403) {
    return refuse(
      403,
      { error: "insufficient_scope" },
      `Bearer error="insufficient_scope", scope="${result.scope}", resource_metadata="${metadata}"`,
    );
  }
  return invalid();
}

function refuse(
  status: 401 | 403,
  body: { error: string },
  challenge: string,
): { ok: false; response: Response } {
  return {
    ok: false,
    response: Response.json(body, {
      status,
      headers: { "www-authenticate": challenge, "cache-control": "no-store" },
    }),
  };
}
