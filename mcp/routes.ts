/**
 * HTTP mounting of the MCP endpoint at `/mcp` (streamable HTTP): authenticate, take a token of the account's
 * "mcp" bucket (spec §8; over the limit an HTTP 429 `{error: "rate_limited"}` without Retry-After), then hand the
 * request to the server chosen by the caller's right. Serves protocol 2026-07-28 and, statelessly, the 2025-era
 * revisions back to 2024-11-05. A plain 2026-07-28 `tools/call` is answered by `direct_call.ts`, everything else
 * by the SDK.
 */
import { Hono } from "hono";
import { createMcpHandler, type McpHttpHandler } from "@modelcontextprotocol/server";
import { authenticateMcp } from "../auth/mcp_auth.ts";
import type { Right } from "../auth/principal.ts";
import type { AppDeps } from "../deps.ts";
import type { AppEnv } from "../routes/env.ts";
import { mediaTypeIs } from "../routes/media_type.ts";
import { RATE_RULES } from "../routes/rate_limit.ts";
import { authInfoOf, calledToolOf } from "./context.ts";
import { directToolCall } from "./direct_call.ts";
import { type Serving, servingFor } from "./servers.ts";

/** Path of the MCP endpoint (where {@linkcode mcpRoutes} is mounted). */
export const MCP_PATH = "/mcp";

/** The rate-limit caller key of an account (the MCP bucket counts per account, not per address). */
export function accountCaller(userId: string): string {
  return `acct:${userId}`;
}

/** The Hono sub-app serving the MCP endpoint, mounted at {@linkcode MCP_PATH} (its own bucket: per account). */
export function mcpRoutes(deps: AppDeps): Hono<AppEnv> {
  const onerror = (error: Error) => deps.log.log("debug", "mcp request refused", { error: error.message });
  const serving: Record<Right, Serving> = {
    lesen: servingFor(deps, "lesen"),
    suchen: servingFor(deps, "suchen"),
  };
  const handler = ({ make }: Serving): McpHttpHandler =>
    createMcpHandler((ctx) => make(calledToolOf(ctx.authInfo)), { legacy: "stateless", onerror });
  const handlers: Record<Right, McpHttpHandler> = {
    lesen: handler(serving.lesen),
    suchen: handler(serving.suchen),
  };
  const app = new Hono<AppEnv>();
  app.all("/", async (c) => {
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
    if (parsedBody !== undefined) {
      const direct = await directToolCall(
        serving[principal.right].direct,
        request.headers,
        parsedBody,
        principal,
        c.get("requestId"),
      );
      if (direct) return direct;
    }
    const authInfo = authInfoOf(principal, c.get("requestId"), toolCallName(parsedBody));
    return await handlers[principal.right].fetch(
      request,
      parsedBody === undefined ? { authInfo } : { authInfo, parsedBody },
    );
  });
  return app;
}

/**
 * Reads and parses a POST body (its type already checked to be `application/json`) once, here, and hands it to
 * the SDK as `parsedBody` (the SDK would otherwise clone the request and read it again), with a body-less copy of
 * the request: the SDK listens to the request's `signal`, and Deno.serve aborts a signal that was looked at after
 * every response, with a DOMException whose stack capture cost ~5 % of a tool call (a client that hangs up
 * mid-call no longer cancels the SDK's exchange; our handlers never watched that signal). Anything else (other
 * methods, an empty body or one that is not JSON) goes to the SDK untouched, or rebuilt with the same text, so its
 * own answers stay the same.
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
    if (text.length > 0) {
      const parsedBody: unknown = JSON.parse(text);
      return { request: bodyless(raw), parsedBody };
    }
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

/**
 * What the SDK reads of a request whose body is already parsed: its method, URL and headers, shared with `raw`
 * (copying the headers into a new `Request` cost ~5 % of a tool call). It has no body and no `signal` (the SDK
 * treats a missing signal as one that never aborts; a listen stream still ends when the client cancels it).
 */
function bodyless(raw: Request): Request {
  const view: Pick<Request, "method" | "url" | "headers"> = {
    method: raw.method,
    url: raw.url,
    headers: raw.headers,
  };
  return view as Request;
}

/** A copy of `raw` whose body fails to read, so the SDK answers an unreadable body as it always does. */
function unreadable(raw: Request): Request {
  const body = new ReadableStream({ start: (c) => c.error(new Error("request body unreadable")) });
  return new Request(raw.url, { method: raw.method, headers: raw.headers, body });
}

/** The tool a single JSON-RPC `tools/call` request names, else undefined. */
function toolCallName(body: unknown): string | undefined {
  if (body === null || typeof body !== "object" || Array.isArray(body)) return undefined;
  const { method, params } = body as { method?: unknown; params?: { name?: unknown } };
  if (method !== "tools/call" || params === null || typeof params !== "object") return undefined;
  return typeof params.name === "string" ? params.name : undefined;
}
