/**
 * The account mails (e-mail confirmation, password reset): their texts and the rule of how often one address may
 * be sent one. Limits per address and kind, kept as two token buckets in Deno KV (`db/token_bucket.ts`) so every
 * instance sharing the KV shares them: at most one mail per 2 minutes and at most 5 per day (the day bucket
 * holds 5 and gains one every 4.8 hours). The buckets are taken before anyone looks at whether the address has an
 * account, so a refusal says nothing about the address. They apply whether or not `RATE_LIMIT` is on: they
 * protect the owners of the addresses, not the service's capacity.
 */
import type { Config } from "../config.ts";
import { accountMailKey, type AccountMailKind } from "../db/kv_keys.ts";
import type { BucketRule, TokenBuckets } from "../db/token_bucket.ts";
import type { Mail } from "./mail.ts";

export type { AccountMailKind } from "../db/kv_keys.ts";

/** At most one account mail of a kind per address in this window: one token, refilled after 2 minutes. */
const MAIL_SHORT_RULE: BucketRule = { rate: 1 / 120, burst: 1 };
/** At most five account mails of a kind per address a day. */
const MAIL_DAY_RULE: BucketRule = { rate: 5 / 86_400, burst: 5 };

/** Lifetime of a password-reset link in seconds (one hour). */
export const RESET_TOKEN_SECONDS = 3600;
/** Lifetime of an e-mail confirmation link in seconds (one day). */
export const VERIFY_TOKEN_SECONDS = 24 * 3600;

/** The page a password-reset link opens (`pages/password_pages.tsx`). */
export const RESET_PAGE = "/passwort-neu";

/**
 * Takes a token of both buckets of `kind` for `email`; false when one of them is empty (no mail may be sent).
 * The short bucket is asked first, so a refused repeat within 2 minutes does not use up the day's mails.
 */
export async function accountMailAllowed(
  buckets: TokenBuckets,
  kind: AccountMailKind,
  email: string,
): Promise<boolean> {
  const who = buckets.pseudonym(email.trim().toLowerCase());
  if (!await buckets.takeKey(accountMailKey(kind, "short", who), MAIL_SHORT_RULE)) return false;
  return await buckets.takeKey(accountMailKey(kind, "day", who), MAIL_DAY_RULE);
}

/** The e-mail confirmation mail with its link (better-auth's verify-email address). */
export function verificationMail(to: string, url: string): Mail {
  return {
    to,
    subject: "Bitte bestätigen Sie Ihre E-Mail-Adresse / Please confirm your e-mail address",
    body: `Bitte öffnen Sie diesen Link, um Ihre Adresse zu bestätigen (24 Stunden gültig):\n${url}\n\n` +
      `Please open this link to confirm your address (valid for 24 hours):\n${url}\n`,
  };
}

/** The link of a password-reset mail: our page with the token. */
export function resetLink(config: Pick<Config, "baseUrl">, token: string): string {
  return `${config.baseUrl}${RESET_PAGE}?token=${encodeURIComponent(token)}`;
}

/** The password-reset mail with its single-use link. */
export function resetMail(to: string, url: string): Mail {
  return {
    to,
    subject: "Neues Passwort festlegen / Set a new password",
    body: "Jemand (hoffentlich Sie) möchte das Passwort Ihres Kontos neu festlegen. " +
      `Der Link ist eine Stunde gültig und kann einmal benutzt werden:\n${url}\n\n` +
      "Wenn Sie das nicht waren, können Sie diese E-Mail ignorieren; Ihr Passwort bleibt unverändert.\n\n" +
      "Someone (hopefully you) asked to set a new password for your account. " +
      `The link is valid for one hour and can be used once:\n${url}\n\n` +
      "If this was not you, ignore this e-mail; your password stays as it is.\n",
  };
}
