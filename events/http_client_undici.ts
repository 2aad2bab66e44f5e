/**
 * Candidate webhook client over undici (measured against `events/http_client.ts`, docs/architecture.md §11.5).
 * Every call re-runs {@linkcode vetWebhookUrl}; the request then goes through an undici `Pool` of the (host name,
 * port, FIRST vetted IP) whose `lookup` can only answer that IP, so a DNS change between the check and the
 * connection cannot move the request. TLS is verified against the URL's host name (SNI and certificate).
 */
import tls from "node:tls";
import { Pool } from "undici";
import { AddressMemo, effectivePort, vetWebhookUrl } from "./address.ts";
import {
  type FailureClass,
  failureOf,
  type PostOutcome,
  type WebhookClient,
  type WebhookClientOptions,
} from "./http_client.ts";

const DEFAULT_TIMEOUT_MS = 10_000;
const DEFAULT_MAX_RESPONSE_BYTES = 64 * 1024;
/** At most this many (host, port, IP) pools are kept; the least recently used one is closed beyond. */
const MAX_POOLS = 64;
/** Parallel connections per (host, port, IP). */
const MAX_SOCKETS_PER_POOL = 16;
/** Idle kept-alive connections are closed after this long (before Node's 5 s server default). */
const IDLE_SOCKET_MS = 4_000;
/** Largest response head (status line and headers) read. */
const MAX_HEAD_BYTES = 16 * 1024;

const TLS_CODES =
  /^(ERR_TLS_|ERR_SSL_|CERT_|UNABLE_TO_|DEPTH_ZERO_|SELF_SIGNED_|ERR_OSSL_|HOSTNAME_MISMATCH|EPROTO)/;

/** The code of an error (Node and undici errors carry one), else "". */
function codeOf(err: unknown): string {
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === "string" ? code : "";
}

/** Maps a connection error to its class (the error's text is not kept: it could hold anything). */
function classify(err: unknown): FailureClass {
  const code = codeOf(err);
  if (code === "ECONNREFUSED") return "connection_refused";
  if (code === "UND_ERR_HEADERS_OVERFLOW") return "response_too_large";
  if (TLS_CODES.test(code)) return "tls_error";
  const message = (err as { message?: unknown } | null)?.message;
  return typeof message === "string" && /certificate|handshake|\btls\b|\bssl\b/i.test(message)
    ? "tls_error"
    : "network";
}

/**
 * A kept-alive connection the receiver closed before any byte of this answer: undici reports a socket error on
 * a connection that had already read earlier answers (`bytesRead` > 0).
 */
function closedWhileIdle(err: unknown): boolean {
  if (codeOf(err) !== "UND_ERR_SOCKET") return false;
  const read = (err as { socket?: { bytesRead?: unknown } }).socket?.bytesRead;
  return typeof read === "number" && read > 0;
}

/** A `lookup` for `node:net` that answers every query with the one vetted address. */
function pinnedLookup(ip: string) {
  const family = ip.includes(":") ? 6 : 4;
  return (
    _host: string,
    options: { all?: boolean },
    callback: (
      err: Error | null,
      address: string | { address: string; family: number }[],
      family?: number,
    ) => void,
  ): void => {
    if (options?.all) callback(null, [{ address: ip, family }]);
    else callback(null, ip, family);
  };
}

/** The host name for TLS and `host`: brackets and a trailing dot removed. */
function connectHost(url: URL): string {
  const h = url.hostname;
  if (h.startsWith("[")) return h.slice(1, -1);
  return h.endsWith(".") ? h.slice(0, -1) : h;
}

/** undici pools per (host name, port, vetted IP), least recently used first. */
class Pools {
  #pools = new Map<string, Pool>();
  #ca: string[] | undefined;

  constructor(caCerts: string[] | undefined) {
    // node:tls `ca` replaces the default roots; keep them trusted beside the extra test CA.
    this.#ca = caCerts ? [...tls.rootCertificates, ...caCerts] : undefined;
  }

