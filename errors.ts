/**
 * The one error type of the service and the one table from error code to HTTP status.
 *
 * Domain functions throw {@linkcode AppError}; the REST error handler renders `{error: code}` (plus `detail` for
 * 400s); MCP adapters render the same codes as `isError` tool results.
 */

/** Every error code the service can answer with, and the HTTP status each one maps to. */
export const ERROR_STATUS = {
  invalid_request: 400,
  invalid_json: 400,
  invalid_arguments: 400,
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

/** Renders an error as its REST body; anything that is not an {@linkcode AppError} becomes `internal_error`. */
export function errorBody(err: unknown): { status: number; body: ErrorBody } {
  if (err instanceof AppError) {
    const body: ErrorBody = { error: err.code };
    if (err.detail !== undefined && err.status === 400) body.detail = err.detail;
    return { status: err.status, body };
  }
  return { status: 500, body: { error: "internal_error" } };
}
