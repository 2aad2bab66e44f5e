/**
 * Token buckets kept in Deno KV, so every process that shares one KV shares the buckets.
 *
 * A bucket holds up to `burst` tokens and gains `rate` tokens per second. A call takes one token or is refused;
 * {@linkcode TokenBuckets.takeUpTo} takes as many whole tokens as the bucket holds, up to a number asked for (a
 * JSON-RPC batch takes one per message).
 * The state is written with an atomic check-and-set; calls for one key inside this process are serialised first,
 * because many concurrent writers on one KV key would conflict and retry. The last state this process wrote (or
 * read) is remembered with its versionstamp, so the usual call is one commit without a read: the commit's check
 * fails if another process changed the bucket meanwhile, and only then is the bucket read again. A caller never
 * seen is committed with the check "key absent". Writes of different callers that arrive while a commit is under
 * way are committed together in the next atomic operation (group commit, at most 100 checks each), so the KV's
 * per-commit cost is shared under load; each write keeps its own check, so the buckets stay exact.
 */
import { type Pseudonymise, rateBucketKey, type RateGroup } from "./kv_keys.ts";

/** Burst size and refill rate of one route group. */
export interface BucketRule {
  /** Tokens added per second. */
  rate: number;
  /** Maximum tokens (calls at once). */
  burst: number;
}

interface BucketState {
  tokens: number;
  at: number;
}

const MAX_RETRIES = 20;
/**
 * Buckets remembered per process. When more are known, the memory is cleared at once (forgetting only costs one
 * read later); evicting the oldest entry one by one would scan the Map's deleted slots on every call.
 */
const MAX_REMEMBERED = 50_000;

interface Remembered {
  state: BucketState | null;
  versionstamp: string | null;
}

/** Most checks Deno KV allows in one atomic operation. */
const MAX_BATCH = 100;

interface PendingWrite {
  key: Deno.KvKey;
  versionstamp: string | null;
  value: BucketState;
  expireIn: number;
  done: (versionstamp: string | null) => void;
  fail: (e: unknown) => void;
}

/** Commits checked writes in groups: one atomic operation for all writes that queued up during the last one. */
class GroupCommit {
  readonly #kv: Deno.Kv;
  #pending: PendingWrite[] = [];
  #running = false;

  constructor(kv: Deno.Kv) {
    this.#kv = kv;
  }

  /** Writes `value` if the key still has `versionstamp`; resolves the new versionstamp, or null on a conflict. */
  write(w: Omit<PendingWrite, "done" | "fail">): Promise<string | null> {
    return new Promise((done, fail) => {
      this.#pending.push({ ...w, done, fail });
      if (!this.#running) void this.#drain();
    });
  }

  async #drain(): Promise<void> {
    this.#running = true;
    while (this.#pending.length > 0) {
      const batch = this.#pending.splice(0, MAX_BATCH);
      try {
        const res = await this.#commit(batch);
        if (res.ok) { for (const w of batch) w.done(res.versionstamp); }
        else if (batch.length === 1) batch[0]!.done(null);
        else await Promise.all(batch.map(async (w) => w.done(await this.#commitOne(w)))); // find who conflicted
      } catch (e) {
        for (const w of batch) w.fail(e);
      }
    }
    this.#running = false;
  }

  async #commitOne(w: PendingWrite): Promise<string | null> {
    const res = await this.#commit([w]);
    return res.ok ? res.versionstamp : null;
  }

  #commit(batch: PendingWrite[]): Promise<Deno.KvCommitResult | Deno.KvCommitError> {
    return retryBusy(() => {
      const op = this.#kv.atomic();
      for (const w of batch) op.check({ key: w.key, versionstamp: w.versionstamp });
      for (const w of batch) op.set(w.key, w.value, { expireIn: w.expireIn });
      return op.commit();
    });
  }
}

/** Takes tokens from KV-backed buckets; one instance per KV handle. */
export class TokenBuckets {
  readonly #kv: Deno.Kv;
  readonly #now: () => number;
  readonly #tails = new Map<string, Promise<unknown>>();
  readonly #known = new Map<string, Remembered>();
  readonly #group: GroupCommit;
  /** The pseudonyms of the callers seen lately (computing one costs ~2 µs; most callers come back). */
  readonly #pseudonyms = new Map<string, string>();
  /** Turns personal data into the pseudonym a key carries. */
  readonly pseudonym: Pseudonymise;

  /**
   * Buckets over `kv` whose keys carry the `pseudonym` of each caller (`kvPseudonyms(AUTH_SECRET)`); `now` returns
   * milliseconds (a test clock may replace `Date.now`).
   */
  constructor(kv: Deno.Kv, opts: { pseudonym: Pseudonymise; now?: () => number }) {
    this.#kv = kv;
    this.#now = opts.now ?? Date.now;
    this.pseudonym = opts.pseudonym;
    this.#group = new GroupCommit(kv);
  }

