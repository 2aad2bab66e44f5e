/** Pieces shared by every OpenAPI route: the error schema, error responses, validation hook, strict query. */
import { z } from "@hono/zod-openapi";
import type { MiddlewareHandler } from "hono";
import { AppError, ERROR_STATUS, type ErrorCode } from "../errors.ts";
import { clip } from "../text.ts";
import type { AppEnv } from "./env.ts";

/** The REST error object (docs/contract.md §8.1). */
export const errorSchema = z.object({
  error: z.enum(Object.keys(ERROR_STATUS) as [ErrorCode, ...ErrorCode[]]).describe(
    "A snake_case error code.",
  ),
  detail: z.string().optional().describe("For 400 only: which input was wrong and why."),
}).openapi("Error");

const DESCRIPTIONS: Record<number, string> = {
  400:
    "`invalid_request` for a bad parameter, `invalid_json` for a body that is not JSON; both with `detail`.",
  404: "`not_found`: the listing does not exist, is no longer published, or the id is malformed.",
  413:
    "`payload_too_large`: the request body exceeds 512 KB (524,288 bytes), with or without Content-Length.",
  415:
    "`unsupported_media_type`: the body is not declared as JSON (`application/json` or `application/…+json`).",
  429:
    "`rate_limited`: the caller's token bucket is empty. No Retry-After header; wait briefly and double the pause.",
};

/** OpenAPI response objects for the given error statuses. */
export function errorResponses<S extends 400 | 404 | 413 | 415 | 429>(...statuses: S[]) {
  return Object.fromEntries(statuses.map((s) => [s, {
    description: DESCRIPTIONS[s]!,
    content: { "application/json": { schema: errorSchema } },
  }])) as Record<S, { description: string; content: { "application/json": { schema: typeof errorSchema } } }>;
}

/** zod-openapi's hook: turns a validation failure into 400 `invalid_request` naming the parameter and the reason. */
export function validationHook(
  result: { success: boolean; error?: { issues: Array<{ path: PropertyKey[]; message: string }> } },
): void {
  if (result.success) return;
  const issue = result.error?.issues[0];
  const where = issue?.path.map(String).join(".") || "request";
  throw new AppError("invalid_request", { field: where, reason: "invalid", hint: issue?.message });
}

/**
 * Rejects query parameters that are unknown, repeated, or not percent-encoded UTF-8 (`%E0%A4%A`, `%ZZ`) with 400
 * `invalid_request`.
 */
export function strictQuery(allowed: string[]): MiddlewareHandler<AppEnv> {
  const known = new Set(allowed);
  return async (c, next) => {
    const seen = new Set<string>();
    for (const [name] of new URL(c.req.url).searchParams) {
      if (!known.has(name)) {
        throw new AppError("invalid_request", { field: clip(name, 40), reason: "unknown_parameter" });
      }
      if (seen.has(name)) {
        throw new AppError("invalid_request", { field: name, reason: "repeated_parameter" });
      }
      seen.add(name);
    }
    for (const pair of new URL(c.req.url).search.slice(1).split("&")) {
      if (!decodes(pair)) {
        const name = pair.split("=", 1)[0]!;
        throw new AppError("invalid_request", {
          field: decodes(name) ? decode(name) : "query",
          reason: "not_utf8",
          hint: "not percent-encoded UTF-8",
        });
      }
    }
    await next();
  };
}

/** Whether a query component is valid percent-encoded UTF-8. */
function decodes(component: string): boolean {
  try {
    decode(component);
    return true;
  } catch {
    return false;
  }
}

function decode(component: string): string {
  return decodeURIComponent(component.replaceAll("+", " "));
}

/**
 * Decodes and parses a JSON request body; 400 `invalid_json` saying where it broke (line and column when the
 * parser tells), never quoting the body.
 */
export function parseJsonBody(bytes: Uint8Array): unknown {
  if (bytes.length === 0) {
    throw new AppError("invalid_json", { field: "body", reason: "empty", hint: "expected JSON" });
  }
  let text: string;
  try {
    text = UTF8.decode(bytes);
  } catch {
    throw new AppError("invalid_json", { field: "body", reason: "not_utf8" });
  }
  try {
    return JSON.parse(text);
  } catch (e) {
    throw new AppError("invalid_json", {
      field: "body",
      reason: "not_json",
      hint: whereJsonBroke(String(e)),
    });
  }
}

const UTF8 = new TextDecoder("utf-8", { fatal: true });

/** Where V8's JSON.parse message says the text broke; its other messages quote the text, so they are not used. */
function whereJsonBroke(message: string): string {
  const at = /\(line (\d+) column (\d+)\)/.exec(message);
  if (at) return `line ${at[1]} column ${at[2]}`;
  return /Unexpected end/.test(message) ? "it ends too early" : "unexpected character";
}
