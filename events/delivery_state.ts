/**
 * What the delivery loop (`events/delivery.ts`) keeps between attempts, owned by one event runtime
 * (`events/runtime.ts`), so two apps in one process share none of it: the limits on attempts in flight and on
 * drained batches in sending, the batcher of attempt records of the runtime's database, and the memos of
 * parsed subscription addresses and of event bodies.
 */
import type { Db } from "../db/connection.ts";
import { type AttemptRecord, recordAttempt, recordAttempts } from "../db/deliveries.ts";
import { type AttemptNote, noteDeliveryState } from "../db/subscription_state.ts";

/** Attempts in flight at once in one runtime. */
const MAX_IN_FLIGHT = 64;
/**
 * Drained batches whose (already claimed) first attempts are being sent at once: later drains wait, so
 * claimed attempts never wait long for a slot.
 */
const MAX_BATCHES = 4;
/** Records wait at most this long for companions before they are written. */
const FLUSH_MS = 10;
/** A batch of records is written at once when it reaches this size. */
const FLUSH_AT = 100;
/** The most subscription addresses kept parsed; all are forgotten beyond. */
const MAX_URLS = 10_000;

/** Runs `job` once fewer than the limit's number of jobs are running; the others wait in order. */
export type Limited = <T>(job: () => Promise<T>) => Promise<T>;

/** A runner that lets at most `max` jobs run at once; the others wait in order. */
function limiter(max: number): Limited {
  let running = 0;
  const waiting: Array<() => void> = [];
  return async (job) => {
    if (running >= max) await new Promise<void>((r) => waiting.push(r));
    else running++;
    try {
      return await job();
    } finally {
      const next = waiting.shift();
      if (next) next();
      else running--;
    }
  };
}

/**
 * Collects attempt records and writes them in few statements ({@linkcode recordAttempts}: each log row with
 * its delivery's state), then notes what they tell on their subscriptions ({@linkcode noteDeliveryState}: last
 * delivery, last failure, suspension); `add` resolves once both committed. A failed batch is retried record by
 * record.
 */
export class Recorder {
  #db: Db;
  #batch: { records: AttemptRecord[]; done: PromiseWithResolvers<void> } | undefined;
  #timer: ReturnType<typeof setTimeout> | undefined;

  constructor(db: Db) {
    this.#db = db;
  }

  /** Adds `record` to the next batch; resolves once that batch committed. */
  add(record: AttemptRecord): Promise<void> {
    const batch = this.#batch ??= { records: [], done: Promise.withResolvers<void>() };
    batch.records.push(record);
    if (batch.records.length >= FLUSH_AT) this.#flush();
    else this.#timer ??= setTimeout(() => this.#flush(), FLUSH_MS);
    return batch.done.promise;
  }

  #flush(): void {
    clearTimeout(this.#timer);
    this.#timer = undefined;
    const batch = this.#batch;
    this.#batch = undefined;
    if (!batch) return;
    recordAttempts(this.#db, batch.records)
      .catch(() => Promise.all(batch.records.map((r) => recordAttempt(this.#db, r))))
      .then(() => noteDeliveryState(this.#db, batch.records.flatMap(noteOf)))
      .then(() => batch.done.resolve(), batch.done.reject);
  }
}

/** What a recorded attempt tells its subscription: a delivery, or a failure with its category; else nothing. */
function noteOf(r: AttemptRecord): AttemptNote[] {
  const ok = r.outcome === "delivered";
  if (!ok && (r.outcome === "gone" || r.outcome === "dropped" || r.category === null)) return [];
  return [{
    subscriptionId: r.subscriptionId,
    deliveryId: r.deliveryId,
    at: new Date(r.startedAt.getTime() + r.durationMs),
    ok,
    category: ok ? null : r.category,
    suspend: r.suspend ?? false,
  }];
}

/** An event's body as sent, and whether it is too large to send. */
export interface EventBody {
  body: string;
  tooLarge: boolean;
}

/** What a runtime holds while it sends: given back when its process stops (`handBackDeliveries`). */
export interface HeldDeliveries {
  /** Set once the work was handed back: nothing is recorded or claimed any more. */
  stopped: boolean;
  /** The outbox rows of drained batches being sent, and until when they are held. */
  holds: Set<{ held: Set<string>; until: Date }>;
  /** Deliveries whose claimed attempt is being made. */
  attempts: Set<string>;
}

/** The delivery loop's state of one event runtime. */
export class DeliveryState {
  /** What this runtime holds while sending. */
  readonly held: HeldDeliveries = { stopped: false, holds: new Set(), attempts: new Set() };
  /** Runs an attempt's claim and POST when fewer than {@linkcode MAX_IN_FLIGHT} are running. */
  readonly limited: Limited = limiter(MAX_IN_FLIGHT);
  /** Runs a first-attempt batch when fewer than {@linkcode MAX_BATCHES} are being sent. */
  readonly batchLimited: Limited = limiter(MAX_BATCHES);
  /** Writes the attempt records of the runtime's database in batches. */
  readonly recorder: Recorder;
  /**
   * Parsed subscription addresses (the client does not change them): parsing one per attempt was ~0.6 % of
   * the sending thread's profile samples in `bench:events`.
   */
  #urls = new Map<string, URL>();
  /**
   * The body of each event sent lately, by its data object: the attempts of one event drained together share
   * that object (one per event), so its body is built and measured once, not per subscription.
   */
  #bodies = new WeakMap<object, EventBody & { eventId: string }>();

  constructor(db: Db) {
    this.recorder = new Recorder(db);
  }

  /** `url` parsed (kept for the next attempts to the same address). */
  url(url: string): URL {
    let parsed = this.#urls.get(url);
    if (!parsed) {
      if (this.#urls.size >= MAX_URLS) this.#urls.clear();
      this.#urls.set(url, parsed = new URL(url));
    }
    return parsed;
  }

  /** The body of event `eventId` whose data object is `data`: built by `make` once, then remembered. */
  body(data: object, eventId: string, make: () => EventBody): EventBody {
    const known = this.#bodies.get(data);
    if (known?.eventId === eventId) return known;
    const made = { eventId, ...make() };
    this.#bodies.set(data, made);
    return made;
  }
}
