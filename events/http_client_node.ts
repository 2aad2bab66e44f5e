/**
 * Candidate webhook client over `node:https` (the service's first client, measured again against
 * `events/http_client.ts`, docs/architecture.md §11.5). One webhook POST to a vetted, pinned address. Every call re-runs {@linkcode vetWebhookUrl} and then connects to the
 * FIRST vetted IP through `node:https` with a `lookup` that can only answer that IP, so a DNS change between the
 * check and the connection cannot move the request (no rebinding). TLS stays end to end and is verified against the
 * URL's host name (SNI and certificate). Connections are kept alive per (host name, port, vetted IP) in a bounded
 * pool. No redirects are followed, the whole attempt is bounded in time, and at most `maxResponseBytes` of the
 * answer are read. `post` never throws: every outcome is a value.
 */
import https from "node:https";
import type { IncomingMessage } from "node:http";
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
/** At most this many (host, port, IP) pools are kept; the least recently used one is dropped beyond. */
const MAX_POOLS = 64;
/** Parallel connections per (host, port, IP). */
const MAX_SOCKETS_PER_POOL = 16;
/**
 * Idle kept-alive connections are closed after this long, before common server idle limits (Node's 5 s), so a
 * request rarely meets a connection the receiver is just closing. When it does (error before any answer on a reused
 * connection), Deno's `node:http` sends it again on a new connection itself (covered by a test).
 */
const IDLE_SOCKET_MS = 4_000;

const TLS_CODES =
  /^(ERR_TLS_|ERR_SSL_|CERT_|UNABLE_TO_|DEPTH_ZERO_|SELF_SIGNED_|ERR_OSSL_|HOSTNAME_MISMATCH|EPROTO)/;

/** Maps a connection error to its class (the error's text is not kept: it could hold anything). */
function classify(err: unknown): FailureClass {
  const e = err as { code?: unknown; message?: unknown } | null;
  const code = typeof e?.code === "string" ? e.code : "";
  if (code === "ECONNREFUSED") return "connection_refused";
  if (TLS_CODES.test(code)) return "tls_error";
  const message = typeof e?.message === "string" ? e.message : "";
  return /certificate|handshake|\btls\b|\bssl\b/i.test(message) ? "tls_error" : "network";
}

/** Keep-alive agents per (host name, port, vetted IP), least recently used first. */
class AgentPool {
  #agents = new Map<string, https.Agent>();

  get(host: string, port: number, ip: string): https.Agent {
    const key = `${host}|${port}|${ip}`;
    const found = this.#agents.get(key);
    if (found) {
      this.#agents.delete(key);
      this.#agents.set(key, found);
      return found;
    }
    const agent = new https.Agent({
      keepAlive: true,
      maxSockets: MAX_SOCKETS_PER_POOL,
      maxFreeSockets: MAX_SOCKETS_PER_POOL,
      timeout: IDLE_SOCKET_MS,
    });
    this.#agents.set(key, agent);
    this.#evict();
    return agent;
  }

