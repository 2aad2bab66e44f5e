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

/** The kinds of account mail that are rate-limited per address (`auth/account_mail.ts`). */
export type AccountMailKind = "verify" | "reset";

/**
 * Key of one address's account-mail bucket: `["account_mail", kind, window, addressHash]`. The address is
 * given as a hash (`auth/account_mail.ts`), so KV holds no e-mail address.
 */
export function accountMailKey(
  kind: AccountMailKind,
  window: "short" | "day",
  addressHash: string,
): Deno.KvKey {
  return ["account_mail", kind, window, addressHash];
}
