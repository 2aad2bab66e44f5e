/**
 * A fake mail server for tests that speaks real SMTP over TCP (Deno.listen on 127.0.0.1): EHLO, STARTTLS offer,
 * AUTH PLAIN/LOGIN, MAIL, RCPT, DATA; it records every session and can refuse recipients or stay silent. Its
 * options may be changed while it runs (a server that refuses first and accepts later). Also: decoding what it
 * received (headers with RFC 2047 words, quoted-printable and Base64 bodies).
 */
import assert from "node:assert/strict";

/** One SMTP session as the fake server saw it. */
export interface Session {
  ehlo: string[];
  auth: Array<{ method: string; user: string; pass: string }>;
  mailFrom: string[];
  rcptTo: string[];
  /** Raw DATA payload lines (still dot-stuffed), without the terminating ".". */
  data: string[][];
  /** Whether the client started a TLS handshake right after the server's go-ahead for STARTTLS. */
  tlsHello: boolean;
}

/** How the fake server behaves. */
export interface FakeOptions {
  authMethods?: string[];
  rcptReply?: string;
  authReply?: string;
  starttls?: boolean;
  /** Accept connections but never greet. */
  silent?: boolean;
}

/** A running fake server: its port, the sessions it saw, and how to stop it. */
export interface Fake {
  port: number;
  sessions: Session[];
  /** The options the server reads for every new command: change them to change its behaviour. */
  options: FakeOptions;
  close(): Promise<void>;
}

const enc = new TextEncoder();
const dec = new TextDecoder();

/** Starts the fake SMTP server on 127.0.0.1 and an ephemeral port. */
export function fakeSmtp(opts: FakeOptions = {}): Fake {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const sessions: Session[] = [];
  const conns = new Set<Deno.Conn>();
  const running: Promise<void>[] = [];
  const accepting = (async () => {
    for await (const conn of listener) {
      conns.add(conn);
      const s: Session = {
        ehlo: [],
        auth: [],
        mailFrom: [],
        rcptTo: [],
        data: [],
        tlsHello: false,
      };
      sessions.push(s);
      running.push(
        serveSession(conn, s, opts).catch(() => {}).finally(() => {
          conns.delete(conn);
          try {
            conn.close();
          } catch { /* already closed */ }
        }),
      );
    }
  })().catch(() => {});
  return {
    port: (listener.addr as Deno.NetAddr).port,
    sessions,
    options: opts,
    async close() {
      listener.close();
      for (const c of conns) {
        try {
          c.close();
        } catch { /* already closed */ }
      }
      await accepting;
      await Promise.all(running);
    },
  };
}

/** Reads CRLF-terminated lines from a connection. */
class LineReader {
  #buf = new Uint8Array(0);
  constructor(private conn: Deno.Conn) {}

