/**
 * Token buckets kept in Deno KV, so every process that shares one KV shares the buckets.
 *
 * A bucket holds up to `burst` tokens and gains `rate` tokens per second. A call takes one token or is refused.
 * The state is written with an atomic check-and-set; calls for one key inside this process are serialised first,
 * because many concurrent writers on one KV key would conflict and retry.
 */
import { rateBucketKey, type RateGroup } from "./kv_keys.ts";

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

/** Takes tokens from KV-backed buckets; one instance per KV handle. */
export class TokenBuckets {
  readonly #kv: Deno.Kv;
  readonly #now: () => number;
  readonly #tails = new Map<string, Promise<unknown>>();

  /** `now` returns milliseconds (a test clock may replace `Date.now`). */
  constructor(kv: Deno.Kv, now: () => number = Date.now) {
    this.#kv = kv;
    this.#now = now;
  }

  /** Takes one token for `caller` in `group`; true when the call may proceed, false when the bucket is empty. */
  take(group: RateGroup, caller: string, rule: BucketRule): Promise<boolean> {
    const key = rateBucketKey(group, caller);
    const id = `${group}\u0000${caller}`;
    const previous = this.#tails.get(id) ?? Promise.resolve();
    const next = previous.then(() => this.#takeNow(key, rule));
    const tail = next.catch(() => {});
    this.#tails.set(id, tail);
    tail.then(() => {
      if (this.#tails.get(id) === tail) this.#tails.delete(id);
    });
    return next;
  }

  async #takeNow(key: Deno.KvKey, rule: BucketRule): Promise<boolean> {
    for (let i = 0; i < MAX_RETRIES; i++) {
      const entry = await this.#kv.get<BucketState>(key);
      const now = this.#now();
      const tokens = refill(entry.value, rule, now);
      if (tokens < 1) return false;
      const left = tokens - 1;
      const res = await this.#kv.atomic()
        .check(entry)
        .set(key, { tokens: left, at: now } satisfies BucketState, { expireIn: refillMs(left, rule) })
        .commit();
      if (res.ok) return true;
    }
    throw new Error("token bucket: too many write conflicts");
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
