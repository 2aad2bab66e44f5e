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

/**
 * Why a request was refused, beyond its code: each a stable, typed reason, with the English text REST callers and
 * operators read in `detail`. Pages and tools translate the reason (pages: `pages/error_texts.ts`), never the text.
 */
export const ERROR_REASONS = {
  // input
  missing: "missing",
  too_long: "too long",
  control_character: "must be one line without control characters",
  nul_character: "contains a NUL character",
  not_an_email: "not an e-mail address",
  not_base64: "not valid Base64",
  not_json: "not valid JSON",
  not_utf8: "not valid UTF-8",
  empty: "empty",
  not_a_timestamp: "not an ISO 8601 timestamp",
  not_in_future: "must be in the future",
  before_start: "must be after start",
  too_far_apart: "too long a span",
  out_of_range: "out of range",
  unknown_parameter: "unknown parameter",
  repeated_parameter: "given more than once",
  min_above_max: "the minimum is greater than the maximum",
  no_filter: "give at least one filter",
  invalid: "invalid",
  // accounts
  password_length: "a password has 10 to 128 characters",
  address_taken: "already registered",
  password_required: "a new account needs a password",
  unknown_office: "no such office",
  // documents, photos, imports
  broken_file: "the file cannot be read",
  not_every_photo_once: "each photo of the listing exactly once",
  image_library_unavailable: "the image library cannot be loaded",
  // conflicts
  missing_for_publication: "missing for publication",
  reserve_needs_published: "only a published listing can be reserved",
  listing_unavailable: "the listing is not available",
  reference_taken: "another listing of this office already has this reference",
  inquiry_closed: "the inquiry is rejected or closed",
  slot_cancelled: "the slot is cancelled",
  slot_begun: "the slot has begun",
  slot_full: "the slot is full",
  proposal_decided: "the proposal is not open",
  not_a_change: "not a property change",
  not_a_message: "not a reply or rejection",
  too_many: "the limit is reached",
} as const;

/** A stable reason of a refusal (key of {@linkcode ERROR_REASONS}). */
export type ErrorReason = keyof typeof ERROR_REASONS;

/** The typed facts of a refusal. */
export interface ErrorFacts {
  /** The input that was wrong, as a path of the caller's names: `start`, `slots.2.start`, `aenderungen.preis`. */
  field?: string;
  /** Why it was refused. */
  reason?: ErrorReason;
  /** What the reason names: the fields missing, a listing's status. */
  names?: readonly string[];
  /** The number the reason names (a limit). */
  limit?: number;
  /** More text for people (REST `detail`, task output), e.g. a parser's message; never read by code. */
  hint?: string;
}

/** An expected failure with a stable code and typed facts; `detail` renders them for people. */
export class AppError extends Error {
  override name = "AppError";
  /** The stable snake_case code sent to callers. */
  readonly code: ErrorCode;
  /** Which input was wrong and why. */
  readonly facts: ErrorFacts;

  /** Creates an error with `code` and its facts. */
  constructor(code: ErrorCode, facts: ErrorFacts = {}) {
    super(code);
    this.code = code;
    this.facts = facts;
    this.message = this.detail ? `${code}: ${this.detail}` : code;
  }

  /** The facts as one English line (`start: must be in the future`), or undefined when there are none. */
  get detail(): string | undefined {
    const f = this.facts;
    // A bare "invalid" says nothing a hint does not say better; a hint after another reason explains it.
    const reason = f.reason === "invalid" && f.hint ? undefined : f.reason;
    const why = reason
      ? [ERROR_REASONS[reason], f.names?.length ? f.names.join(", ") : undefined, f.limit?.toString()]
        .filter(Boolean).join(": ")
      : undefined;
    const said = why && f.hint ? `${why} (${f.hint})` : why ?? f.hint;
    const text = [f.field, said].filter(Boolean).join(": ");
    return text || undefined;
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