  async line(): Promise<string | null> {
    while (true) {
      const i = this.#buf.findIndex((b, k) => b === 13 && this.#buf[k + 1] === 10);
      if (i >= 0) {
        const out = dec.decode(this.#buf.subarray(0, i));
        this.#buf = this.#buf.slice(i + 2);
        return out;
      }
      if (!await this.fill()) return null;
    }
  }

  /** The next raw byte (for the TLS ClientHello check). */
  async byte(): Promise<number | null> {
    if (this.#buf.length === 0 && !await this.fill()) return null;
    return this.#buf[0] ?? null;
  }

  private async fill(): Promise<boolean> {
    const chunk = new Uint8Array(4096);
    const n = await this.conn.read(chunk);
    if (n === null) return false;
    const next = new Uint8Array(this.#buf.length + n);
    next.set(this.#buf);
    next.set(chunk.subarray(0, n), this.#buf.length);
    this.#buf = next;
    return true;
  }
}

const b64 = (s: string) => new TextDecoder().decode(Uint8Array.from(atob(s), (c) => c.charCodeAt(0)));

async function serveSession(conn: Deno.Conn, s: Session, opts: FakeOptions): Promise<void> {
  const say = (text: string) => conn.write(enc.encode(`${text}\r\n`));
  const r = new LineReader(conn);
  if (opts.silent) {
    await r.line();
    return;
  }
  await say("220 fake.test ESMTP ready");
  const methods = opts.authMethods ?? ["PLAIN", "LOGIN"];
  while (true) {
    const line = await r.line();
    if (line === null) return;
    const [verb = "", ...rest] = line.split(" ");
    const arg = rest.join(" ");
    switch (verb.toUpperCase()) {
      case "EHLO":
        s.ehlo.push(arg);
        await say(
          [
            "250-fake.test",
            ...(opts.starttls ? ["250-STARTTLS"] : []),
            `250-AUTH ${methods.join(" ")}`,
            "250 8BITMIME",
          ]
            .join("\r\n"),
        );
        break;
      case "STARTTLS":
        await say("220 go ahead");
        s.tlsHello = (await r.byte()) === 0x16;
        return;
      case "AUTH":
        await auth(r, say, s, arg, opts);
        break;
      case "MAIL":
        s.mailFrom.push(arg);
        await say("250 sender ok");
        break;
      case "RCPT":
        s.rcptTo.push(arg);
        await say(opts.rcptReply ?? "250 recipient ok");
        break;
      case "DATA":
        await say("354 end with <CRLF>.<CRLF>");
        s.data.push(await readData(r));
        await say("250 2.0.0 queued as FAKE1");
        break;
      case "QUIT":
        await say("221 bye");
        return;
      default:
        await say("250 ok");
    }
  }
}

async function auth(
  r: LineReader,
  say: (t: string) => Promise<number>,
  s: Session,
  arg: string,
  opts: FakeOptions,
): Promise<void> {
  const [method = "", initial] = arg.split(" ");
  if (method.toUpperCase() === "PLAIN") {
    let resp = initial;
    if (!resp) {
      await say("334 ");
      resp = (await r.line()) ?? "";
    }
    const [, user = "", pass = ""] = b64(resp).split("\0");
    s.auth.push({ method: "PLAIN", user, pass });
  } else {
    await say(`334 ${btoa("Username:")}`);
    const user = b64((await r.line()) ?? "");
    await say(`334 ${btoa("Password:")}`);
    const pass = b64((await r.line()) ?? "");
    s.auth.push({ method: "LOGIN", user, pass });
  }
  await say(opts.authReply ?? "235 2.7.0 authenticated");
}

async function readData(r: LineReader): Promise<string[]> {
  const lines: string[] = [];
  while (true) {
    const line = await r.line();
    if (line === null || line === ".") return lines;
    lines.push(line);
  }
}

// --- decoding what the server received ----------------------------------------------------------------------

/** Splits a received message into unfolded headers (lower-case names) and its still-encoded body lines. */
export function parseMessage(raw: string[]): { headers: Map<string, string>; bodyLines: string[] } {
  const unstuffed = raw.map((l) => l.startsWith(".") ? l.slice(1) : l);
  const blank = unstuffed.indexOf("");
  const headers = new Map<string, string>();
  let last = "";
  for (const l of unstuffed.slice(0, blank)) {
    if (/^[ \t]/.test(l)) headers.set(last, `${headers.get(last)}\r\n${l}`);
    else {
      last = l.slice(0, l.indexOf(":")).toLowerCase();
      headers.set(last, l.slice(l.indexOf(":") + 1).trim());
    }
  }
  return { headers, bodyLines: unstuffed.slice(blank + 1) };
}

/** Decodes RFC 2047 encoded words (Q and B, UTF-8) of an unfolded header value. */
export function decodeHeader(value: string): string {
  const unfolded = value.replace(/\r\n[ \t]/g, " ");
  const joined = unfolded.replace(/(\?=)\s+(=\?)/g, "$1$2");
  return joined.replace(/=\?utf-8\?([qb])\?([^?]*)\?=/gi, (_m, kind: string, text: string) => {
    if (kind.toLowerCase() === "b") return b64(text);
    return qpBytes(text.replaceAll("_", " "));
  });
}

/** Decodes quoted-printable text (soft line breaks already removed) as UTF-8. */
function qpBytes(text: string): string {
  const bytes: number[] = [];
  for (let i = 0; i < text.length; i++) {
    if (text[i] === "=" && /^[0-9A-F]{2}$/i.test(text.slice(i + 1, i + 3))) {
      bytes.push(parseInt(text.slice(i + 1, i + 3), 16));
      i += 2;
    } else bytes.push(...enc.encode(text[i]!));
  }
  return dec.decode(new Uint8Array(bytes));
}

/** The body text of a received single-part message, decoded by its Content-Transfer-Encoding. */
function decodeBody(headers: Map<string, string>, lines: string[]): string {
  const cte = (headers.get("content-transfer-encoding") ?? "7bit").toLowerCase();
  if (cte === "base64") return b64(lines.join(""));
  if (cte === "quoted-printable") return qpBytes(lines.join("\r\n").replace(/=\r\n/g, ""));
  return lines.join("\r\n");
}

/** Everything a test needs about the one message of a session (header names lower-case, values still encoded). */
export function received(s: Session) {
  assert.equal(s.data.length, 1, "one message in the session");
  const { headers, bodyLines } = parseMessage(s.data[0]!);
  return {
    raw: s.data[0]!,
    headers,
    from: decodeHeader(headers.get("from") ?? ""),
    to: decodeHeader(headers.get("to") ?? ""),
    subject: decodeHeader(headers.get("subject") ?? ""),
    contentType: headers.get("content-type") ?? "",
    body: decodeBody(headers, bodyLines).replace(/\r\n/g, "\n"),
  };
}

/** A port on 127.0.0.1 that nothing listens on. */
export function closedPort(): number {
  const l = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (l.addr as Deno.NetAddr).port;
  l.close();
  return port;
}