  /**
   * Takes one token for `caller` (a client address or an account: personal data, which only its pseudonym
   * leaves this process as) in `group`; true when the call may proceed, false when the bucket is empty.
   */
  async take(group: RateGroup, caller: string, rule: BucketRule): Promise<boolean> {
    return await this.takeUpTo(group, caller, rule, 1) === 1;
  }

  /**
   * Takes up to `want` whole tokens for `caller` in `group` in one checked write and answers how many it took:
   * `want` when the bucket holds that many, else every whole token it holds (0 when it is empty).
   */
  takeUpTo(group: RateGroup, caller: string, rule: BucketRule, want: number): Promise<number> {
    const key = rateBucketKey(group, this.#pseudonymOf(caller));
    return this.#serialised(`${group}\u0000${caller}`, key, rule, want);
  }

  #pseudonymOf(caller: string): string {
    let p = this.#pseudonyms.get(caller);
    if (p === undefined) {
      if (this.#pseudonyms.size >= MAX_REMEMBERED) this.#pseudonyms.clear();
      this.#pseudonyms.set(caller, p = this.pseudonym(caller));
    }
    return p;
  }

  /**
   * Takes one token from the bucket at `key` (a key of `db/kv_keys.ts` outside the route groups, e.g. the
   * account-mail buckets); true when the call may proceed.
   */
  async takeKey(key: Deno.KvKey, rule: BucketRule): Promise<boolean> {
    return await this.#serialised(`key\u0000${key.map(String).join("\u0000")}`, key, rule, 1) === 1;
  }

  #serialised(id: string, key: Deno.KvKey, rule: BucketRule, want: number): Promise<number> {
    const previous = this.#tails.get(id) ?? Promise.resolve();
    const next = previous.then(() => this.#takeNow(id, key, rule, want));
    const tail = next.catch(() => {});
    this.#tails.set(id, tail);
    tail.then(() => {
      if (this.#tails.get(id) === tail) this.#tails.delete(id);
    });
    return next;
  }

  async #takeNow(id: string, key: Deno.KvKey, rule: BucketRule, want: number): Promise<number> {
    let known = this.#known.get(id) ?? { state: null, versionstamp: null };
    for (let i = 0; i < MAX_RETRIES; i++) {
      const now = this.#now();
      const tokens = refill(known.state, rule, now);
      // Remembered state is an upper bound of the stored one (other processes only take tokens), so an empty
      // bucket in memory is empty in KV too.
      const taken = Math.min(want, Math.floor(tokens));
      if (taken < 1) return 0;
      const state = { tokens: tokens - taken, at: now } satisfies BucketState;
      const versionstamp = await this.#group.write({
        key,
        versionstamp: known.versionstamp,
        value: state,
        expireIn: refillMs(state.tokens, rule),
      });
      if (versionstamp !== null) {
        this.#remember(id, { state, versionstamp });
        return taken;
      }
      // Another process changed the bucket meanwhile: read the stored state and try again.
      const entry = await retryBusy(() => this.#kv.get<BucketState>(key));
      known = { state: entry.value, versionstamp: entry.versionstamp };
      this.#remember(id, known);
    }
    throw new Error("token bucket: too many write conflicts");
  }

  #remember(id: string, r: Remembered): void {
    if (this.#known.size >= MAX_REMEMBERED && !this.#known.has(id)) this.#known.clear();
    this.#known.set(id, r);
  }
}

/**
 * Runs a KV operation again when another process holds the KV file's write lock ("database is locked"), with a
 * short random pause, up to 50 times.
 */
async function retryBusy<T>(op: () => Promise<T>): Promise<T> {
  for (let i = 0;; i++) {
    try {
      return await op();
    } catch (e) {
      if (i >= 50 || !(e instanceof Error) || !/database is locked|busy/i.test(e.message)) throw e;
      await new Promise((r) => setTimeout(r, 1 + Math.random() * 4));
    }
  }
}

/** Tokens in a bucket at `now` given its stored state (absent state = a full bucket). */
export function refill(state: BucketState | null, rule: BucketRule, now: number): number {
  if (!state) return rule.burst;
  const elapsed = Math.max(0, now - state.at) / 1000;
  return Math.min(rule.burst, state.tokens + elapsed * rule.rate);
}

/** Milliseconds until a bucket holding `tokens` is full again (after that its key may expire). */
function refillMs(tokens: number, rule: BucketRule): number {
  return Math.ceil(((rule.burst - tokens) / rule.rate) * 1000) + 60_000;
}
