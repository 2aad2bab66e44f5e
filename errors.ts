/**
 * The one error type of the service and the one table from error code to HTTP status.
 *
 * Domain functions throw {@linkcode AppError}; the REST error handler renders `{error: code}` (plus `detail` for
 * 400s); MCP adapters render the same codes as `isError` tool results.
 */
import { clip } from "./text.ts";

/** Longest `detail` sent (it may quote a parameter name the caller chose). */
const DETAIL_MAX = 300;

/** Every error code the service can answer with, and the HTTP status each one maps to. */
export const ERROR_STATUS = {
  invalid_request: 400,
  invalid_json: 400,
  invalid_arguments: 400,
  unauthorized: 401,
  forbidden: 403,
  invalid_signature: 401,
  not_found: 404,
  method_not_allowed: 405,
  conflict: 409,
  payload_too_large: 413,
  unsupported_media_type: 415,
  rate_limited: 429,
  internal_error: 500,
  unavailable: 503,
} as const;

/** A snake_case error code of the service. */
export type ErrorCode = keyof typeof ERROR_STATUS;

/** An expected failure with a stable code; `detail` is a human hint that never contains secrets or SQL. */
export class AppError extends Error {
  override name = "AppError";
  /** The stable snake_case code sent to callers. */
  readonly code: ErrorCode;
  /** Which input was wrong and why (400s only). */
  readonly detail: string | undefined;

  /** Creates an error with `code` and an optional human `detail`. */
  constructor(code: ErrorCode, detail?: string) {
    super(detail ? `${code}: ${detail}` : code);
    this.code = code;
    this.detail = detail;
  }

  /** The HTTP status of this error's code. */
  get status(): (typeof ERROR_STATUS)[ErrorCode] {
    return ERROR_STATUS[this.code];
  }
}

/** The JSON body of a REST error: `{error}` and, for 400s, `detail`. */
export interface ErrorBody {
  error: ErrorCode;
  detail?: string;
}

/**
 * Renders an error as its REST body (a 400's `detail` shortened to {@linkcode DETAIL_MAX} characters); anything that
 * is not an {@linkcode AppError} becomes `internal_error`.
 */
export function errorBody(err: unknown): { status: number; body: ErrorBody } {
  if (err instanceof AppError) {
    const body: ErrorBody = { error: err.code };
    if (err.detail !== undefined && err.status === 400) body.detail = clip(err.detail, DETAIL_MAX);
    return { status: err.status, body };
  }
  return { status: 500, body: { error: "internal_error" } };
}

/** The JSON-RPC error codes of the event calls (docs/contract.md §8.4). */
export const EVENT_ERROR_CODE = {
  invalid_params: -32602,
  not_found: -32011,
  forbidden: -32012,
  limit: -32013,
  unsupported: -32014,
  callback_failed: -32015,
  not_configured: -32603,
} as const;

/** A kind of event-call error (key of {@linkcode EVENT_ERROR_CODE}). */
export type EventErrorKind = keyof typeof EVENT_ERROR_CODE;

/** An expected failure of events/list, events/subscribe or events/unsubscribe: a JSON-RPC code plus `data`. */
export class EventCallError extends Error {
  override name = "EventCallError";
  /** The JSON-RPC error code of docs/contract.md §8.4. */
  readonly code: (typeof EVENT_ERROR_CODE)[EventErrorKind];
  /** The error's `data` (e.g. `{reason: "delivery.url:not_https"}`); never contains secrets. */
  readonly data: Record<string, unknown>;

  /** Creates an error of `kind` with a human `message` and `data`. */
  constructor(kind: EventErrorKind, message: string, data: Record<string, unknown>) {
    super(message);
    this.code = EVENT_ERROR_CODE[kind];
    this.data = data;
  }
}
