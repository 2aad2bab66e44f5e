/**
 * One webhook POST to a vetted, pinned address. Every call re-runs {@linkcode vetWebhookUrl} and then opens a TCP
 * connection to the FIRST vetted IP itself (`Deno.connect`), so a DNS change between the check and the connection
 * cannot move the request (no rebinding). TLS (`Deno.startTls`) stays end to end and is verified against the URL's
 * host name (SNI and certificate). The request is plain HTTP/1.1 written by this module; connections are kept alive
 * per (host name, port, vetted IP) in a bounded pool. No redirects are followed, the whole attempt is bounded in
 * time, and at most `maxResponseBytes` of the answer are read. `post` never throws: every outcome is a value.
 *
 * Why not the platform's `fetch`: it resolves the host itself and cannot be told to connect to the address that
 * was vetted while keeping the URL's host name for SNI and the certificate check (`Deno.createHttpClient` has no
 * per-request address), so a DNS answer changed after the check could move the request (rebinding); and a
 * request that timed out could be sent again by its connection pool, which we rule out only by owning the
 * connection (docs/architecture.md §11.5).
 *
 * State: everything this client keeps (connection pool and each connection's reader, deadlines, remembered
 * address classifications) belongs to the client object; an event runtime makes one client.
 */
import { AddressMemo, type AddressPolicy, effectivePort, type UrlRefusal, vetWebhookUrl } from "./address.ts";

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

/**
 * The draft's category of an attempt, or null for a 2xx answer. A refused address (nothing was sent) and a
 * connection that broke (`network`) count as `connection_refused`; an answer over the read limit counts by its
 * status (a 2xx answer is null: the receiver accepted), and as `http_5xx` when even its head was too large.
 */