  #evict(): void {
    while (this.#agents.size > MAX_POOLS) {
      const [oldest] = this.#agents;
      if (!oldest) return;
      this.#agents.delete(oldest[0]);
      oldest[1].destroy();
    }
  }

  close(): void {
    for (const agent of this.#agents.values()) agent.destroy();
    this.#agents.clear();
  }
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

/** Caller headers plus `content-type` and `user-agent` when they are missing (names compared without case). */
function withDefaults(
  headers: Record<string, string>,
  userAgent: string,
  body: string,
): Record<string, string> {
  const names = new Set(Object.keys(headers).map((h) => h.toLowerCase()));
  const out: Record<string, string> = { ...headers };
  if (!names.has("content-type")) out["content-type"] = "application/json";
  if (!names.has("user-agent")) out["user-agent"] = userAgent;
  if (!names.has("content-length")) out["content-length"] = String(new TextEncoder().encode(body).byteLength);
  return out;
}

/** The host name for TLS and the `Host` header: brackets and a trailing dot removed. */
function connectHost(url: URL): string {
  const h = url.hostname;
  if (h.startsWith("[")) return h.slice(1, -1);
  return h.endsWith(".") ? h.slice(0, -1) : h;
}

/** What one request gave: an answer or an error. */
type Sent = SentBody | { error: FailureClass };

/** What one request gave: an answer or an error. */
type SentBody = { status: number; body: Uint8Array; tooLarge: boolean };
/** One in-flight request: settles once, however many events arrive. */
interface Attempt {
  settle: (o: Sent) => void;
  signal: AbortSignal;
}

/** Reads at most `max` bytes of `res`, then stops (destroying the connection if more was coming). */
function readCapped(res: IncomingMessage, max: number, attempt: Attempt): void {
  const chunks: Uint8Array[] = [];
  let size = 0;
  let tooLarge = false;
  const done = () => attempt.settle({ status: res.statusCode ?? 0, body: joinBytes(chunks, size), tooLarge });
  res.on("data", (chunk: Uint8Array) => {
    const room = max - size;
    if (chunk.byteLength > room) {
      chunks.push(chunk.subarray(0, room));
      size = max;
      tooLarge = true;
      res.destroy();
      return done();
    }
    chunks.push(chunk);
    size += chunk.byteLength;
  });
  res.on("end", done);
  res.on("error", (err) => attempt.settle({ error: attempt.signal.aborted ? "timeout" : classify(err) }));
}

function joinBytes(chunks: Uint8Array[], size: number): Uint8Array {
  const out = new Uint8Array(size);
  let at = 0;
  for (const c of chunks) {
    out.set(c, at);
    at += c.byteLength;
  }
  return out;
}

interface SendArgs {
  url: URL;
  ip: string;
  headers: Record<string, string>;
  body: string;
  agent: https.Agent;
  caCerts: string[] | undefined;
  maxBytes: number;
  signal: AbortSignal;
}

/** Sends the request to the pinned IP and waits for the (capped) answer or an error. */
function send(a: SendArgs): Promise<Sent> {
  return new Promise((resolve) => {
    let settled = false;
    const attempt: Attempt = {
      signal: a.signal,
      settle: (o) => {
        if (settled) return;
        settled = true;
        a.signal.removeEventListener("abort", onAbort);
        resolve(o);
      },
    };
    const onAbort = () => {
      req?.destroy();
      attempt.settle({ error: "timeout" });
    };
    let req: ReturnType<typeof https.request> | undefined;
    try {
      req = https.request({
        host: connectHost(a.url),
        port: effectivePort(a.url),
        path: `${a.url.pathname}${a.url.search}`,
        method: "POST",
        headers: a.headers,
        agent: a.agent,
        ca: a.caCerts,
        rejectUnauthorized: true,
        lookup: pinnedLookup(a.ip),
      } as https.RequestOptions, (res) => readCapped(res, a.maxBytes, attempt));
    } catch (err) {
      return attempt.settle({ error: classify(err) });
    }
    req.on("error", (err) => attempt.settle({ error: a.signal.aborted ? "timeout" : classify(err) }));
    if (a.signal.aborted) return onAbort();
    a.signal.addEventListener("abort", onAbort, { once: true });
    req.end(a.body);
  });
}

/** Resolves with `work`'s value, or with `null` once `signal` aborts. */
function unlessAborted<T>(work: Promise<T>, signal: AbortSignal): Promise<T | null> {
  if (signal.aborted) return Promise.resolve(null);
  return new Promise((resolve, reject) => {
    const onAbort = () => resolve(null);
    signal.addEventListener("abort", onAbort, { once: true });
    work.then(resolve, reject).finally(() => signal.removeEventListener("abort", onAbort));
  });
}

const decoder = new TextDecoder();

/** The check, then the pinned request, under one deadline. */
async function attemptPost(
  addresses: AddressMemo,
  opts: WebhookClientOptions,
  pool: AgentPool,
  call: { url: URL; headers: Record<string, string>; body: string },
  signal: AbortSignal,
  started: number,
): Promise<PostOutcome> {
  const durationMs = () => Math.round(performance.now() - started);
  const vetted = await unlessAborted(vetWebhookUrl(call.url, opts.policy, addresses), signal);
  if (vetted === null) return failureOf("timeout", durationMs());
  if (!vetted.ok) return { kind: "refused", reason: vetted.reason, durationMs: durationMs() };
  const ip = vetted.addresses[0]!;
  const result = await send({
    url: call.url,
    ip,
    headers: withDefaults(call.headers, opts.userAgent, call.body),
    body: call.body,
    agent: pool.get(connectHost(call.url), effectivePort(call.url), ip),
    caCerts: opts.caCerts,
    maxBytes: opts.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES,
    signal,
  });
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
export function nodeWebhookClient(opts: WebhookClientOptions): WebhookClient {
  const pool = new AgentPool();
  const addresses = new AddressMemo();
  return {
    async post(url, headers, body) {
      const started = performance.now();
      const deadline = new AbortController();
      const timer = setTimeout(() => deadline.abort(), opts.timeoutMs ?? DEFAULT_TIMEOUT_MS);
      try {
        return await attemptPost(addresses, opts, pool, { url, headers, body }, deadline.signal, started);
      } catch (err) {
        return failureOf(classify(err), Math.round(performance.now() - started));
      } finally {
        clearTimeout(timer);
      }
    },
    close: () => pool.close(),
  };
}
