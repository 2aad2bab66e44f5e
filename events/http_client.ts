/**
 * One webhook POST to a vetted, pinned address. Every call re-runs {@linkcode vetWebhookUrl} and then opens a TCP
 * connection to the FIRST vetted IP itself (`Deno.connect`), so a DNS change between the check and the connection
 * cannot move the request (no rebinding). TLS (`Deno.startTls`) stays end to end and is verified against the URL's
 * host name (SNI and certificate). The request is plain HTTP/1.1 (`http_client_wire.ts`); connections are kept
 * alive per (host name, port, vetted IP) in a bounded pool (`http_client_conn.ts`). No redirects are followed,
 * the whole attempt is bounded in time, and at most `maxResponseBytes` of the answer are read (16 KiB of its
 * head). `post` never throws: every outcome is a value.
 *
 * Why not the platform's `fetch`: it resolves the host itself and cannot be told to connect to the address that
 * was vetted while keeping the URL's host name for SNI and the certificate check (`Deno.createHttpClient` has no
 * per-request address), so a DNS answer changed after the check could move the request (rebinding); and a
 * request that timed out could be sent again by its connection pool, which we rule out only by owning the
 * connection. undici and `node:https` with a pinned lookup were measured against it and lost (docs/architecture.md
 * §11.5).
 *
 * State: everything this client keeps (connection pool and each connection's reader, deadlines, remembered
 * address classifications) belongs to the client object; an event runtime makes one client.
 */
import { AddressMemo, type AddressPolicy, effectivePort, type UrlRefusal, vetWebhookUrl } from "./address.ts";
import { closeQuietly, ConnPool, type Deadline, Deadlines, openConn } from "./http_client_conn.ts";
import {
  Capped,
  connectHost,
  HeadTooLarge,
  Incoming,
  MAX_HEAD_BYTES,
  parseHead,
  readBody,
  requestBytes,
  writeAll,
} from "./http_client_wire.ts";

/** The result of one POST attempt. */
export type PostOutcome =
  /** The receiver answered; `body` holds at most `maxResponseBytes` bytes of the answer, decoded as UTF-8. */
  | { kind: "response"; status: number; body: string; durationMs: number }
  /** No (complete) answer: the attempt timed out, the port refused, TLS failed, or another network error. */
  | { kind: "failure"; errorClass: Exclude<FailureClass, "response_too_large">; durationMs: number }
  /**
   * The answer was larger than the client reads (a head over 16 KiB, or a body over `maxResponseBytes`): reading
   * stopped and the connection was closed. `status` is the answer's status, null when its head was too large.
   */
  | { kind: "failure"; errorClass: "response_too_large"; status: number | null; durationMs: number }
  /** The address check failed; nothing was sent. */
  | { kind: "refused"; reason: UrlRefusal; durationMs: number };

/** The failure outcome of `errorClass` (`status`: the answer's status of a `response_too_large`, if it had one). */
export function failureOf(
  errorClass: FailureClass,
  durationMs: number,
  status: number | null = null,
): PostOutcome {
  return errorClass === "response_too_large"
    ? { kind: "failure", errorClass, status, durationMs }
    : { kind: "failure", errorClass, durationMs };
}

/**
 * The failure categories of the MCP events draft (`deliveryStatus.lastError`, and `data.reason` of -32015), as far
 * as one attempt tells them; `challenge_failed` belongs to the verification, not to an attempt.
 */
export type DeliveryErrorCategory = "connection_refused" | "timeout" | "tls_error" | "http_4xx" | "http_5xx";

/** The category of a status that is not 2xx: 5xx `http_5xx`, anything else (4xx, an unfollowed 3xx) `http_4xx`. */
function statusCategory(status: number): DeliveryErrorCategory {
  return status >= 500 ? "http_5xx" : "http_4xx";
}

/** The HTTP status an attempt is logged with: the answer's, also when it was over the read limit; else null. */
export function statusOf(outcome: PostOutcome): number | null {
  if (outcome.kind === "response") return outcome.status;
  return outcome.kind === "failure" && outcome.errorClass === "response_too_large" ? outcome.status : null;
}

/**
 * The error class an attempt is logged with (docs/operations.md §3.7): the failure's class, `address_<reason>`
 * when the address check refused it, null for an answer read whole.
 */
