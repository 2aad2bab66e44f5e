/**
 * HTTP mounting of the MCP endpoint at `/mcp` (streamable HTTP): authenticate, take a token of the account's
 * "mcp" bucket (spec §8; over the limit an HTTP 429 `{error: "rate_limited"}` without Retry-After), then hand the
 * request to the server chosen by the caller's right. Serves protocol 2026-07-28 and, statelessly, the 2025-era
 * revisions back to 2024-11-05.
 */
import { Hono } from "hono";
import { createMcpHandler, type McpHttpHandler } from "@modelcontextprotocol/server";
import { authenticateMcp } from "../auth/mcp_auth.ts";
import type { Right } from "../auth/principal.ts";
import type { AppDeps, AppEnv } from "../routes/env.ts";
import { RATE_RULES } from "../routes/rate_limit.ts";
import { authInfoOf } from "./context.ts";
import { serverFactoryFor } from "./servers.ts";

/** Path of the MCP endpoint. */
export const MCP_PATH = "/mcp";

/** The rate-limit caller key of an account (the MCP bucket counts per account, not per address). */
export function accountCaller(userId: string): string {
  return `acct:${userId}`;
}

/** The Hono sub-app serving `/mcp`. */
export function mcpRoutes(deps: AppDeps): Hono<AppEnv> {
  const onerror = (error: Error) => deps.log.log("debug", "mcp request refused", { error: error.message });
  const handlers: Record<Right, McpHttpHandler> = {
    lesen: createMcpHandler(serverFactoryFor(deps, "lesen"), { legacy: "stateless", onerror }),
    suchen: createMcpHandler(serverFactoryFor(deps, "suchen"), { legacy: "stateless", onerror }),
  };
  const app = new Hono<AppEnv>();
  app.all(MCP_PATH, async (c) => {
    const auth = await authenticateMcp(deps, c.req.raw);
    if (!auth.ok) return auth.response;
    const { principal } = auth;
    c.set("accountId", principal.userId);
    if (
      deps.config.rateLimit &&
      !await deps.buckets.take("mcp", accountCaller(principal.userId), RATE_RULES.mcp)
    ) {
      return c.json({ error: "rate_limited" }, 429);
    }
    await auth.recordUse();
    return await handlers[principal.right].fetch(c.req.raw, { authInfo: authInfoOf(principal) });
  });
  return app;
}
