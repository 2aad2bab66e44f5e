/**
 * The sign-in, sign-up and sign-out pages (`/anmelden`, `/registrieren`, `/abmelden`). Sign-in carries a signed
 * OAuth query through to better-auth, which answers with the consent page or the client's redirect URI.
 */
import { Hono } from "hono";
import type { Context } from "hono";
import { LOGIN_PAGE } from "../auth/better_auth.ts";
import type { AppEnv } from "../routes/env.ts";
import { addressKey, clientAddress } from "../routes/client_address.ts";
import { RATE_RULES } from "../routes/rate_limit.ts";
import { truncate } from "../text.ts";
import { APPS_PAGE } from "./apps_pages.tsx";
import { callAuth, passCookies } from "./auth_calls.ts";
import { langOfRequest, oauthQuery, type PageCtx, pageMiddleware, queryOf } from "./common.ts";
import { csrfToken } from "./csrf.ts";
import { csrfForm } from "./form_checks.tsx";
import { t, type TextKey } from "./i18n.ts";
import { CsrfField, Layout } from "./layout.tsx";

type C = Context<AppEnv>;
type Ctx = PageCtx;

/** The address of the sign-up page. */
const SIGN_UP_PAGE = "/registrieren";
/** The address the sign-out form posts to. */
const SIGN_OUT_PATH = "/abmelden";

/** The sign-in, sign-up and sign-out routes; they share no prefix, so the page middleware sits on each path. */
export function signInPageRoutes(ctx: Ctx): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  const middleware = pageMiddleware(ctx.deps);
  for (const path of [LOGIN_PAGE, SIGN_UP_PAGE, SIGN_OUT_PATH]) app.use(path, ...middleware);
  app.get(LOGIN_PAGE, (c) => signInPage(ctx, c, {}));
  app.post(LOGIN_PAGE, (c) => signIn(ctx, c));
  app.get(SIGN_UP_PAGE, (c) => signUpPage(ctx, c, {}));
  app.post(SIGN_UP_PAGE, (c) => signUp(ctx, c));
  app.post(SIGN_OUT_PATH, (c) => signOut(ctx, c));
  return app;
}

// --- sign-in ---------------------------------------------------------------------------------------------

function signInPage(ctx: Ctx, c: C, p: { error?: TextKey; notice?: TextKey; email?: string; oq?: string }) {
  const l = langOfRequest(c);
  const oq = p.oq ?? oauthQuery(queryOf(c));
  const notice = p.notice ?? (c.req.query("verified") ? "verified" : undefined);
  const status = p.error === "throttled" ? 429 : p.error ? 401 : 200;
  return c.html(
    <Layout lang={l} title={t(l, "signIn")}>
      {p.error && <p class="error" role="alert">{t(l, p.error)}</p>}
      {notice && <p class="notice">{t(l, notice)}</p>}
      <form method="post" action={LOGIN_PAGE}>
        <CsrfField token={csrfToken(c, ctx.secure)} />
        {oq && <input type="hidden" name="oauth_query" value={oq} />}
        <label for="email">{t(l, "email")}</label>
        <input id="email" name="email" type="email" required autocomplete="username" value={p.email ?? ""} />
        <label for="password">{t(l, "password")}</label>
        <input id="password" name="password" type="password" required autocomplete="current-password" />
        <button type="submit">{t(l, "signIn")}</button>
      </form>
      <p>
        <a href={oq ? `${SIGN_UP_PAGE}?${oq}` : SIGN_UP_PAGE}>{t(l, "noAccount")}</a>
      </p>
    </Layout>,
    status,
  );
}

async function signIn(ctx: Ctx, c: C) {
  const f = await csrfForm(ctx, c);
  if (f instanceof Response) return f;
  const email = truncate((f.email ?? "").trim().toLowerCase(), 320);
  const oq = oauthQuery(f.oauth_query);
  if (!email || !f.password) return signInPage(ctx, c, { error: "badCredentials", email, oq });
  if (!await signInAllowed(ctx, c, email)) return signInPage(ctx, c, { error: "throttled", email, oq });
  const res = await callAuth(ctx.deps, ctx.auth, c, "/sign-in/email", {
    email,
    password: f.password.slice(0, 200),
    rememberMe: true,
    ...(oq ? { oauth_query: oq } : {}),
  });
  if (res.status === 403) return signInPage(ctx, c, { error: "notVerified", email, oq });
  if (res.status !== 200) return signInPage(ctx, c, { error: "badCredentials", email, oq });
  passCookies(c, res.setCookies);
  const next = typeof res.body?.url === "string" && res.body.redirect !== false ? res.body.url : APPS_PAGE;
  return c.redirect(absoluteRedirect(ctx, next), 303);
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

function signUpPage(ctx: Ctx, c: C, p: { error?: TextKey; notice?: TextKey; email?: string; name?: string }) {
  const l = langOfRequest(c);
  return c.html(
    <Layout lang={l} title={t(l, "signUp")}>
      {p.error && <p class="error" role="alert">{t(l, p.error)}</p>}
      {p.notice
        ? <p class="notice" role="status">{t(l, p.notice)}</p>
        : (
          <form method="post" action={SIGN_UP_PAGE}>
            <CsrfField token={csrfToken(c, ctx.secure)} />
            <label for="name">{t(l, "name")}</label>
            <input id="name" name="name" type="text" required maxlength={100} value={p.name ?? ""} />
            <label for="email">{t(l, "email")}</label>
            <input
              id="email"
              name="email"
              type="email"
              required
              autocomplete="username"
              value={p.email ?? ""}
            />
            <label for="password">{t(l, "password")} ({t(l, "passwordHint")})</label>
            <input
              id="password"
              name="password"
              type="password"
              required
              minlength={10}
              autocomplete="new-password"
            />
            <button type="submit">{t(l, "signUp")}</button>
          </form>
        )}
      <p>
        <a href={LOGIN_PAGE}>{t(l, "haveAccount")}</a>
      </p>
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
  if (!/^[^\s@]{1,64}@[^\s@]{1,255}$/.test(email) || !name || name.length > 100) {
    return signUpPage(ctx, c, { error: "invalidForm", email, name });
  }
  if (password.length < 10 || password.length > 128) {
    return signUpPage(ctx, c, { error: "weakPassword", email, name });
  }
  const res = await callAuth(ctx.deps, ctx.auth, c, "/sign-up/email", {
    email,
    password,
    name,
    callbackURL: `${LOGIN_PAGE}?verified=1`,
  });
  // An address that is already registered gets the same answer (no account enumeration).
  if (res.status !== 200 && res.status !== 422) {
    return signUpPage(ctx, c, { error: "invalidForm", email, name });
  }
  return signUpPage(ctx, c, { notice: "checkMail" });
}

async function signOut(ctx: Ctx, c: C) {
  const f = await csrfForm(ctx, c);
  if (f instanceof Response) return f;
  const res = await callAuth(ctx.deps, ctx.auth, c, "/sign-out", {});
  passCookies(c, res.setCookies);
  return c.redirect(LOGIN_PAGE, 303);
}
