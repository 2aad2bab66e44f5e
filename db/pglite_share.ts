/**
 * Sharing one embedded PGlite between this process and operator tasks in other processes.
 *
 * PGlite is a single Postgres backend: whoever talks to it must have it alone from the first message of a request
 * to the end of its transaction. {@linkcode Gate} is that one lock. This process's own queries pass it through
 * {@linkcode gatedPglite} (handed to kysely's PGlite dialect), and every session of {@linkcode servePglite} (other
 * processes speaking the Postgres wire protocol over a unix socket) takes it at its first message and keeps it until
 * the backend is idle again: `ReadyForQuery` with status `I`, i.e. after the `Sync` of an extended-protocol batch and
 * outside a transaction block. A session that holds it and stays silent longer than the idle limit, or goes away,
 * is rolled back and the gate released.
 *
 * Why not `@electric-sql/pglite-socket`: its queue pins a connection only while a transaction is open, so two
 * clients' Parse/Bind/Execute batches interleave on the one backend (electric-sql/pglite issue 1046), and its lock
 * cannot be shared with queries made in this process, which would run inside another client's transaction.
 */
import type { PGlite } from "@electric-sql/pglite";
import type { PGliteDialectConfig } from "kysely";

/** A lock with one holder at a time, granted in arrival order. */
export class Gate {
  #tail: Promise<void> = Promise.resolve();

  /** Waits for the gate and returns the function that releases it (calling it twice does nothing). */
  async acquire(): Promise<() => void> {
    const previous = this.#tail;
    let open!: () => void;
    this.#tail = new Promise<void>((resolve) => (open = resolve));
    await previous;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      open();
    };
  }

  /** Runs `fn` while holding the gate. */
  async run<T>(fn: () => Promise<T>): Promise<T> {
    const release = await this.acquire();
    try {
      return await fn();
    } finally {
      release();
    }
  }
}

/** The PGlite instance as kysely's PGlite dialect sees it, with every statement and transaction behind `gate`. */
export function gatedPglite(pg: PGlite, gate: Gate): PGliteDialectConfig["pglite"] {
  return {
    get closed() {
      return pg.closed;
    },
    get ready() {
      return pg.ready;
    },
    waitReady: pg.waitReady,
    close: () => pg.close(),
    query: (sql, params, options) => gate.run(() => pg.query(sql, params, options)),
    transaction: (fn) => gate.run(() => pg.transaction(fn)),
  };
}

/** Limits of a shared session. */
export interface ShareOptions {
  /** A session holding the database (inside a transaction or a batch) is ended after this much silence. */
  idleInTransactionMs?: number;
  /** Largest single protocol message accepted (bytes). */
  maxMessageBytes?: number;
  /** Receives one line per session that was ended by force (never SQL or data). */
  warn?: (msg: string, fields: Record<string, unknown>) => void;
}

/** A running wire-protocol server; {@linkcode PgliteServer.close} stops accepting and ends every session. */
export interface PgliteServer {
  /** The unix socket path. */
  readonly path: string;
  /** Stops accepting, waits up to `graceMs` for open sessions to end, then ends them (rolling back). */
  close(graceMs?: number): Promise<void>;
}

const SSL_REQUEST = 80877103;
const GSSENC_REQUEST = 80877104;
const PROTOCOL_3 = 196608;
const NO = new Uint8Array([0x4e]); // 'N': no SSL / GSS encryption here
const TERMINATE = 0x58; // 'X'
const READY_FOR_QUERY = 0x5a; // 'Z'
const IDLE = 0x49; // 'I'

/**
 * Serves `pg` on a unix socket at `path` (mode 0600: only this user). Every session goes through `gate`. Clients
 * must not use named prepared statements (the backend and its statements are shared): postgres.js with
 * `prepare: false`, psql as it is.
 */
export async function servePglite(
  pg: PGlite,
  gate: Gate,
  path: string,
  opts: ShareOptions = {},
): Promise<PgliteServer> {
  await Deno.remove(path).catch(() => {});
  const listener = Deno.listen({ transport: "unix", path });
  await Deno.chmod(path, 0o600);
  const sessions = new Set<Session>();
  const accepting = (async () => {
    for await (const conn of listener) {
      const session = new Session(conn, pg, gate, opts);
      sessions.add(session);
      session.done.finally(() => sessions.delete(session));
    }
  })().catch(() => {});
  return {
    path,
    async close(graceMs = 5_000) {
      listener.close();
      await accepting;
      const all = [...sessions].map((s) => s.done);
      const timer = new Promise<void>((resolve) => setTimeout(resolve, graceMs));
      await Promise.race([Promise.all(all), timer]);
      for (const s of sessions) s.end();
      await Promise.all(all);
      await Deno.remove(path).catch(() => {});
    },
  };
}

/** One client connection: frames its messages, runs them on the backend, and holds the gate while it must. */
class Session {
  readonly done: Promise<void>;
  #buf: Uint8Array = new Uint8Array(0);
  #started = false;
  #release: (() => void) | undefined;
  #ended = false;

  constructor(
    private readonly conn: Deno.UnixConn,
    private readonly pg: PGlite,
    private readonly gate: Gate,
    private readonly opts: ShareOptions,
  ) {
    this.done = this.#run().catch(() => {}).finally(() => this.#finish());
  }

