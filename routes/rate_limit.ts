/** Rate-limit middleware: the token buckets of spec §8, one per route group and caller. */
import type { MiddlewareHandler } from "hono";
import type { BucketRule } from "../db/token_bucket.ts";
import type { RateGroup } from "../db/kv_keys.ts";
import { AppError } from "../errors.ts";
import { callerKey } from "./client_address.ts";
import type { AppDeps, AppEnv } from "./env.ts";

/** Burst and refill rate per route group (spec §8). */
export const RATE_RULES: Record<RateGroup, BucketRule> = {
  catalogue: { rate: 2, burst: 10 },
  valuation: { rate: 3, burst: 15 },
  mcp: { rate: 1, burst: 30 },
  write: { rate: 1, burst: 60 },
  // Sign-in attempts (not in spec §8): per e-mail address and per client address, 5 at once, then one a minute.
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

const WRITE_METHODS = new Set(["POST", "PUT", "PATCH", "DELETE"]);

/**
 * The write bucket for every POST, PUT, PATCH and DELETE outside the MCP servers. Paths in `ownBucket` have a
 * bucket of their own (the location baseline) and are not counted here.
 */
export function writeLimit(deps: AppDeps, ownBucket: string[]): MiddlewareHandler<AppEnv> {
  const limit = rateLimit(deps, "write");
  return async (c, next) => {
    const path = c.req.path;
    if (
      !WRITE_METHODS.has(c.req.method) || path === "/mcp" || path.startsWith("/mcp/") ||
      ownBucket.includes(path)
    ) {
      return await next();
    }
    return await limit(c, next);
  };
}
