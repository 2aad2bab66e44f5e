/**
 * Asking for account mails and using their links: a new e-mail confirmation link, a password-reset link, and
 * setting a new password with one. better-auth makes and checks the tokens (its reset token is single-use and
 * lives `RESET_TOKEN_SECONDS`; a reset ends every session of the account); this module adds the per-address
 * limits of `auth/account_mail.ts` in front of every mail. Every function answers the same whether or not the
 * address has an account.
 */
import type { TokenBuckets } from "../db/token_bucket.ts";
import { accountMailAllowed } from "./account_mail.ts";
import { PASSWORD_MAX_LENGTH, PASSWORD_MIN_LENGTH, verifiedCallback } from "./auth_settings.ts";
import type { AuthHandle } from "./auth_handle.ts";
import { truncate } from "../text.ts";

/** What asking for an account mail did: asked better-auth to send it (if the account calls for one), or refused. */
export type MailRequest = "requested" | "limited";

/** What the recovery functions need: better-auth and the token buckets. */
export interface RecoveryDeps {
  auth: AuthHandle;
  buckets: TokenBuckets;
}

/**
 * An address typed into an account form as the forms compare it: trimmed, lower case, and cut at 320 characters
 * (no plausible address is longer) so that a pasted text is neither looked up nor shown back whole.
 */
export function accountAddress(raw: string | undefined): string {
  return truncate((raw ?? "").trim().toLowerCase(), 320);
}

/** The shape of an address the account forms accept (the sign-up rule). */
export function plausibleAddress(email: string): boolean {
  return /^[^\s@]{1,64}@[^\s@]{1,255}$/.test(email);
}

/** Whether `password` meets the password rule of sign-up (10 to 128 characters). */
export function passwordAcceptable(password: string): boolean {
  return password.length >= PASSWORD_MIN_LENGTH && password.length <= PASSWORD_MAX_LENGTH;
}

/**
 * Sends a new confirmation link to `email` when it belongs to an account not yet confirmed (better-auth decides,
 * nothing is sent otherwise), within the per-address limit; the link returns to `back` after confirming, if given.
 */
export async function requestVerificationMail(
  deps: RecoveryDeps,
  email: string,
  back?: string,
): Promise<MailRequest> {
  if (!await accountMailAllowed(deps.buckets, "verify", email)) return "limited";
  await deps.auth.run((auth) =>
    auth.api.sendVerificationEmail({ body: { email, callbackURL: verifiedCallback(back) } })
  )
    .catch(() => undefined); // an address better-auth does not accept gets no mail and the same answer
  return "requested";
}

/** Sends a password-reset link to `email` when it belongs to an account, within the per-address limit. */
export async function requestPasswordReset(deps: RecoveryDeps, email: string): Promise<MailRequest> {
  if (!await accountMailAllowed(deps.buckets, "reset", email)) return "limited";
  await deps.auth.run((auth) => auth.api.requestPasswordReset({ body: { email } })).catch(() => undefined);
  return "requested";
}

/** Only better-auth's token alphabet and length reach the database. */
function tokenShaped(token: string): boolean {
  return /^[A-Za-z0-9_-]{16,64}$/.test(token);
}

/** Whether `token` is a reset token that has been neither used nor expired (reading it does not use it). */
export async function resetTokenUsable(auth: AuthHandle, token: string): Promise<boolean> {
  if (!tokenShaped(token)) return false;
  const v = await auth.run(async (a) =>
    (await a.$context).internalAdapter.findVerificationValue(`reset-password:${token}`)
  );
  return !!v && new Date(v.expiresAt).getTime() > Date.now();
}

/**
 * Sets a new password with a reset token. The token is used up; every session of the account ends. Answers
 * `weak_password` (token kept) or `invalid_token` (unknown, used or expired).
 */
export async function resetPassword(
  auth: AuthHandle,
  token: string,
  password: string,
): Promise<"done" | "weak_password" | "invalid_token"> {
  if (!passwordAcceptable(password)) return "weak_password";
  if (!tokenShaped(token)) return "invalid_token";
  try {
    await auth.run((a) => a.api.resetPassword({ body: { newPassword: password, token } }));
    return "done";
  } catch {
    return "invalid_token";
  }
}
