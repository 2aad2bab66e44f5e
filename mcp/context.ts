/** How the MCP adapters carry the authenticated caller from the HTTP layer into tool handlers. */
import type { AuthInfo } from "@modelcontextprotocol/server";
import type { Principal } from "../auth/principal.ts";

/**
 * The `authInfo` handed to the MCP handler for `principal` (the principal rides in `extra`, and so does the name
 * of the tool when the request is a single `tools/call`: the server factory then registers only that tool).
 */
export function authInfoOf(principal: Principal, requestId: string, calledTool?: string): AuthInfo {
  const clientId = principal.origin.kind === "oauth"
    ? principal.origin.clientId
    : `api_key:${principal.origin.keyId}`;
  // The credential itself is not passed on: nothing below the HTTP layer needs it.
  const extra = calledTool === undefined ? { principal, requestId } : { principal, requestId, calledTool };
  return { token: "", clientId, scopes: [principal.right], extra };
}

/** The HTTP request id of a tool call or method (for log lines), as set by {@linkcode authInfoOf}. */
export function requestIdOf(ctx: { http?: { authInfo?: AuthInfo } }): string | undefined {
  const id = ctx.http?.authInfo?.extra?.requestId;
  return typeof id === "string" ? id : undefined;
}

/** The tool a single `tools/call` request names, as set by {@linkcode authInfoOf}; undefined otherwise. */
export function calledToolOf(authInfo: AuthInfo | undefined): string | undefined {
  const name = authInfo?.extra?.calledTool;
  return typeof name === "string" ? name : undefined;
}

/** The caller of a tool call or method, as set by {@linkcode authInfoOf}; undefined without authentication. */
export function principalOf(ctx: { http?: { authInfo?: AuthInfo } }): Principal | undefined {
  return ctx.http?.authInfo?.extra?.principal as Principal | undefined;
}
