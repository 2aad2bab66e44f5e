/**
 * Password reset by e-mail (issue 21 §2): `/passwort-vergessen` asks for the address and always gives the same
 * answer (no hint whether the address has an account; within the per-address limits of `auth/account_mail.ts`);
 * the mail links to `/passwort-neu?token=…` (one hour, single use), where the new password is entered twice under
 * the sign-up rule. On success every session of the account ends and the person signs in with the new password;
 * a used, expired or tampered token shows a page that offers a new link. Mounted at "/" before the page-wide
 * middleware, so the page middleware sits on each path here.
 */
import { Hono } from "hono";
import type { Context } from "hono";
import { RESET_PAGE } from "../auth/account_mail.ts";
import {
  passwordAcceptable,
  requestPasswordReset,
  resetPassword,
  resetTokenUsable,
} from "../auth/account_recovery.ts";
import { LOGIN_PAGE, PASSWORD_MAX_LENGTH } from "../auth/auth_settings.ts";
import type { AppEnv } from "../routes/env.ts";
import { accountText, type PageMsg, pageText } from "./account_texts.ts";
import { langOfRequest, type PageCtx, pageMiddleware } from "./common.ts";
import { csrfToken } from "./csrf.ts";
import { csrfForm, PasswordInput } from "./form_checks.tsx";
import { t } from "./i18n.ts";
import { CsrfField, Layout } from "./layout.tsx";
import { HaveAccountLink, type LinkAnswer, mailLinkRequest, NewLinkForm } from "./ui_account.tsx";
import { FORGOT_PAGE } from "./sign_in_pages.tsx";

type C = Context<AppEnv>;
type Ctx = PageCtx;

/** The routes of the password-reset pages. */
export function passwordPageRoutes(ctx: PageCtx): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  const middleware = pageMiddleware(ctx);
  for (const path of [FORGOT_PAGE, RESET_PAGE]) app.use(path, ...middleware);
  app.get(FORGOT_PAGE, (c) => forgotPage(ctx, c, {}));
  app.post(FORGOT_PAGE, (c) => forgot(ctx, c));
  app.get(RESET_PAGE, (c) => newPasswordPage(ctx, c));
  app.post(RESET_PAGE, (c) => setNewPassword(ctx, c));
  return app;
}

// --- asking for a link ---------------------------------------------------------------------------------------

function forgotPage(
  ctx: Ctx,
  c: C,
  p: LinkAnswer & { invalidLink?: boolean },
) {
  const l = langOfRequest(c);
  const status = p.invalidLink || p.error === "invalidForm" ? 400 : p.error ? 429 : 200;
  return c.html(
    <Layout lang={l} title={accountText(l, p.invalidLink ? "linkInvalidTitle" : "forgotTitle")}>
      {p.invalidLink && <p class="error" role="alert">{accountText(l, "resetLinkInvalid")}</p>}
      {p.error && <p class="error" role="alert">{pageText(l, p.error)}</p>}
      {p.notice ? <p class="notice" role="status">{pageText(l, p.notice)}</p> : (
        <>
          {!p.invalidLink && <p>{accountText(l, "forgotIntro")}</p>}
          <NewLinkForm l={l} action={FORGOT_PAGE} csrf={csrfToken(c, ctx.secure)} email={p.email} />
        </>
      )}
      <HaveAccountLink l={l} />
    </Layout>,
    status,
  );
}

/** `POST /passwort-vergessen`: the same answer for every well-formed address, unless its limit is reached. */
function forgot(ctx: Ctx, c: C) {
  const send = (email: string) => requestPasswordReset({ auth: ctx.auth, buckets: ctx.deps.buckets }, email);
  return mailLinkRequest(ctx, c, send, (answer) => forgotPage(ctx, c, answer), "forgotDone");
}

// --- setting the new password --------------------------------------------------------------------------------

/** `GET /passwort-neu?token=…`: the form when the token can still be used, else the invalid-link page. */
async function newPasswordPage(ctx: Ctx, c: C) {
  const token = (c.req.query("token") ?? "").slice(0, 200);
  if (!await resetTokenUsable(ctx.auth, token)) return forgotPage(ctx, c, { invalidLink: true });
  return passwordForm(ctx, c, token, undefined);
}

function passwordForm(ctx: Ctx, c: C, token: string, error: PageMsg | undefined) {
  const l = langOfRequest(c);
  return c.html(
    <Layout lang={l} title={accountText(l, "newPasswordTitle")}>
      {error && <p class="error" role="alert">{pageText(l, error)}</p>}
      <form method="post" action={RESET_PAGE}>
        <CsrfField token={csrfToken(c, ctx.secure)} />
        <input type="hidden" name="token" value={token} />
        <label for="password">{accountText(l, "newPassword")} ({t(l, "passwordHint")})</label>
        <PasswordInput id="password" />
        <label for="password2">{accountText(l, "newPasswordAgain")}</label>
        <PasswordInput id="password2" />
        <button type="submit">{accountText(l, "savePassword")}</button>
      </form>
    </Layout>,
    error ? 400 : 200,
  );
}

/** `POST /passwort-neu`: checks both entries, then uses the token; on success, on to sign-in. */
async function setNewPassword(ctx: Ctx, c: C) {
  const f = await csrfForm(ctx, c);
  if (f instanceof Response) return f;
  const token = (f.token ?? "").slice(0, 200);
  const password = (f.password ?? "").slice(0, PASSWORD_MAX_LENGTH + 1);
  if (!passwordAcceptable(password)) return passwordForm(ctx, c, token, "weakPassword");
  if (password !== f.password2) return passwordForm(ctx, c, token, "passwordsDiffer");
  const done = await resetPassword(ctx.auth, token, password);
  if (done === "invalid_token") return forgotPage(ctx, c, { invalidLink: true });
  if (done === "weak_password") return passwordForm(ctx, c, token, "weakPassword");
  return c.redirect(`${LOGIN_PAGE}?reset=1`, 303);
}
