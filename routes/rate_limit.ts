/** Rate-limit middleware: the token buckets of docs/contract.md §9, one per route group and caller. */
import type { MiddlewareHandler } from "hono";
import type { BucketRule } from "../db/token_bucket.ts";
import type { RateGroup } from "../db/kv_keys.ts";
import { AppError } from "../errors.ts";
import { callerKey } from "./client_address.ts";
import type { AppDeps } from "../deps.ts";
import type { AppEnv } from "./env.ts";

/** Burst and refill rate per route group (docs/contract.md §9). */
export const RATE_RULES: Record<RateGroup, BucketRule> = {
  catalogue: { rate: 2, burst: 10 },
  valuation: { rate: 3, burst: 15 },
  mcp: { rate: 1, burst: 30 },
  write: { rate: 1, burst: 60 },
  // Sign-in attempts (not in docs/contract.md §9): per e-mail address and per client address, 5 at once, then one a minute.
  signin: { rate: 1 / 60, burst: 5 },
};

/** Takes a token of `group` for the caller, or answers 429 `{error: "rate_limited"}` (no Retry-After). */
export function rateLimit(deps: AppDeps, group: RateGroup): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    if (deps.config.rateLimit) {
      const ok = await deps.buckets.take(group, callerKey(c, deps.config.trustProxy), RATE_RULES[group]);
      if (!ok) throw new AppError("rate_limited");
    }
    await next();
  };
}

/** The methods that count in the write bucket. */
export const WRITE_METHODS: ReadonlySet<string> = new Set(["POST", "PUT", "PATCH", "DELETE"]);

/**
 * The write bucket (docs/contract.md §9: every POST, PUT, PATCH and DELETE outside the MCP servers): each sub-app that takes
 * writes uses it, and so do the answers for unknown paths (404) and methods (405); a request is counted once
 * however many of them it meets. The MCP endpoint and the location baseline have buckets of their own.
 */
export function writeLimit(deps: AppDeps): MiddlewareHandler<AppEnv> {
  const limit = rateLimit(deps, "write");
  return async (c, next) => {
    if (!WRITE_METHODS.has(c.req.method) || c.get("writeCounted")) return await next();
    c.set("writeCounted", true);
    return await limit(c, next);
  };
}
