/**
 * The connections of the webhook client (`events/http_client.ts`): TCP to a pinned, vetted address with TLS
 * verified against the URL's host name, kept alive per (host name, port, IP) in a bounded pool, and the deadlines
 * that bound each attempt on one timer per client.
 */
import { Incoming } from "./http_client_wire.ts";

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

/** How often running attempts are checked against their deadlines: a timeout fires at most this much late. */
const DEADLINE_TICK_MS = 20;

/**
 * The time limit of one attempt: once passed, `expired` is true and the registered callbacks ran (each once).
 * Cheaper per attempt than an `AbortController` with a timer of its own (their listeners and timers were ~4 % of
 * the sending thread's profile samples in `bench:events`); the {@linkcode Deadlines} of a client check all running
 * ones on one timer.
 */
export class Deadline {
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
export class Deadlines {
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

/** Closes `conn`, ignoring that it may be closed already. */
export function closeQuietly(conn: Deno.Conn): void {
  try {
    conn.close();
  } catch { /* already closed */ }
}

/** Kept-alive connections of one (host, port, IP): the idle ones, how many are in use, who waits for one. */
export interface Slot {
  idle: Array<{ conn: Deno.TlsConn; since: number }>;
  busy: number;
  waiting: Array<() => void>;
}

/** Connections per (host name, port, vetted IP), at most {@linkcode MAX_SOCKETS_PER_POOL} each, LRU-bounded. */
export class ConnPool {
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
export async function openConn(
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
