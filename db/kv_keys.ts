/**
 * The whole Deno KV key schema in one place. Every KV key the service reads or writes is built here.
 */

/** Rate-limit groups of docs/contract.md §9. */
export type RateGroup = "catalogue" | "valuation" | "mcp" | "write" | "signin";

/** Key of one caller's token bucket in one route group: `["rate", group, caller]`. */
export function rateBucketKey(group: RateGroup, caller: string): Deno.KvKey {
  return ["rate", group, caller];
}

/** Key probed by the health check: `["health"]`. */
export function healthKey(): Deno.KvKey {
  return ["health"];
}
