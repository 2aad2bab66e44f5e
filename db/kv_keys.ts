/**
 * The whole Deno KV key schema in one place. Every KV key the service reads or writes is built here.
 *
 * No key holds personal data: a client address, an account id or an e-mail address enters a key only as its
 * pseudonym, a keyed hash (HMAC-SHA256 under a key derived from AUTH_SECRET), so every instance with the same
 * secret builds the same key while the KV (on Deno Deploy stored outside the EU) cannot be read back to a person.
 */
import { deriveKeySync, hmacSha256HexSync } from "../crypto.ts";

/** Turns a caller's address, account or e-mail into the pseudonym KV keys carry. */
export type Pseudonymise = (personal: string) => string;

/** The pseudonyms of `authSecret`: HMAC-SHA256 (hex, 128 bits) under a key derived for KV keys. */
export function kvPseudonyms(authSecret: string): Pseudonymise {
  const key = deriveKeySync(authSecret, "kv-key-pseudonyms");
  return (personal) => hmacSha256HexSync(key, personal).slice(0, 32);
}

/** Rate-limit groups of docs/contract.md §9. */
export type RateGroup = "catalogue" | "valuation" | "mcp" | "write" | "signin";

/** Key of one caller's token bucket in one route group: `["rate", group, pseudonym of the caller]`. */
export function rateBucketKey(group: RateGroup, callerPseudonym: string): Deno.KvKey {
  return ["rate", group, callerPseudonym];
}

/** Key probed by the health check: `["health"]`. */
export function healthKey(): Deno.KvKey {
  return ["health"];
}

/** The kinds of account mail that are rate-limited per address (`auth/account_mail.ts`). */
export type AccountMailKind = "verify" | "reset";

/** Key of one address's account-mail bucket: `["account_mail", kind, window, pseudonym of the address]`. */
export function accountMailKey(
  kind: AccountMailKind,
  window: "short" | "day",
  addressPseudonym: string,
): Deno.KvKey {
  return ["account_mail", kind, window, addressPseudonym];
}