  /** Ends the session at once (its open transaction is rolled back). */
  end(): void {
    this.#ended = true;
    try {
      this.conn.close();
    } catch { /* already closed */ }
  }

  async #run(): Promise<void> {
    const reader = this.conn.readable.getReader();
    try {
      while (!this.#ended) {
        const chunk = await this.#read(reader);
        if (!chunk) return;
        this.#buf = concat([this.#buf, chunk]);
        const out: Uint8Array[] = [];
        const keepGoing = await this.#handleFrames(out);
        if (out.length) await writeAll(this.conn, concat(out));
        if (!keepGoing) return;
      }
    } finally {
      reader.releaseLock();
    }
  }

  /** The next chunk, or undefined at the end; a session holding the gate gets the idle limit. */
  async #read(reader: ReadableStreamDefaultReader<Uint8Array>): Promise<Uint8Array | undefined> {
    if (!this.#release) {
      const { value, done } = await reader.read();
      return done ? undefined : value;
    }
    const limit = this.opts.idleInTransactionMs ?? 30_000;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const timeout = new Promise<"timeout">((
      resolve,
    ) => (timer = setTimeout(() => resolve("timeout"), limit)));
    try {
      const r = await Promise.race([reader.read(), timeout]);
      if (r === "timeout") {
        this.opts.warn?.("embedded database session ended: idle in transaction", { idleMs: limit });
        return undefined;
      }
      return r.done ? undefined : r.value;
    } finally {
      clearTimeout(timer);
    }
  }

  /** Runs every complete frame in the buffer; returns false when the session must end. */
  async #handleFrames(out: Uint8Array[]): Promise<boolean> {
    for (;;) {
      const frame = this.#nextFrame();
      if (frame === undefined) return true;
      if (frame === "too_large") return false;
      if (!this.#started) {
        const code = readInt32(frame, 4);
        if (code === SSL_REQUEST || code === GSSENC_REQUEST) {
          out.push(NO);
          continue;
        }
        // A cancel request (80877102) or an unknown protocol ends the connection; nothing runs in parallel to cancel.
        if (code !== PROTOCOL_3) return false;
        this.#started = true;
      } else if (frame[0] === TERMINATE) {
        return false;
      }
      out.push(await this.#execute(frame));
    }
  }

  /** Cuts the next complete message off the buffer (startup messages have no type byte). */
  #nextFrame(): Uint8Array | "too_large" | undefined {
    const head = this.#started ? 1 : 0;
    if (this.#buf.length < head + 4) return undefined;
    const size = head + readInt32(this.#buf, head);
    if (size < head + 4 || size > (this.opts.maxMessageBytes ?? 256 * 1024 * 1024)) return "too_large";
    if (this.#buf.length < size) return undefined;
    const frame = this.#buf.slice(0, size);
    this.#buf = this.#buf.subarray(size);
    return frame;
  }

  /** Sends one message to the backend, taking the gate first and releasing it once the backend is idle. */
  async #execute(frame: Uint8Array): Promise<Uint8Array> {
    this.#release ??= await this.gate.acquire();
    const reply = await this.pg.execProtocolRaw(frame);
    if (readyStatus(reply) === IDLE) {
      this.#release();
      this.#release = undefined;
    }
    return reply;
  }

  /** Closes the connection; a session that still held the gate is rolled back before it lets go. */
  async #finish(): Promise<void> {
    this.end();
    const release = this.#release;
    this.#release = undefined;
    if (!release) return;
    try {
      await this.pg.execProtocolRaw(syncMessage());
      await this.pg.execProtocolRaw(queryMessage("rollback"));
    } catch { /* the backend answers what it can; the gate is released regardless */ }
    release();
  }
}

/** The transaction status of the last `ReadyForQuery` in `reply`, or undefined when there is none. */
export function readyStatus(reply: Uint8Array): number | undefined {
  let status: number | undefined;
  for (let i = 0; i + 5 <= reply.length;) {
    const len = readInt32(reply, i + 1);
    if (reply[i] === READY_FOR_QUERY && len === 5 && i + 5 < reply.length) status = reply[i + 5];
    i += 1 + Math.max(len, 4);
  }
  return status;
}

function readInt32(b: Uint8Array, at: number): number {
  return ((b[at]! << 24) | (b[at + 1]! << 16) | (b[at + 2]! << 8) | b[at + 3]!) >>> 0;
}

function syncMessage(): Uint8Array {
  return new Uint8Array([0x53, 0, 0, 0, 4]);
}

function queryMessage(text: string): Uint8Array {
  const body = new TextEncoder().encode(`${text}\0`);
  const out = new Uint8Array(5 + body.length);
  out[0] = 0x51;
  new DataView(out.buffer).setUint32(1, 4 + body.length);
  out.set(body, 5);
  return out;
}

function concat(parts: Uint8Array[]): Uint8Array {
  if (parts.length === 1) return parts[0]!;
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

async function writeAll(conn: Deno.Conn, data: Uint8Array): Promise<void> {
  for (let at = 0; at < data.length;) at += await conn.write(data.subarray(at));
}