  get(url: URL, ip: string): Pool {
    const host = connectHost(url);
    const port = effectivePort(url);
    const key = `${host}|${port}|${ip}`;
    const found = this.#pools.get(key);
    if (found) {
      this.#pools.delete(key);
      this.#pools.set(key, found);
      return found;
    }
    const origin = `https://${host.includes(":") ? `[${host}]` : host}:${port}`;
    const pool = new Pool(origin, {
      connections: MAX_SOCKETS_PER_POOL,
      pipelining: 1,
      allowH2: false,
      keepAliveTimeout: IDLE_SOCKET_MS,
      keepAliveMaxTimeout: IDLE_SOCKET_MS,
      maxHeaderSize: MAX_HEAD_BYTES,
      connect: { lookup: pinnedLookup(ip), servername: host, ...(this.#ca ? { ca: this.#ca } : {}) },
    });
    this.#pools.set(key, pool);
    while (this.#pools.size > MAX_POOLS) {
      const [oldest] = this.#pools;
      if (!oldest) break;
      this.#pools.delete(oldest[0]);
      void oldest[1].close().catch(() => {});
    }
    return pool;
  }

  close(): void {
    for (const pool of this.#pools.values()) void pool.destroy().catch(() => {});
    this.#pools.clear();
  }
}

/** Caller headers plus `content-type` and `user-agent` when they are missing (names compared without case). */
function withDefaults(headers: Record<string, string>, userAgent: string): Record<string, string> {
  const out: Record<string, string> = {};
  let type = false;
  let agent = false;
  for (const name in headers) {
    const lower = name.toLowerCase();
    if (lower === "content-length" || lower === "host") continue;
    if (lower === "content-type") type = true;
    if (lower === "user-agent") agent = true;
    out[name] = headers[name]!;
  }
  if (!type) out["content-type"] = "application/json";
  if (!agent) out["user-agent"] = userAgent;
  return out;
}

/** Reads at most `max` bytes of `body`; `tooLarge` when more was coming (the connection is then closed). */
async function readCapped(
  body: AsyncIterable<Uint8Array> & { destroy(): void },
  max: number,
): Promise<{ bytes: Uint8Array; tooLarge: boolean }> {
  const chunks: Uint8Array[] = [];
  let size = 0;
  for await (const chunk of body) {
    if (size + chunk.byteLength > max) {
      body.destroy();
      return { bytes: join(chunks, size), tooLarge: true };
    }
    chunks.push(chunk);
    size += chunk.byteLength;
  }
  return { bytes: join(chunks, size), tooLarge: false };
}

function join(chunks: Uint8Array[], size: number): Uint8Array {
  const out = new Uint8Array(size);
  let at = 0;
  for (const c of chunks) {
    out.set(c, at);
    at += c.byteLength;
  }
  return out;
}

const decoder = new TextDecoder();

/** Resolves with `work`'s value, or with `null` once `signal` aborts. */
function unlessAborted<T>(work: Promise<T>, signal: AbortSignal): Promise<T | null> {
  if (signal.aborted) return Promise.resolve(null);
  return new Promise((resolve, reject) => {
    const onAbort = () => resolve(null);
    signal.addEventListener("abort", onAbort, { once: true });
    work.then(resolve, reject).finally(() => signal.removeEventListener("abort", onAbort));
  });
}

/** One request on the pool of the vetted address; a connection closed while idle is replaced once. */
async function send(
  pool: Pool,
  call: { url: URL; headers: Record<string, string>; body: string },
  maxBytes: number,
  signal: AbortSignal,
): Promise<{ status: number; body: Uint8Array; tooLarge: boolean } | { error: FailureClass }> {
  for (let again = true;; again = false) {
    try {
      const res = await pool.request({
        path: `${call.url.pathname}${call.url.search}`,
        method: "POST",
        headers: call.headers,
        body: call.body,
        signal,
      });
      const read = await readCapped(res.body, maxBytes);
      return { status: res.statusCode, body: read.bytes, tooLarge: read.tooLarge };
    } catch (err) {
      if (signal.aborted) return { error: "timeout" };
      if (!again || !closedWhileIdle(err)) return { error: classify(err) };
    }
  }
}

/** A webhook client over undici: vetted, pinned, TLS-verified POSTs over bounded keep-alive pools. */
export function undiciWebhookClient(opts: WebhookClientOptions): WebhookClient {
  const pools = new Pools(opts.caCerts);
  const addresses = new AddressMemo();
  const maxBytes = opts.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES;
  return {
    async post(url, headers, body): Promise<PostOutcome> {
      const started = performance.now();
      const durationMs = () => Math.round(performance.now() - started);
      const signal = AbortSignal.timeout(opts.timeoutMs ?? DEFAULT_TIMEOUT_MS);
      try {
        const vetted = await unlessAborted(vetWebhookUrl(url, opts.policy, addresses), signal);
        if (vetted === null) return failureOf("timeout", durationMs());
        if (!vetted.ok) return { kind: "refused", reason: vetted.reason, durationMs: durationMs() };
        const pool = pools.get(url, vetted.addresses[0]!);
        const out = await send(
          pool,
          { url, headers: withDefaults(headers, opts.userAgent), body },
          maxBytes,
          signal,
        );
        if ("error" in out) return failureOf(out.error, durationMs());
        if (out.tooLarge) return failureOf("response_too_large", durationMs(), out.status);
        return {
          kind: "response",
          status: out.status,
          body: decoder.decode(out.body),
          durationMs: durationMs(),
        };
      } catch (err) {
        return failureOf(signal.aborted ? "timeout" : classify(err), durationMs());
      }
    },
    close: () => pools.close(),
  };
}
