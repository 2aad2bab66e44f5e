/**
 * HTTP middleware shared by every route: request ids, the body limit, logging of every 5xx, and the error and
 * 404/405 answers.
 */
import type { Context, ErrorHandler, MiddlewareHandler, NotFoundHandler } from "hono";
import { cors } from "hono/cors";
import { HTTPException } from "hono/http-exception";
import { routePath } from "hono/route";
import { AppError, ERROR_STATUS, errorBody, type ErrorCode } from "../errors.ts";
import type { Logger } from "../log.ts";
import { clip } from "../text.ts";
import type { AppEnv } from "./env.ts";

/** Largest accepted request body: 512 KB (docs/contract.md §9), counted as 512 × 1024 bytes. */
export const MAX_BODY_BYTES = 512 * 1024;

/** Gives each request a random id, available as `c.get("requestId")` and sent back in `x-request-id`. */
export function requestId(): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const id = crypto.randomUUID();
    c.set("requestId", id);
    await next();
    c.res.headers.set("x-request-id", id);
  };
}

/** A larger body limit for some requests (a photo upload), with the answer when even that is exceeded. */
export interface BodyLimitRule {
  applies(c: Context<AppEnv>): boolean;
  max: number;
  /** The answer instead of the JSON 413 (a page for a form). */
  tooLarge?(c: Context<AppEnv>): Response | Promise<Response>;
}

/**
 * Refuses bodies over {@linkcode MAX_BODY_BYTES} (or the `max` of the first of `rules` that applies) with 413
 * `payload_too_large` on every route and method: by the declared Content-Length, and for bodies without one by
 * reading at most one byte past the limit. A body that fits is buffered so later handlers read it as usual.
 * Deno.serve never hands the body of a GET or HEAD to the handler (RFC 9110 §9.3.1: it has no meaning), so a
 * chunked one is neither read nor counted: the request is served as without a body.
 */
export function bodyLimit(max = MAX_BODY_BYTES, rules: BodyLimitRule[] = []): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const rule = rules.find((r) => r.applies(c));
    const limit = rule?.max ?? max;
    const tooLarge = async () => {
      if (rule?.tooLarge) return await rule.tooLarge(c);
      throw new AppError("payload_too_large");
    };
    const raw = c.req.raw;
    const declared = raw.headers.get("content-length");
    if (declared !== null && (!/^\d+$/.test(declared) || Number(declared) > limit)) return await tooLarge();
    if (declared === null && raw.body) {
      const bytes = await readAtMost(raw.body, limit);
      if (!bytes) return await tooLarge();
      c.req.raw = new Request(raw, { body: bytes });
    }
    await next();
    return undefined;
  };
}

async function readAtMost(
  body: ReadableStream<Uint8Array>,
  max: number,
): Promise<Uint8Array<ArrayBuffer> | undefined> {
  const reader = body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      size += value.byteLength;
      if (size > max) return undefined;
      chunks.push(value);
    }
  } finally {
    reader.cancel().catch(() => {});
  }
  const out = new Uint8Array(size);
  let at = 0;
  for (const ch of chunks) {
    out.set(ch, at);
    at += ch.byteLength;
  }
  return out;
}

const logged = new WeakSet<Context<AppEnv>>();

/**
 * Logs a request whose answer is a 5xx, once: request id, method, route pattern, path (shortened), status, and
 * the error's name and message (never bodies or headers).
 */
function logServerError(log: Logger, c: Context<AppEnv>, status: number, err: unknown): void {
  if (status < 500 || logged.has(c)) return;
  logged.add(c);
  log.log("error", "server error", {
    requestId: c.get("requestId"),
    method: c.req.method,
    route: routePath(c),
    path: clip(c.req.path, 200),
    status,
    error: errorText(err, status),
  });
}

/** `name: message` of what was thrown, shortened; for an answer nothing threw, says so. */
function errorText(err: unknown, status: number): string {
  if (err === undefined) return `no exception: the route answered ${status}`;
  return clip(err instanceof Error ? `${err.name}: ${err.message}` : String(err), 500);
}

/**
 * Logs every 5xx answer that {@linkcode onError} did not log already: those a route, hono, zod-openapi or another
 * library answered with a 5xx Response instead of throwing. Register it right after {@linkcode requestId}.
 */
export function logServerErrors(log: Logger): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    await next();
    logServerError(log, c, c.res.status, c.error);
  };
}

/**
 * Renders every thrown error as `{error}` JSON (an `HTTPException` of hono or zod-openapi by its status); unexpected
 * ones become 500 `internal_error`. Every 5xx is logged.
 */
export function onError(log: Logger): ErrorHandler<AppEnv> {
  return (err, c) => {
    const { status, body } = errorBody(err instanceof HTTPException ? asAppError(err) : err);
    logServerError(log, c, status, err);
    return c.json(body, status as 400);
  };
}

/** The first error code of each status (400 → invalid_request, 401 → unauthorized, …). */
const CODE_OF_STATUS = new Map(
  (Object.entries(ERROR_STATUS) as Array<[ErrorCode, number]>).reverse().map(([code, s]) => [s, code]),
);

/** An `HTTPException` as our error: its status's code (a 400 with a detail; another 4xx as a 400; else 500). */
function asAppError(err: HTTPException): unknown {
  if (err instanceof AppError) return err;
  if (err.status === 400 && /json/i.test(err.message)) {
    return new AppError("invalid_json", { field: "body", reason: "not_json" });
  }
  const code = CODE_OF_STATUS.get(err.status);
  if (code === "invalid_request" || (!code && err.status < 500)) {
    return new AppError("invalid_request", {
      field: "request",
      reason: "invalid",
      hint: clip(err.message || "refused", 100),
    });
  }
  return code ? new AppError(code) : err;
}

/** Unknown route: 404 `{error: "not_found"}`. */
export const notFound: NotFoundHandler<AppEnv> = (c) => c.json({ error: "not_found" }, 404);

/**
 * The last handler of a known path: a method in `allow` falls through to the next handler (or 404), any other
 * method (TRACE, PROPFIND, …) answers 405 with an `Allow` header.
 */
export function methodNotAllowed(allow: string[]): MiddlewareHandler<AppEnv> {
  const served = new Set(allow);
  return async (c, next) => {
    if (served.has(c.req.method)) return await next();
    c.header("Allow", allow.join(", "));
    return c.json({ error: "method_not_allowed" }, 405);
  };
}

/** CORS of the public API: every origin, no credentials, GET/POST, preflights cached for a day. */
export function publicCors(): MiddlewareHandler<AppEnv> {
  return cors({ origin: "*", allowMethods: ["GET", "POST", "OPTIONS"], maxAge: 86400 });
}
