/**
 * The sign-in, sign-up and sign-out pages (`/anmelden`, `/registrieren`, `/abmelden`) and the page that sends a
 * new e-mail confirmation link (`/bestaetigung-anfordern`). Sign-in carries a signed OAuth query through to
 * better-auth, which answers with the consent page or the client's redirect URI; without one, a person lands on
 * their account home (`auth/account_home.ts`), or on the page of this site that sent them to sign in (`weiter`, a
 * path under `/objekte` or `/konto`, checked by `pages/return_path.ts`); that way back is carried through sign-up
 * and the confirmation link too. The confirmation link returns to `/anmelden?verified=1`: signed in by the link,
 * the person is taken to the way back or home; with better-auth's `error=…` the page says the link is invalid or expired
 * and offers a new one. An unconfirmed person who signs in is sent a new link (within the per-address limits of
 * `auth/account_mail.ts`), and the page says whether it was sent.
 */
import { Hono } from "hono";
import type { Context } from "hono";
import { accountHome } from "../auth/account_home.ts";
import {
  accountAddress,
  passwordAcceptable,
  plausibleAddress,
  requestVerificationMail,
} from "../auth/account_recovery.ts";
import { LOGIN_PAGE } from "../auth/auth_settings.ts";
import type { AppEnv } from "../routes/env.ts";
import { addressKey, clientAddress } from "../routes/client_address.ts";
import { RATE_RULES } from "../routes/rate_limit.ts";
import { APPS_PAGE } from "./apps_pages.tsx";
import { returnPath } from "./return_path.ts";
import { accountText, type PageMsg, pageText } from "./account_texts.ts";
import { callAuth, passCookies, sessionOf } from "./auth_calls.ts";
import { langOfRequest, oauthQuery, type PageCtx, pageMiddleware, queryOf } from "./common.ts";
import { csrfToken } from "./csrf.ts";
import { csrfForm, PasswordInput } from "./form_checks.tsx";
import { type Lang, t, type TextKey } from "./i18n.ts";
import { AccountEmailField, CsrfField, Layout } from "./layout.tsx";
import { HaveAccountLink, type LinkAnswer, mailLinkRequest, NewLinkForm } from "./ui_account.tsx";

type C = Context<AppEnv>;
type Ctx = PageCtx;

/** The address of the sign-up page. */
const SIGN_UP_PAGE = "/registrieren";
/** The address the sign-out form posts to. */
const SIGN_OUT_PATH = "/abmelden";
/** The page that sends a new e-mail confirmation link. */
const RESEND_PAGE = "/bestaetigung-anfordern";
/** The page that sends a password-reset link (`pages/password_pages.tsx`). */
export const FORGOT_PAGE = "/passwort-vergessen";

/** The sign-in, sign-up and sign-out routes; they share no prefix, so the page middleware sits on each path. */
export function signInPageRoutes(ctx: Ctx): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  const middleware = pageMiddleware(ctx);
  for (const path of [LOGIN_PAGE, SIGN_UP_PAGE, SIGN_OUT_PATH, RESEND_PAGE]) app.use(path, ...middleware);
  app.get(LOGIN_PAGE, (c) => signInLanding(ctx, c));
  app.post(LOGIN_PAGE, (c) => signIn(ctx, c));
  app.get(SIGN_UP_PAGE, (c) => signUpPage(ctx, c, {}));
  app.post(SIGN_UP_PAGE, (c) => signUp(ctx, c));
  app.post(SIGN_OUT_PATH, (c) => signOut(ctx, c));
  app.get(RESEND_PAGE, (c) => resendPage(ctx, c, {}));
  app.post(RESEND_PAGE, (c) => resend(ctx, c));
  return app;
}

// --- sign-in ---------------------------------------------------------------------------------------------

/**
 * `GET /anmelden`. After the confirmation link (`verified=1`): better-auth's `error` shows the invalid-link page;
 * a person the link signed in goes to the way back it carries (`weiter`, checked), else to their account home;
 * anyone else sees the form with the "confirmed" notice (and the way back)
 * (a link opened again after the address was confirmed). After a password reset (`reset=1`) a notice says so.
 */
async function signInLanding(ctx: Ctx, c: C) {
  if (c.req.query("verified") !== undefined) {
    if (c.req.query("error") !== undefined) return invalidVerifyLinkPage(ctx, c);
    const session = await sessionOf(ctx.auth, c);
    const back = returnPath(c.req.query("weiter"), ctx.deps.config.baseUrl);
    if (session) return c.redirect(back ?? await accountHome(ctx.deps.db, session.userId), 303);
    return signInPage(ctx, c, { notice: "verified" });
  }
  if (c.req.query("reset") !== undefined) return signInPage(ctx, c, { notice: "passwordChanged" });
  return signInPage(ctx, c, {});
}

