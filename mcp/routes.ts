/**
 * HTTP mounting of the MCP endpoint at `/mcp`. The endpoint itself (`endpoint.ts`: authentication, the account's
 * bucket, the direct path, batches and the MCP SDK's servers) is loaded by the first MCP request, so a process
 * started for a catalogue or page request does not load the SDK (docs/architecture.md §11.17).
 */
import { type Context, Hono } from "hono";
import type { AppDeps } from "../deps.ts";
import type { AppEnv } from "../routes/env.ts";

/** Path of the MCP endpoint (where {@linkcode mcpRoutes} is mounted). */
export const MCP_PATH = "/mcp";

/** The Hono sub-app serving the MCP endpoint, mounted at {@linkcode MCP_PATH}. */
export function mcpRoutes(deps: AppDeps): Hono<AppEnv> {
  let endpoint: Promise<(c: Context<AppEnv>) => Promise<Response>> | undefined;
  const app = new Hono<AppEnv>();
  app.all("/", async (c) => {
    endpoint ??= import("./endpoint.ts").then((m) => m.mcpEndpoint(deps)).catch((err) => {
      endpoint = undefined;
      throw err;
    });
    return await (await endpoint)(c);
  });
  return app;
}