export function errorCategory(outcome: PostOutcome): DeliveryErrorCategory | null {
  if (outcome.kind === "refused") return "connection_refused";
  if (outcome.kind === "response") {
    return outcome.status >= 200 && outcome.status < 300 ? null : statusCategory(outcome.status);
  }
  if (outcome.errorClass !== "response_too_large") {
    return outcome.errorClass === "network" ? "connection_refused" : outcome.errorClass;
  }
  if (outcome.status === null) return "http_5xx";
  return outcome.status >= 200 && outcome.status < 300 ? null : statusCategory(outcome.status);
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
/** At most this many (host, port, IP) pools are kept; the least recently used one is dropped beyond. */
const MAX_POOLS = 64;
/** Parallel connections per (host, port, IP). */
const MAX_SOCKETS_PER_POOL = 16;
/**
 * Idle kept-alive connections older than this are closed instead of reused, before common server idle limits
 * (Node's 5 s), so a request rarely meets a connection the receiver is just closing. When it does (the connection
 * ends before any byte of an answer), the request is sent once more on a new connection.
 */
const IDLE_SOCKET_MS = 4_000;
/** Largest response head (status line and headers) read. */
const MAX_HEAD_BYTES = 16 * 1024;

/** Why an attempt has no usable answer. */
export type FailureClass = "timeout" | "connection_refused" | "tls_error" | "response_too_large" | "network";

/** How often running attempts are checked against their deadlines: a timeout fires at most this much late. */
const DEADLINE_TICK_MS = 20;

/**
 * The time limit of one attempt: once passed, `expired` is true and the registered callbacks ran (each once).
 * Cheaper per attempt than an `AbortController` with a timer of its own (their listeners and timers were ~4 % of
 * the sending thread's profile samples in `bench:events`); the {@linkcode Deadlines} of a client check all running
 * ones on one timer.
 */
class Deadline {
  expired = false;
  #callbacks: Array<() => void> = [];

  constructor(readonly at: number) {}

  /** Runs `callback` when the deadline passes (at once if it has); returns a function that unregisters it. */
  onExpire(callback: () => void): () => void {
    if (this.expired) {
      callback();
      return () => {};
    }
    this.#callbacks.push(callback);
    return () => {
      const at = this.#callbacks.indexOf(callback);
      if (at >= 0) this.#callbacks.splice(at, 1);
    };
  }

  /** Marks the deadline passed and runs the callbacks. */
  expire(): void {
    if (this.expired) return;
    this.expired = true;
    const callbacks = this.#callbacks;
    this.#callbacks = [];
    for (const callback of callbacks) callback();
  }
}

/** The running deadlines of a client, checked every {@linkcode DEADLINE_TICK_MS} while any runs (no timer else). */
class Deadlines {
  #running = new Set<Deadline>();
  #timer: ReturnType<typeof setInterval> | undefined;

  /** A deadline `ms` from now; pass it to {@linkcode done} when the attempt ends. */
  start(ms: number): Deadline {
    const deadline = new Deadline(performance.now() + ms);
    this.#running.add(deadline);
    this.#timer ??= setInterval(() => this.#check(), DEADLINE_TICK_MS);
    return deadline;
  }

  /** Forgets a finished attempt's deadline. */
  done(deadline: Deadline): void {
    this.#running.delete(deadline);
    if (this.#running.size === 0) this.#stop();
  }

  #check(): void {
    const now = performance.now();
    for (const deadline of this.#running) {
      if (deadline.at > now) continue;
      this.#running.delete(deadline);
      deadline.expire();
    }
    if (this.#running.size === 0) this.#stop();
  }

  #stop(): void {
    clearInterval(this.#timer);
    this.#timer = undefined;
  }
}

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

function closeQuietly(conn: Deno.Conn): void {
  try {
    conn.close();
  } catch { /* already closed */ }
}

/** Kept-alive connections of one (host, port, IP): the idle ones, how many are in use, who waits for one. */
interface Slot {
  idle: Array<{ conn: Deno.TlsConn; since: number }>;
  busy: number;
  waiting: Array<() => void>;
}

/** Connections per (host name, port, vetted IP), at most {@linkcode MAX_SOCKETS_PER_POOL} each, LRU-bounded. */
class ConnPool {
  #slots = new Map<string, Slot>();
  #open = new Set<Deno.TlsConn>();
  /** The reader of each connection of this pool (dropped with the connection). */
  #readers = new WeakMap<Deno.Conn, Incoming>();
  #pruned = 0;

  /**
   * The reader of `conn` (a connection of this pool), ready for the next response: one per connection, so its
   * buffer is allocated once per connection, not once per request.
   */
  incomingOf(conn: Deno.Conn): Incoming {
    let incoming = this.#readers.get(conn);
    if (!incoming) this.#readers.set(conn, incoming = new Incoming(conn));
    return incoming.next();
  }

  /** A connection for `key`: a recent idle one (`reused`), else a new one from `open` (unless `fresh`). */
  async acquire(
    key: string,
    open: () => Promise<Deno.TlsConn>,
    deadline: Deadline,
    fresh: boolean,
  ): Promise<{ slot: Slot; conn: Deno.TlsConn; reused: boolean }> {
    const slot = this.#slot(key);
    while (slot.busy >= MAX_SOCKETS_PER_POOL) {
      if (deadline.expired) throw new DOMException("aborted", "AbortError");
      await turn(slot, deadline);
    }
    slot.busy++;
    const idle = fresh ? undefined : this.#takeIdle(slot);
    if (idle) return { slot, conn: idle, reused: true };
    try {
      const conn = await open();
      this.#open.add(conn);
      return { slot, conn, reused: false };
    } catch (err) {
      this.#free(slot);
      throw err;
    }
  }

  /** Gives a connection back: kept for reuse when `reusable`, else closed. */
  release(slot: Slot, conn: Deno.TlsConn, reusable: boolean): void {
    if (reusable && this.#open.has(conn)) slot.idle.push({ conn, since: performance.now() });
    else this.#drop(conn);
    this.#free(slot);
  }

  /** Closes every connection, idle or in use. */
  close(): void {
    for (const conn of this.#open) closeQuietly(conn);
    this.#open.clear();
    for (const slot of this.#slots.values()) slot.idle = [];
    this.#slots.clear();
  }

  /** Frees a place and wakes the longest waiter (one: waking all made every waiter queue again). */
  #free(slot: Slot): void {
    slot.busy--;
    slot.waiting.shift()?.();
  }

  #drop(conn: Deno.TlsConn): void {
    this.#open.delete(conn);
    closeQuietly(conn);
  }

  #takeIdle(slot: Slot): Deno.TlsConn | undefined {
    const now = performance.now();
    for (let idle = slot.idle.pop(); idle; idle = slot.idle.pop()) {
      if (now - idle.since < IDLE_SOCKET_MS && this.#open.has(idle.conn)) return idle.conn;
      this.#drop(idle.conn);
    }
    return undefined;
  }

  #slot(key: string): Slot {
    this.#prune();
    const found = this.#slots.get(key);
    const slot = found ?? { idle: [], busy: 0, waiting: [] };
    this.#slots.delete(key);
    this.#slots.set(key, slot);
    while (this.#slots.size > MAX_POOLS) {
      const [oldest] = this.#slots;
      if (!oldest) break;
      this.#slots.delete(oldest[0]);
      for (const idle of oldest[1].idle) this.#drop(idle.conn);
      oldest[1].idle = [];
    }
    return slot;
  }

  /** At most once a second: closes idle connections past {@linkcode IDLE_SOCKET_MS}, forgets empty slots. */
  #prune(): void {
    const now = performance.now();
    if (now - this.#pruned < 1_000) return;
    this.#pruned = now;
    for (const [key, slot] of this.#slots) {
      const keep = slot.idle.filter((i) => now - i.since < IDLE_SOCKET_MS);
      for (const i of slot.idle) if (!keep.includes(i)) this.#drop(i.conn);
      slot.idle = keep;
      if (slot.busy === 0 && keep.length === 0 && slot.waiting.length === 0) this.#slots.delete(key);
    }
  }
}

/** Waits until `slot` wakes this waiter (a place was freed) or `deadline` passes (then it leaves the line). */
function turn(slot: Slot, deadline: Deadline): Promise<void> {
  return new Promise<void>((resolve) => {
    const wake = () => {
      off();
      resolve();
    };
    const off = deadline.onExpire(() => {
      const at = slot.waiting.indexOf(wake);
      if (at >= 0) slot.waiting.splice(at, 1);
      resolve();
    });
    slot.waiting.push(wake);
  });
}

/** Opens TCP to the pinned `ip` and TLS verified against `host`; closed again when `deadline` passes meanwhile. */
async function openConn(
  ip: string,
  port: number,
  host: string,
  caCerts: string[] | undefined,
  deadline: Deadline,
): Promise<Deno.TlsConn> {
  const connecting = new AbortController();
  const offConnect = deadline.onExpire(() => connecting.abort());
  const tcp = await Deno.connect({ hostname: ip, port, signal: connecting.signal }).finally(offConnect);
  let tls: Deno.TlsConn;
  try {
    tls = await Deno.startTls(tcp, { hostname: host, ...(caCerts ? { caCerts } : {}) });
  } catch (err) {
    closeQuietly(tcp);
    throw err;
  }
  const off = deadline.onExpire(() => closeQuietly(tls));
  try {
    await tls.handshake();
    return tls;
  } catch (err) {
    closeQuietly(tls);
    throw err;
  } finally {
    off();
  }
}

/** The host name for TLS: brackets and a trailing dot removed. */
function connectHost(url: URL): string {
  const h = url.hostname;
  if (h.startsWith("[")) return h.slice(1, -1);
  return h.endsWith(".") ? h.slice(0, -1) : h;
}

const encoder = new TextEncoder();
const decoder = new TextDecoder();
const UNSAFE_HEADER = /[\r\n\0]/;

/** Throws for a header name or value that could break the request (line breaks, NUL, a colon in the name). */
function checkHeader(name: string, value: string): void {
  if (UNSAFE_HEADER.test(name) || UNSAFE_HEADER.test(value) || name.includes(":")) {
    throw new Error("invalid header");
  }
}

/**
 * The request bytes: POST line, `host`, the caller's headers (a `host` or `content-length` among them is replaced),
 * `content-type` and `user-agent` unless given (names compared without case), `content-length`, body. The head is
 * encoded straight into the request's buffer (one allocation per request).
 */
function requestBytes(
  url: URL,
  headers: Record<string, string>,
  userAgent: string,
  body: string,
): Uint8Array {
  const payload = encoder.encode(body);
  const host = connectHost(url);
  let head = `POST ${url.pathname}${url.search} HTTP/1.1\r\nhost: ${host.includes(":") ? `[${host}]` : host}${
    url.port ? `:${url.port}` : ""
  }\r\n`;
  let type = false;
  let agent = false;
  for (const name in headers) {
    const value = headers[name]!;
    const lower = name.toLowerCase();
    if (lower === "content-length" || lower === "host") continue;
    if (lower === "content-type") type = true;
    if (lower === "user-agent") agent = true;
    checkHeader(name, value);
    head += `${name}: ${value}\r\n`;
  }
  if (!type) head += "content-type: application/json\r\n";
  if (!agent) {
    checkHeader("user-agent", userAgent);
    head += `user-agent: ${userAgent}\r\n`;
  }
  head += `content-length: ${payload.byteLength}\r\n\r\n`;
  const msg = new Uint8Array(head.length * 3 + payload.byteLength);
  const { written } = encoder.encodeInto(head, msg);
  msg.set(payload, written);
  return msg.subarray(0, written + payload.byteLength);
}

async function writeAll(conn: Deno.Conn, data: Uint8Array): Promise<void> {
  for (let at = 0; at < data.byteLength;) at += await conn.write(data.subarray(at));
}

/**
 * Buffered reading of responses from a connection, one at a time: {@linkcode ConnPool.incomingOf} keeps one per
 * connection, so its buffer is allocated once per connection, not once per request (allocating it per request
 * cost ~3 % of the sending thread in `bench:events`).
 */
class Incoming {
  #conn: Deno.Conn;
  #buf = new Uint8Array(4 * 1024);
  #start = 0;
  #end = 0;
  /** Whether any byte arrived since the last {@linkcode Incoming.next}. */
  received = false;

  constructor(conn: Deno.Conn) {
    this.#conn = conn;
  }

  /** Starts reading the next response: bytes left over from the previous one are dropped. */
  next(): this {
    this.#start = this.#end = 0;
    this.received = false;
    return this;
  }

  /** Reads more bytes; false at the end of the stream. */
  async #fill(): Promise<boolean> {
    if (this.#start === this.#end) this.#start = this.#end = 0;
    if (this.#end === this.#buf.byteLength) {
      const size = this.#end - this.#start;
      const next = new Uint8Array(
        size * 2 > this.#buf.byteLength ? this.#buf.byteLength * 2 : this.#buf.byteLength,
      );
      next.set(this.#buf.subarray(this.#start, this.#end));
      this.#buf = next;
      this.#start = 0;
      this.#end = size;
    }
    const n = await this.#conn.read(this.#buf.subarray(this.#end));
    if (n === null) return false;
    this.received = true;
    this.#end += n;
    return true;
  }

  /** The text up to the next `delimiter` (consumed, not returned); throws at the end of the stream or beyond `max`. */
  async until(delimiter: string, max: number): Promise<string> {
    for (let from = this.#start;;) {
      const at = indexOf(this.#buf, delimiter, from, this.#end);
      if (at >= 0) {
        if (at - this.#start > max) throw new HeadTooLarge();
        const text = decoder.decode(this.#buf.subarray(this.#start, at));
        this.#start = at + delimiter.length;
        return text;
      }
      if (this.#end - this.#start > max) throw new HeadTooLarge();
      from = Math.max(this.#start, this.#end - delimiter.length + 1);
      const before = this.#start;
      if (!(await this.#fill())) throw new Error("connection closed");
      from -= before - this.#start;
    }
  }

  /** Up to `n` bytes (at least one); null at the end of the stream. */
  async take(n: number): Promise<Uint8Array | null> {
    if (this.#start === this.#end && !(await this.#fill())) return null;
    const size = Math.min(n, this.#end - this.#start);
    const out = this.#buf.slice(this.#start, this.#start + size);
    this.#start += size;
    return out;
  }
}

/** Thrown when a response head (or a chunk-size line) is longer than the client reads. */
class HeadTooLarge extends Error {}

/** Where `text` (ASCII) starts in `buf[from, end)`, or -1. */
function indexOf(buf: Uint8Array, text: string, from: number, end: number): number {
  const first = text.charCodeAt(0);
  outer: for (let i = from; i <= end - text.length; i++) {
    if (buf[i] !== first) continue;
    for (let j = 1; j < text.length; j++) if (buf[i + j] !== text.charCodeAt(j)) continue outer;
    return i;
  }
  return -1;
}

/** Collects at most `max` body bytes; `full` once more were offered than fit. */
class Capped {
  chunks: Uint8Array[] = [];
  size = 0;
  full = false;
  constructor(readonly max: number) {}

  add(chunk: Uint8Array): void {
    const room = this.max - this.size;
    if (chunk.byteLength > room) this.full = true;
    const part = chunk.byteLength > room ? chunk.subarray(0, room) : chunk;
    this.chunks.push(part);
    this.size += part.byteLength;
  }

  bytes(): Uint8Array {
    const out = new Uint8Array(this.size);
    let at = 0;
    for (const c of this.chunks) {
      out.set(c, at);
      at += c.byteLength;
    }
    return out;
  }
}

/** The status line and headers of a response (header names in lower case). */
interface Head {
  status: number;
  minor: number;
  headers: Map<string, string>;
}

function parseHead(text: string): Head {
  const [line = "", ...rest] = text.split("\r\n");
  const m = /^HTTP\/1\.([01]) (\d{3})(?: |$)/.exec(line);
  if (!m) throw new Error("malformed response");
  const headers = new Map<string, string>();
  for (const h of rest) {
    const colon = h.indexOf(":");
    if (colon <= 0) throw new Error("malformed response header");
    const name = h.slice(0, colon).trim().toLowerCase();
    const value = h.slice(colon + 1).trim();
    headers.set(name, headers.has(name) ? `${headers.get(name)}, ${value}` : value);
  }
  return { status: Number(m[2]), minor: Number(m[1]), headers };
}

/** Reads the body of `head`; true when the connection may carry another request afterwards. */
async function readBody(incoming: Incoming, head: Head, body: Capped): Promise<boolean> {
  if (head.status === 204 || head.status === 304) return true;
  if (/\bchunked\b/i.test(head.headers.get("transfer-encoding") ?? "")) {
    return await readChunked(incoming, body);
  }
  const length = head.headers.get("content-length");
  if (length !== undefined) {
    if (!/^\d+$/.test(length)) throw new Error("malformed content-length");
    return await readLength(incoming, Number(length), body);
  }
  for (let chunk = await incoming.take(65536); chunk; chunk = await incoming.take(65536)) {
    body.add(chunk);
    if (body.full) return false;
  }
  return false;
}

async function readLength(incoming: Incoming, length: number, body: Capped): Promise<boolean> {
  for (let left = length; left > 0;) {
    const chunk = await incoming.take(left);
    if (!chunk) throw new Error("connection closed");
    left -= chunk.byteLength;
    body.add(chunk);
    if (body.full) return false;
  }
  return true;
}

async function readChunked(incoming: Incoming, body: Capped): Promise<boolean> {
  for (;;) {
    const sizeLine = (await incoming.until("\r\n", MAX_HEAD_BYTES)).split(";")[0]!.trim();
    if (!/^[0-9a-f]+$/i.test(sizeLine)) throw new Error("malformed chunk");
    const size = parseInt(sizeLine, 16);
    if (size === 0) break;
    if (!(await readLength(incoming, size, body))) return false;
    await incoming.until("\r\n", 2);
  }
  while ((await incoming.until("\r\n", MAX_HEAD_BYTES)) !== "");
  return true;
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
