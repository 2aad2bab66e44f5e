/** How the MCP adapters carry the authenticated caller from the HTTP layer into tool handlers. */
import type { AuthInfo } from "@modelcontextprotocol/server";
import type { Principal } from "../auth/principal.ts";

/** The `authInfo` handed to the MCP handler for `principal` (the principal and the request id ride in `extra`). */
export function authInfoOf(principal: Principal, requestId: string): AuthInfo {
  const o = principal.origin;
  const clientId = o.kind === "oauth" ? o.clientId : o.kind === "api_key" ? `api_key:${o.keyId}` : "web";
  // The credential itself is not passed on: nothing below the HTTP layer needs it.
  return { token: "", clientId, scopes: [principal.right], extra: { principal, requestId } };
}

/** The HTTP request id of a tool call or method (for log lines), as set by {@linkcode authInfoOf}. */
export function requestIdOf(ctx: { http?: { authInfo?: AuthInfo } }): string | undefined {
  const id = ctx.http?.authInfo?.extra?.requestId;
  return typeof id === "string" ? id : undefined;
}

/** The caller of a tool call or method, as set by {@linkcode authInfoOf}; undefined without authentication. */
export function principalOf(ctx: { http?: { authInfo?: AuthInfo } }): Principal | undefined {
  return ctx.http?.authInfo?.extra?.principal as Principal | undefined;
}