export function errorClassOf(outcome: PostOutcome): string | null {
  if (outcome.kind === "response") return null;
  return outcome.kind === "refused" ? `address_${outcome.reason}` : outcome.errorClass;
}

/**
 * The draft's category of an attempt logged with `status` and `errorClass`, or null for a 2xx answer (and for
 * what was not an attempt, such as a revoked one). A refused address (nothing was sent) and a connection that
 * broke (`network`) count as `connection_refused`; an answer over the read limit counts by its status, and as
 * `http_5xx` when even its head was too large.
 */
export function categoryOf(status: number | null, errorClass: string | null): DeliveryErrorCategory | null {
  if (status !== null) return status >= 200 && status < 300 ? null : statusCategory(status);
  if (errorClass === "timeout" || errorClass === "tls_error" || errorClass === "connection_refused") {
    return errorClass;
  }
  if (errorClass === "response_too_large") return "http_5xx";
  if (errorClass === "network" || errorClass?.startsWith("address_")) return "connection_refused";
  return null;
}

/** The draft's category of an attempt's outcome, or null for a 2xx answer ({@linkcode categoryOf}). */
export function errorCategory(outcome: PostOutcome): DeliveryErrorCategory | null {
  return categoryOf(statusOf(outcome), errorClassOf(outcome));
}

/** Settings of a {@linkcode webhookClient}. */
export interface WebhookClientOptions {
  /** Which addresses may be reached (see `events/address.ts`). */
  policy: AddressPolicy;
  /** Extra trusted CA certificates (PEM), for tests; the default roots are always trusted. */
  caCerts?: string[];
  /** Bound on the whole attempt: address check, connect, TLS, response and body (default 10 000 ms). */
  timeoutMs?: number;
  /** How much of the response body is read (default 64 KiB). */
  maxResponseBytes?: number;
  /** The `user-agent` sent unless the headers of a call give one. */
  userAgent: string;
}

/** Sends webhook POSTs; `close` ends all kept-alive connections. */
export interface WebhookClient {
  /** One POST of `body` to `url`; never throws. */
  post(url: URL, headers: Record<string, string>, body: string): Promise<PostOutcome>;
  /** Destroys the connection pool; later posts open new connections. */
  close(): void;
}

const DEFAULT_TIMEOUT_MS = 10_000;
const DEFAULT_MAX_RESPONSE_BYTES = 64 * 1024;
const decoder = new TextDecoder();
/** Why an attempt has no usable answer. */
export type FailureClass = "timeout" | "connection_refused" | "tls_error" | "response_too_large" | "network";

const TLS_CODES =
  /^(ERR_TLS_|ERR_SSL_|CERT_|UNABLE_TO_|DEPTH_ZERO_|SELF_SIGNED_|ERR_OSSL_|HOSTNAME_MISMATCH|EPROTO)/;

/** Maps a connection error to its class (the error's text is not kept: it could hold anything). */
function classify(err: unknown): FailureClass {
  if (err instanceof Deno.errors.ConnectionRefused) return "connection_refused";
  const e = err as { code?: unknown; message?: unknown } | null;
  const code = typeof e?.code === "string" ? e.code : "";
  if (code === "ECONNREFUSED") return "connection_refused";
  if (TLS_CODES.test(code)) return "tls_error";
  const message = typeof e?.message === "string" ? e.message : "";
  return /certificate|handshake|\btls\b|\bssl\b/i.test(message) ? "tls_error" : "network";
}

/** What one exchange on a connection gave. */
type Exchanged =
  | { status: number; body: Uint8Array; tooLarge: boolean; reusable: boolean }
  | { error: unknown; received: boolean };

/** Writes the request and reads the (capped) answer, skipping 1xx heads; closes `conn` when `deadline` passes. */
async function exchange(
  conn: Deno.TlsConn,
  incoming: Incoming,
  request: Uint8Array,
  maxBytes: number,
  deadline: Deadline,
): Promise<Exchanged> {
  const off = deadline.onExpire(() => closeQuietly(conn));
  try {
    if (deadline.expired) throw new DOMException("aborted", "AbortError");
    await writeAll(conn, request);
    let head = parseHead(await incoming.until("\r\n\r\n", MAX_HEAD_BYTES));
    while (head.status >= 100 && head.status < 200) {
      head = parseHead(await incoming.until("\r\n\r\n", MAX_HEAD_BYTES));
    }
    const body = new Capped(maxBytes);
    const complete = await readBody(incoming, head, body);
    const keep = head.minor === 1 && !/\bclose\b/i.test(head.headers.get("connection") ?? "");
    return { status: head.status, body: body.bytes(), tooLarge: body.full, reusable: complete && keep };
  } catch (error) {
    return { error, received: incoming.received };
  } finally {
    off();
  }
}