function signInPage(
  ctx: Ctx,
  c: C,
  p: { error?: PageMsg; notice?: PageMsg; email?: string; oq?: string; back?: string | undefined },
) {
  const l = langOfRequest(c);
  const oq = p.oq ?? oauthQuery(queryOf(c));
  const back = oq ? undefined : p.back ?? returnPath(c.req.query("weiter"), ctx.deps.config.baseUrl);
  const status = p.error === "throttled" ? 429 : p.error ? 401 : 200;
  return c.html(
    <Layout lang={l} title={t(l, "signIn")}>
      {p.error && <p class="error" role="alert">{pageText(l, p.error)}</p>}
      {p.notice && <p class="notice" role="status">{pageText(l, p.notice)}</p>}
      <form method="post" action={LOGIN_PAGE}>
        <CsrfField token={csrfToken(c, ctx.secure)} />
        {oq && <input type="hidden" name="oauth_query" value={oq} />}
        {back && <input type="hidden" name="weiter" value={back} />}
        <AccountEmailField lang={l} value={p.email} />
        <label for="password">{t(l, "password")}</label>
        <input id="password" name="password" type="password" required autocomplete="current-password" />
        <button type="submit">{t(l, "signIn")}</button>
      </form>
      <p>
        <a href={FORGOT_PAGE}>{accountText(l, "forgotLink")}</a>
      </p>
      <p>
        <a href={oq ? `${SIGN_UP_PAGE}?${oq}` : withBack(SIGN_UP_PAGE, back)}>{t(l, "noAccount")}</a>
      </p>
    </Layout>,
    status,
  );
}

async function signIn(ctx: Ctx, c: C) {
  const f = await csrfForm(ctx, c);
  if (f instanceof Response) return f;
  const email = accountAddress(f.email);
  const oq = oauthQuery(f.oauth_query);
  const back = returnPath(f.weiter, ctx.deps.config.baseUrl);
  if (!email || !f.password) return signInPage(ctx, c, { error: "badCredentials", email, oq, back });
  if (!await signInAllowed(ctx, c, email)) return signInPage(ctx, c, { error: "throttled", email, oq, back });
  const res = await callAuth(ctx.deps, ctx.auth, c, "/sign-in/email", {
    email,
    password: f.password.slice(0, 200),
    rememberMe: true,
    ...(oq ? { oauth_query: oq } : {}),
  });
  if (res.status === 403) {
    // The password was right (better-auth checks it first), so saying whether a link went out tells nothing new.
    const sent = await requestVerificationMail(recoveryDeps(ctx), email, back);
    return signInPage(ctx, c, {
      error: sent === "limited" ? "notVerifiedLimited" : "notVerifiedSent",
      email,
      oq,
      back,
    });
  }
  if (res.status !== 200) return signInPage(ctx, c, { error: "badCredentials", email, oq, back });
  passCookies(c, res.setCookies);
  const to = !oq && back ? back : await afterSignIn(ctx, res.body, oq);
  return c.redirect(absoluteRedirect(ctx, to), 303);
}

/**
 * Where a successful sign-in goes: the address better-auth answered with (the OAuth flow: consent page or the
 * app's redirect URI), else, in the OAuth flow, the connected apps as before, else the person's account home.
 */
// deno-lint-ignore no-explicit-any
async function afterSignIn(ctx: Ctx, body: any, oq: string | undefined): Promise<string> {
  if (typeof body?.url === "string" && body.redirect !== false) return body.url;
  const userId = body?.user?.id;
  if (oq || typeof userId !== "string") return APPS_PAGE;
  return await accountHome(ctx.deps.db, userId);
}

/** The better-auth instance and token buckets the recovery functions need. */
function recoveryDeps(ctx: Ctx) {
  return { auth: ctx.auth, buckets: ctx.deps.buckets };
}

/** Sign-in throttle: 5 attempts at once, then one a minute, per e-mail address and per client address. */
async function signInAllowed(ctx: Ctx, c: C, email: string): Promise<boolean> {
  if (!ctx.deps.config.rateLimit) return true;
  const ip = addressKey(clientAddress(c, ctx.deps.config.trustProxy));
  const byEmail = await ctx.deps.buckets.take("signin", `email:${email}`, RATE_RULES.signin);
  if (!byEmail) return false;
  return await ctx.deps.buckets.take("signin", ip, { rate: RATE_RULES.signin.rate * 4, burst: 20 });
}

/**
 * The absolute form of the address better-auth answered with after sign-in (our consent page, or the client's
 * registered redirect URI with a code); we pass no caller-chosen callback to it. Unparsable → connected apps.
 */
function absoluteRedirect(ctx: Ctx, url: string): string {
  try {
    const u = new URL(url, ctx.deps.config.baseUrl);
    return u.toString();
  } catch {
    return APPS_PAGE;
  }
}

// --- sign-up ---------------------------------------------------------------------------------------------

/** `page` with the page to return to after signing in (`weiter`), if any. */
function withBack(page: string, back: string | undefined): string {
  return back ? `${page}?weiter=${encodeURIComponent(back)}` : page;
}

