/**
 * What the account pages that send a link by e-mail share (a new confirmation link on `/bestaetigung-anfordern`,
 * a password-reset link on `/passwort-vergessen`): the form asking for the link, the answer to its POST, and the
 * link to sign-in below the account forms.
 */
import type { Context } from "hono";
import { accountAddress, type MailRequest, plausibleAddress } from "../auth/account_recovery.ts";
import { LOGIN_PAGE } from "../auth/auth_settings.ts";
import type { AppEnv } from "../routes/env.ts";
import { accountText, type PageMsg } from "./account_texts.ts";
import type { PageCtx } from "./common.ts";
import { csrfForm } from "./form_checks.tsx";
import { type Lang, t } from "./i18n.ts";
import { AccountEmailField, CsrfField } from "./layout.tsx";

/** "Schon ein Konto? Anmelden": the link to sign-in below the account forms (`href`: the sign-in page by default). */
export function HaveAccountLink(p: { l: Lang; href?: string }) {
  return (
    <p>
      <a href={p.href ?? LOGIN_PAGE}>{t(p.l, "haveAccount")}</a>
    </p>
  );
}

/** The form that asks for a link by e-mail, posting the address (filled with `email`) to `action`. */
export function NewLinkForm(p: { l: Lang; action: string; csrf: string; email?: string | undefined }) {
  return (
    <form method="post" action={p.action}>
      <CsrfField token={p.csrf} />
      <AccountEmailField lang={p.l} value={p.email} />
      <button type="submit">{accountText(p.l, "sendNewLink")}</button>
    </form>
  );
}

/** What a page asking for a link shows after its POST: the refusal with the address sent, or the notice. */
export interface LinkAnswer {
  error?: PageMsg;
  notice?: PageMsg;
  email?: string;
}

/**
 * The POST of a form asking for a link: the same answer (`done`) for every well-formed address, whether or not it
 * has an account, unless `send` says its per-address limit is reached; `page` shows the answer.
 */
export async function mailLinkRequest(
  ctx: PageCtx,
  c: Context<AppEnv>,
  send: (email: string) => Promise<MailRequest>,
  page: (answer: LinkAnswer) => Response | Promise<Response>,
  done: PageMsg,
): Promise<Response> {
  const f = await csrfForm(ctx, c);
  if (f instanceof Response) return f;
  const email = accountAddress(f.email);
  if (!plausibleAddress(email)) return await page({ error: "invalidForm", email });
  if (await send(email) === "limited") return await page({ error: "mailLimited", email });
  return await page({ notice: done });
}