/** Resolves with `work`'s value, or with `null` once `deadline` passes. */
function unlessExpired<T>(work: Promise<T>, deadline: Deadline): Promise<T | null> {
  if (deadline.expired) return Promise.resolve(null);
  return new Promise((resolve, reject) => {
    const off = deadline.onExpire(() => resolve(null));
    work.then(resolve, reject).finally(off);
  });
}

/** What one request gave: an answer (`tooLarge` when it was cut) or an error class. */
type Sent = { status: number; body: Uint8Array; tooLarge: boolean } | { error: FailureClass };

/**
 * Sends `request` over a pooled connection to the pinned `ip`. A reused connection that ends before any byte of
 * an answer (the receiver closed it while idle) is replaced once by a new one; a timeout is never re-sent.
 */
async function send(
  pool: ConnPool,
  target: { url: URL; ip: string; caCerts: string[] | undefined },
  request: Uint8Array,
  maxBytes: number,
  deadline: Deadline,
): Promise<Sent> {
  const host = connectHost(target.url);
  const port = effectivePort(target.url);
  const key = `${host}|${port}|${target.ip}`;
  const open = () => openConn(target.ip, port, host, target.caCerts, deadline);
  for (let fresh = false;; fresh = true) {
    const got = await pool.acquire(key, open, deadline, fresh);
    const out = await exchange(got.conn, pool.incomingOf(got.conn), request, maxBytes, deadline);
    if (!("error" in out)) {
      pool.release(got.slot, got.conn, out.reusable);
      return { status: out.status, body: out.body, tooLarge: out.tooLarge };
    }
    pool.release(got.slot, got.conn, false);
    if (deadline.expired) return { error: "timeout" };
    if (out.error instanceof HeadTooLarge) return { error: "response_too_large" };
    if (!got.reused || out.received) return { error: classify(out.error) };
  }
}

/** What one client keeps: its settings, its connections, its remembered address classifications. */
interface ClientState {
  opts: WebhookClientOptions;
  pool: ConnPool;
  addresses: AddressMemo;
}

/** The check, then the pinned request, under one deadline. */
async function attemptPost(
  { opts, pool, addresses }: ClientState,
  call: { url: URL; headers: Record<string, string>; body: string },
  deadline: Deadline,
  started: number,
): Promise<PostOutcome> {
  const durationMs = () => Math.round(performance.now() - started);
  const vetted = await unlessExpired(vetWebhookUrl(call.url, opts.policy, addresses), deadline);
  if (vetted === null) return failureOf("timeout", durationMs());
  if (!vetted.ok) return { kind: "refused", reason: vetted.reason, durationMs: durationMs() };
  const request = requestBytes(call.url, call.headers, opts.userAgent, call.body);
  const result = await send(
    pool,
    { url: call.url, ip: vetted.addresses[0]!, caCerts: opts.caCerts },
    request,
    opts.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES,
    deadline,
  );
  if ("error" in result) return failureOf(result.error, durationMs());
  if (result.tooLarge) return failureOf("response_too_large", durationMs(), result.status);
  return {
    kind: "response",
    status: result.status,
    body: decoder.decode(result.body),
    durationMs: durationMs(),
  };
}

/** A webhook client: vetted, pinned, TLS-verified POSTs over a bounded keep-alive pool. */
export function webhookClient(opts: WebhookClientOptions): WebhookClient {
  const pool = new ConnPool();
  const state: ClientState = { opts, pool, addresses: new AddressMemo() };
  const deadlines = new Deadlines();
  return {
    async post(url, headers, body) {
      const started = performance.now();
      const deadline = deadlines.start(opts.timeoutMs ?? DEFAULT_TIMEOUT_MS);
      try {
        return await attemptPost(state, { url, headers, body }, deadline, started);
      } catch (err) {
        return failureOf(
          deadline.expired ? "timeout" : classify(err),
          Math.round(performance.now() - started),
        );
      } finally {
        deadlines.done(deadline);
      }
    },
    close: () => pool.close(),
  };
}
