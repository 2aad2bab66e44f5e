/**
 * HTTP/1.1 on one connection for the webhook client (`events/http_client.ts`): the request bytes of a POST, and
 * the buffered reading of answers (status line and headers, `content-length`, chunked or until the end), each
 * capped.
 */
/** Largest response head (status line and headers) read. */
export const MAX_HEAD_BYTES = 16 * 1024;

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
export function requestBytes(
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

/** Writes all of `data` to `conn`. */
export async function writeAll(conn: Deno.Conn, data: Uint8Array): Promise<void> {
  for (let at = 0; at < data.byteLength;) at += await conn.write(data.subarray(at));
}

/**
 * Buffered reading of responses from a connection, one at a time: {@linkcode ConnPool.incomingOf} keeps one per
 * connection, so its buffer is allocated once per connection, not once per request (allocating it per request
 * cost ~3 % of the sending thread in `bench:events`).
 */
export class Incoming {
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
export class HeadTooLarge extends Error {}

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
export class Capped {
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
export interface Head {
  status: number;
  minor: number;
  headers: Map<string, string>;
}

/** Parses a response head (status line and headers, without the blank line); throws when malformed. */
export function parseHead(text: string): Head {
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

/** Reads the body of `head` into `body`; true when the connection may carry another request afterwards. */
export async function readBody(incoming: Incoming, head: Head, body: Capped): Promise<boolean> {
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

/** The host name for TLS: brackets and a trailing dot removed. */
export function connectHost(url: URL): string {
  const h = url.hostname;
  if (h.startsWith("[")) return h.slice(1, -1);
  return h.endsWith(".") ? h.slice(0, -1) : h;
}
