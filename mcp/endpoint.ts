/**
 * The MCP endpoint's handler (streamable HTTP; mounted at `/mcp` by `routes.ts`, which loads this module and with it
 * the MCP SDK on the first MCP request): authenticate, take a token of the account's
 * "mcp" bucket (docs/contract.md §9; over the limit an HTTP 429 `{error: "rate_limited"}` without Retry-After), then hand the
 * request to the server chosen by the caller's right. Serves protocol 2026-07-28 and, statelessly, the 2025-era
 * revisions back to 2024-11-05. A plain 2026-07-28 `tools/call` is answered by `direct_call.ts`, a JSON-RPC batch
 * takes one token per message (`batch.ts`), everything else goes to the SDK's `createMcpHandler` with a fresh
 * server per request (`servers.ts`).
 */
import type { Context } from "hono";
import { createMcpHandler, type McpHttpHandler } from "@modelcontextprotocol/server";
import { authenticateMcp } from "../auth/mcp_auth.ts";
import type { Principal, Right } from "../auth/principal.ts";
import type { AppDeps } from "../deps.ts";
import type { AppEnv } from "../routes/env.ts";
import { mediaTypeIs } from "../routes/media_type.ts";
import { RATE_RULES } from "../routes/rate_limit.ts";
import { batchRefused, planBatch, splitBatch, withRefusals } from "./batch.ts";
import { authInfoOf } from "./context.ts";
import { directToolCall } from "./direct_call.ts";
import { createServer, type Surface, surfaceFor } from "./servers.ts";

/** The rate-limit caller key of an account (the MCP bucket counts per account, not per address). */
function accountCaller(userId: string): string {
  return `acct:${userId}`;
}

/** The handler of every request to the MCP endpoint (its own bucket: per account); built once per app. */
export function mcpEndpoint(deps: AppDeps): (c: Context<AppEnv>) => Promise<Response> {
  const onerror = (error: Error) => deps.log.log("debug", "mcp request refused", { error: error.message });
  const surfaces: Record<Right, Surface> = {
    lesen: surfaceFor(deps, "lesen"),
    suchen: surfaceFor(deps, "suchen"),
  };
  const handler = (surface: Surface): McpHttpHandler =>
    createMcpHandler(() => createServer(surface, deps), { legacy: "stateless", onerror });
  const handlers: Record<Right, McpHttpHandler> = {
    lesen: handler(surfaces.lesen),
    suchen: handler(surfaces.suchen),
  };
  return async (c) => {
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
    if (c.req.method === "POST" && !mediaTypeIs(c.req.header("content-type"), "application/json")) {
      return unsupportedMediaType();
    }
    const { request, parsedBody } = await readJsonBody(c.req.raw);
    const plan = planBatch(parsedBody, request.headers);
    if (plan.kind === "refused") return batchRefused(plan.revision);
    if (plan.kind === "batch") {
      const serve = (parsedBody: unknown[]) =>
        handlers[principal.right].fetch(request, {
          authInfo: authInfoOf(principal, c.get("requestId")),
          parsedBody,
        });
      return await serveBatch(deps, principal, plan.messages, serve);
    }
    if (parsedBody !== undefined) {
      const direct = await directToolCall(
        surfaces[principal.right],
        request.headers,
        parsedBody,
        principal,
        c.get("requestId"),
      );
      if (direct) return direct;
    }
    const authInfo = authInfoOf(principal, c.get("requestId"));
    return await handlers[principal.right].fetch(
      request,
      parsedBody === undefined ? { authInfo } : { authInfo, parsedBody },
    );
  };
}

/**
 * Serves a batch whose first message took the request's token: the rest take up to as many more tokens of the
 * account's MCP bucket; `serve` answers the messages covered, and each request beyond answers rate_limited.
 */
async function serveBatch(
  deps: AppDeps,
  principal: Principal,
  messages: unknown[],
  serve: (served: unknown[]) => Promise<Response>,
): Promise<Response> {
  const more = deps.config.rateLimit
    ? await deps.buckets.takeUpTo("mcp", accountCaller(principal.userId), RATE_RULES.mcp, messages.length - 1)
    : messages.length - 1;
  const { served, refusals } = splitBatch(messages, 1 + more);
  return await withRefusals(await serve(served), refusals);
}

/**
 * Reads and parses a POST body (its type already checked to be `application/json`) once, here, for the direct
 * path and for the SDK, which takes it as `parsedBody` and then reads nothing of the request but its method,
 * headers and abort signal. Anything else (other methods, an empty body or one that is not JSON) goes to the SDK
 * untouched, or rebuilt with the same text, so its own answers stay the same.
 */
async function readJsonBody(raw: Request): Promise<{ request: Request; parsedBody?: unknown }> {
  if (raw.method !== "POST" || raw.body === null) return { request: raw };
  let text: string;
  try {
    text = await raw.text();
  } catch {
    return { request: unreadable(raw) };
  }
  try {
    if (text.length > 0) return { request: raw, parsedBody: JSON.parse(text) };
  } catch { /* not JSON: the SDK answers it */ }
  return { request: new Request(raw.url, { method: raw.method, headers: raw.headers, body: text }) };
}

/**
 * 415 for a POST whose content type is not `application/json` by `routes/media_type.ts` (the streamable HTTP
 * transport takes nothing else), in the SDK's own words; the SDK alone would take a malformed type such as
 * `application/json;charset` for JSON.
 */
function unsupportedMediaType(): Response {
  const message = "Unsupported Media Type: Content-Type must be application/json";
  return Response.json({ jsonrpc: "2.0", error: { code: -32000, message }, id: null }, { status: 415 });
}

/** A copy of `raw` whose body fails to read, so the SDK answers an unreadable body as it always does. */
function unreadable(raw: Request): Request {
  const body = new ReadableStream({ start: (c) => c.error(new Error("request body unreadable")) });
  return new Request(raw.url, { method: raw.method, headers: raw.headers, body });
}
