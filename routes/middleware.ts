/** HTTP middleware shared by every route: request ids, the body limit, and the error and 404/405 answers. */
import type { Context, ErrorHandler, MiddlewareHandler, NotFoundHandler } from "hono";
import { HTTPException } from "hono/http-exception";
import { AppError, errorBody } from "../errors.ts";
import type { Logger } from "../log.ts";
import type { AppEnv } from "./env.ts";

/** Largest accepted request body: 512 KB (spec §8), counted as 512 × 1024 bytes. */
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

/**
 * Refuses bodies over {@linkcode MAX_BODY_BYTES} with 413 `payload_too_large` on every route: by the declared
 * Content-Length, and for bodies without one by reading at most one byte past the limit. A body that fits is
 * buffered so later handlers read it as usual.
 */
export function bodyLimit(max = MAX_BODY_BYTES): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const raw = c.req.raw;
    const declared = raw.headers.get("content-length");
    if (declared !== null && (!/^\d+$/.test(declared) || Number(declared) > max)) {
      throw new AppError("payload_too_large");
    }
    if (raw.body && declared === null) {
      const bytes = await readAtMost(raw.body, max);
      if (!bytes) throw new AppError("payload_too_large");
      if (raw.method !== "GET" && raw.method !== "HEAD") c.req.raw = new Request(raw, { body: bytes });
    }
    await next();
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

/** Renders every thrown error as `{error}` JSON; unexpected ones become 500 `internal_error` and are logged. */
export function onError(log: Logger): ErrorHandler<AppEnv> {
  return (err, c) => {
    if (err instanceof HTTPException && !(err instanceof AppError)) return fromHttpException(err, c);
    const { status, body } = errorBody(err);
    if (status === 500) {
      log.log("error", "unhandled error", {
        requestId: c.get("requestId"),
        method: c.req.method,
        path: c.req.path,
        error: err instanceof Error ? `${err.name}: ${err.message}` : String(err),
      });
    }
    return c.json(body, status as 400);
  };
}

function fromHttpException(err: HTTPException, c: Context<AppEnv>): Response {
  const code = err.status === 400 && /json/i.test(err.message)
    ? "invalid_json"
    : err.status === 413
    ? "payload_too_large"
    : err.status === 400
    ? "invalid_request"
    : err.status === 404
    ? "not_found"
    : undefined;
  const { status, body } = errorBody(code ? new AppError(code) : err);
  return c.json(body, status as 400);
}

/** Unknown route: 404 `{error: "not_found"}`. */
export const notFound: NotFoundHandler<AppEnv> = (c) => c.json({ error: "not_found" }, 404);

/** A handler for a known path called with a method it does not serve: 405 with an `Allow` header. */
export function methodNotAllowed(allow: string[]): MiddlewareHandler<AppEnv> {
  return (c) => {
    c.header("Allow", allow.join(", "));
    return Promise.resolve(c.json({ error: "method_not_allowed" }, 405));
  };
}