/** The sign-up page; `back` (else the request's `weiter`) is carried through the confirmation link. */
function signUpPage(
  ctx: Ctx,
  c: C,
  p: { error?: TextKey; notice?: TextKey; email?: string; name?: string; back?: string | undefined },
) {
  const l = langOfRequest(c);
  const back = p.back ?? returnPath(c.req.query("weiter"), ctx.deps.config.baseUrl);
  return c.html(
    <Layout lang={l} title={t(l, "signUp")}>
      {p.error && <p class="error" role="alert">{t(l, p.error)}</p>}
      {p.notice
        ? <p class="notice" role="status">{t(l, p.notice)}</p>
        : (
          <form method="post" action={SIGN_UP_PAGE}>
            <CsrfField token={csrfToken(c, ctx.secure)} />
            {back && <input type="hidden" name="weiter" value={back} />}
            <label for="name">{t(l, "name")}</label>
            <input id="name" name="name" type="text" required maxlength={100} value={p.name ?? ""} />
            <AccountEmailField lang={l} value={p.email} />
            <label for="password">{t(l, "password")} ({t(l, "passwordHint")})</label>
            <PasswordInput id="password" />
            <button type="submit">{t(l, "signUp")}</button>
          </form>
        )}
      <HaveAccountLink l={l} href={withBack(LOGIN_PAGE, back)} />
    </Layout>,
    p.error ? 400 : 200,
  );
}

async function signUp(ctx: Ctx, c: C) {
  const f = await csrfForm(ctx, c);
  if (f instanceof Response) return f;
  const email = (f.email ?? "").trim().toLowerCase();
  const name = (f.name ?? "").trim();
  const password = f.password ?? "";
  const back = returnPath(f.weiter, ctx.deps.config.baseUrl);
  if (!plausibleAddress(email) || !name || name.length > 100) {
    return signUpPage(ctx, c, { error: "invalidForm", email, name, back });
  }
  if (!passwordAcceptable(password)) {
    return signUpPage(ctx, c, { error: "weakPassword", email, name, back });
  }
  const res = await callAuth(ctx.deps, ctx.auth, c, "/sign-up/email", {
    email,
    password,
    name,
  });
  // An address that is already registered gets the same answer (no account enumeration); one not confirmed yet
  // is sent a new link, a confirmed one nothing.
  if (res.status !== 200 && res.status !== 422) {
    return signUpPage(ctx, c, { error: "invalidForm", email, name, back });
  }
  await requestVerificationMail(recoveryDeps(ctx), email, back);
  return signUpPage(ctx, c, { notice: "checkMail", back });
}

async function signOut(ctx: Ctx, c: C) {
  const f = await csrfForm(ctx, c);
  if (f instanceof Response) return f;
  const res = await callAuth(ctx.deps, ctx.auth, c, "/sign-out", {});
  passCookies(c, res.setCookies);
  return c.redirect(LOGIN_PAGE, 303);
}

// --- a new confirmation link --------------------------------------------------------------------------------

/** The page of a confirmation link better-auth refused (tampered, expired, unknown account): 400 and a new link. */
function invalidVerifyLinkPage(ctx: Ctx, c: C) {
  const l = langOfRequest(c);
  return c.html(
    <Layout lang={l} title={accountText(l, "linkInvalidTitle")}>
      <p class="error" role="alert">{accountText(l, "verifyLinkInvalid")}</p>
      <ResendForm ctx={ctx} c={c} l={l} />
    </Layout>,
    400,
  );
}

function ResendForm(p: { ctx: Ctx; c: C; l: Lang; email?: string }) {
  return <NewLinkForm l={p.l} action={RESEND_PAGE} csrf={csrfToken(p.c, p.ctx.secure)} email={p.email} />;
}

/** `GET /bestaetigung-anfordern` and the answers of its form. */
function resendPage(ctx: Ctx, c: C, p: LinkAnswer) {
  const l = langOfRequest(c);
  const status = p.error === "mailLimited" ? 429 : p.error ? 400 : 200;
  return c.html(
    <Layout lang={l} title={accountText(l, "resendTitle")}>
      {p.error && <p class="error" role="alert">{pageText(l, p.error)}</p>}
      {p.notice
        ? <p class="notice" role="status">{pageText(l, p.notice)}</p>
        : <ResendForm ctx={ctx} c={c} l={l} email={p.email ?? ""} />}
      <HaveAccountLink l={l} />
    </Layout>,
    status,
  );
}

/** `POST /bestaetigung-anfordern`: the same answer whether or not the address has an account to confirm. */
function resend(ctx: Ctx, c: C) {
  const send = (email: string) => requestVerificationMail(recoveryDeps(ctx), email);
  return mailLinkRequest(ctx, c, send, (answer) => resendPage(ctx, c, answer), "resendDone");
}
