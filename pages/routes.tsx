/**
 * The account pages (server-rendered, German or English, no JavaScript needed): sign-in, sign-up, consent,
 * connected apps and API keys. Every form carries a CSRF token; every page is `no-store` with a strict CSP.
 * Rules live in `auth/`; these handlers parse the form, call a domain function, and render.
 */
import { Hono } from "hono";
import type { Context } from "hono";
import type { Auth } from "../auth/better_auth.ts";
import { CONSENT_PAGE, grantableScopes, LOGIN_PAGE } from "../auth/better_auth.ts";
import { createApiKey, listApiKeys, revokeApiKey } from "../auth/api_keys.ts";
import { disconnectApp } from "../auth/connections.ts";
import { personAccess } from "../db/accounts.ts";
import { AppError } from "../errors.ts";
import {
  type AppEvents,
  appSubscriptions,
  eventsOfScopes,
  switchEventOff,
  switchEventOn,
} from "../events/app_events.ts";
import { EVENT_DESCRIPTIONS, type EventName, isEventName } from "../events/catalogue.ts";
import { clientById, connectionsOf } from "../db/oauth.ts";
import { addressKey, clientAddress } from "../routes/client_address.ts";
import type { AppDeps } from "../deps.ts";
import type { AppEnv } from "../routes/env.ts";
import { RATE_RULES, writeLimit } from "../routes/rate_limit.ts";
import { callAuth, passCookies, sessionOf } from "./auth_calls.ts";
import { csrfOk, csrfToken } from "./csrf.ts";
import { type Lang, t, type TextKey } from "./i18n.ts";
import { CsrfField, Layout } from "./layout.tsx";
import { inquiryPageRoutes } from "./inquiry_pages.tsx";
import { listingPageRoutes } from "./listing_pages.tsx";
import { langOfRequest, type PageCtx, readForm, when } from "./common.ts";
import { truncate } from "../text.ts";

type C = Context<AppEnv>;

const CSP =
  "default-src 'none'; style-src 'unsafe-inline'; img-src 'self'; base-uri 'none'; frame-ancestors 'none'";

/** The pages sub-app. */
export function pageRoutes(deps: AppDeps, auth: Auth): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  const secure = deps.config.baseUrl.startsWith("https:");
  app.use("*", async (c, next) => {
    await next();
    if (c.res.headers.get("content-type")?.startsWith("text/html")) {
      c.res.headers.set("content-security-policy", CSP);
      c.res.headers.set("cache-control", "no-store");
      c.res.headers.set("referrer-policy", "same-origin");
      c.res.headers.set("vary", "accept-language, cookie");
    }
  });
  app.use("*", writeLimit(deps));
  const ctx = { deps, auth, secure };
  app.get(LOGIN_PAGE, (c) => signInPage(ctx, c, {}));
  app.post(LOGIN_PAGE, (c) => signIn(ctx, c));
  app.get("/registrieren", (c) => signUpPage(ctx, c, {}));
  app.post("/registrieren", (c) => signUp(ctx, c));
  app.get(CONSENT_PAGE, (c) => consentPage(ctx, c));
  app.post(CONSENT_PAGE, (c) => consent(ctx, c));
  app.post("/abmelden", (c) => signOut(ctx, c));
  app.get("/konto", (c) => c.redirect("/konto/apps", 303));
  app.get("/konto/apps", (c) => appsPage(ctx, c));
  app.post("/konto/apps/trennen", (c) => disconnect(ctx, c));
  app.post("/konto/apps/ereignis", (c) => switchEvent(ctx, c));
  app.get("/konto/schluessel", (c) => keysPage(ctx, c, {}));
  app.post("/konto/schluessel", (c) => createKey(ctx, c));
  app.post("/konto/schluessel/widerrufen", (c) => revokeKey(ctx, c));
  app.route("/", listingPageRoutes(ctx));
  app.route("/", inquiryPageRoutes(ctx));
  return app;
}

type Ctx = PageCtx;

/**
 * The signed OAuth query of a page URL or form (only when it carries better-auth's signature, and only in the
 * printable ASCII of a URL: it ends up in a Location header).
 */
function oauthQuery(raw: string | undefined): string | undefined {
  if (!raw) return undefined;
  const q = raw.startsWith("?") ? raw.slice(1) : raw;
  return /^[!-~]{1,8192}$/.test(q) && new URLSearchParams(q).has("sig") ? q : undefined;
}

function queryOf(c: C): string {
  return new URL(c.req.url).search.slice(1);
}

/**
 * The first step of every signed-in form POST: the form, its CSRF check, and the session. Returns the answer to
 * send instead (403 page or redirect to sign-in) when one of them fails.
 */
async function signedInForm(
  ctx: Ctx,
  c: C,
): Promise<{ f: Record<string, string>; userId: string } | Response> {
  const f = await readForm(c);
  if (!csrfOk(c, f._csrf, ctx.deps.config.baseUrl)) return errorPage(ctx, c, "csrf", 403);
  const session = await sessionOf(ctx.auth, c);
  if (!session) return c.redirect(LOGIN_PAGE, 303);
  return { f, userId: session.userId };
}

function errorPage(_ctx: Ctx, c: C, key: TextKey, status: 400 | 403 | 404 | 429) {
  const l = langOfRequest(c);
  return c.html(
    <Layout lang={l} title={t(l, "badRequest")}>
      <p class="error">{t(l, key)}</p>
    </Layout>,
    status,
  );
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
        <a href={oq ? `/registrieren?${oq}` : "/registrieren"}>{t(l, "noAccount")}</a>
      </p>
    </Layout>,
    status,
  );
}

async function signIn(ctx: Ctx, c: C) {
  const f = await readForm(c);
  if (!csrfOk(c, f._csrf, ctx.deps.config.baseUrl)) return errorPage(ctx, c, "csrf", 403);
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
  const next = typeof res.body?.url === "string" && res.body.redirect !== false
    ? res.body.url
    : "/konto/apps";
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
    return "/konto/apps";
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
          <form method="post" action="/registrieren">
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
  const f = await readForm(c);
  if (!csrfOk(c, f._csrf, ctx.deps.config.baseUrl)) return errorPage(ctx, c, "csrf", 403);
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
  const f = await readForm(c);
  if (!csrfOk(c, f._csrf, ctx.deps.config.baseUrl)) return errorPage(ctx, c, "csrf", 403);
  const res = await callAuth(ctx.deps, ctx.auth, c, "/sign-out", {});
  passCookies(c, res.setCookies);
  return c.redirect(LOGIN_PAGE, 303);
}

// --- consent ---------------------------------------------------------------------------------------------

async function consentPage(ctx: Ctx, c: C) {
  const l = langOfRequest(c);
  const oq = oauthQuery(queryOf(c));
  if (!oq) return errorPage(ctx, c, "badRequest", 400);
  const session = await sessionOf(ctx.auth, c);
  if (!session) return c.redirect(`${LOGIN_PAGE}?${oq}`, 303);
  const q = new URLSearchParams(oq);
  const client = await clientById(ctx.deps.db, q.get("client_id") ?? "");
  if (!client || client.disabled) return errorPage(ctx, c, "badRequest", 400);
  const requested = (q.get("scope") ?? "").split(" ").filter(Boolean);
  const granted = grantableScopes(requested, await personAccess(ctx.deps.db, session.userId));
  const hasRight = granted.some((s) => s === "lesen" || s === "suchen");
  let host = "";
  try {
    host = new URL(q.get("redirect_uri") ?? "").host;
  } catch { /* shown empty */ }
  return c.html(
    <Layout lang={l} title={t(l, "consentTitle")} signedIn csrf={csrfToken(c, ctx.secure)}>
      <p>
        <strong>{client.name ?? q.get("client_id")}</strong> {t(l, "consentWants")}
      </p>
      <p>
        {t(l, "redirectsTo")}: <code>{host}</code>
      </p>
      {!client.trusted && <p class="warning" role="note">{t(l, "unverifiedApp")}</p>}
      <p>{t(l, "rightAsked")}:</p>
      <ul>
        {requested.includes("lesen") && <li>{t(l, "rightLesen")}</li>}
        {requested.includes("suchen") && <li>{t(l, "rightSuchen")}</li>}
        {requested.includes("offline_access") && <li>{t(l, "rightOffline")}</li>}
      </ul>
      {!hasRight && <p class="error" role="alert">{t(l, "noRight")}</p>}
      <form method="post" action={CONSENT_PAGE}>
        <CsrfField token={csrfToken(c, ctx.secure)} />
        <input type="hidden" name="oauth_query" value={oq} />
        {hasRight && <button type="submit" name="decision" value="approve">{t(l, "approve")}</button>}
        <button type="submit" name="decision" value="deny">{t(l, "deny")}</button>
      </form>
    </Layout>,
  );
}

async function consent(ctx: Ctx, c: C) {
  const f = await readForm(c);
  if (!csrfOk(c, f._csrf, ctx.deps.config.baseUrl)) return errorPage(ctx, c, "csrf", 403);
  const oq = oauthQuery(f.oauth_query);
  if (!oq) return errorPage(ctx, c, "badRequest", 400);
  const session = await sessionOf(ctx.auth, c);
  if (!session) return c.redirect(`${LOGIN_PAGE}?${oq}`, 303);
  const requested = (new URLSearchParams(oq).get("scope") ?? "").split(" ").filter(Boolean);
  const granted = grantableScopes(requested, await personAccess(ctx.deps.db, session.userId));
  const accept = f.decision === "approve" && granted.some((s) => s === "lesen" || s === "suchen");
  const res = await callAuth(ctx.deps, ctx.auth, c, "/oauth2/consent", {
    accept,
    ...(accept ? { scope: granted.join(" ") } : {}),
    oauth_query: oq,
  });
  passCookies(c, res.setCookies);
  const target = res.body?.redirect_uri ?? res.body?.url;
  if (typeof target !== "string") return errorPage(ctx, c, "badRequest", 400);
  return c.redirect(target, 303);
}

// --- connected apps --------------------------------------------------------------------------------------

/** The short label of each event on the connected-apps page. */
const EVENT_LABELS: Record<EventName, TextKey> = {
  "inquiry.received": "evInquiryReceived",
  "message.received": "evMessageReceived",
  "viewing.booked": "evViewingBooked",
  "viewing.cancelled": "evViewingCancelled",
  "proposal.pending": "evProposalPending",
  "file.processed": "evFileProcessed",
  "viewing.upcoming": "evViewingUpcoming",
  "social.received": "evSocialReceived",
  "matches.new": "evMatchesNew",
  "reply.received": "evReplyReceived",
  "viewing.changed": "evViewingChanged",
};

/** The page language's half of an event's description ("German / English"). */
function eventDescription(l: Lang, name: EventName): string {
  const [de, en] = EVENT_DESCRIPTIONS[name].split(" / ");
  return (l === "en" ? en : de) ?? EVENT_DESCRIPTIONS[name];
}

function eventLabel(l: Lang, name: string): string {
  return isEventName(name) ? t(l, EVENT_LABELS[name]) : name;
}

async function appsPage(
  ctx: Ctx,
  c: C,
  p: { notice?: TextKey; error?: TextKey; status?: 200 | 404 } = {},
) {
  const l = langOfRequest(c);
  const session = await sessionOf(ctx.auth, c);
  if (!session) return c.redirect(LOGIN_PAGE, 303);
  const [apps, events] = await Promise.all([
    connectionsOf(ctx.deps.db, session.userId),
    appSubscriptions(ctx.deps, session.userId),
  ]);
  const csrf = csrfToken(c, ctx.secure);
  return c.html(
    <Layout lang={l} title={t(l, "connectedApps")} signedIn csrf={csrf}>
      {p.error && <p class="error" role="alert">{t(l, p.error)}</p>}
      {p.notice && <p class="notice" role="status">{t(l, p.notice)}</p>}
      {apps.length === 0 ? <p>{t(l, "noApps")}</p> : (
        <table>
          <thead>
            <tr>
              <th>{t(l, "app")}</th>
              <th>{t(l, "right")}</th>
              <th>{t(l, "connectedAt")}</th>
              <th>{t(l, "lastUsed")}</th>
              <th></th>
            </tr>
          </thead>
          <tbody>
            {apps.map((a) => (
              <tr data-client-id={a.clientId}>
                <td>{a.clientName ?? a.clientId}</td>
                <td>{a.scopes.filter((s) => s !== "offline_access").join(", ")}</td>
                <td>{when(l, a.connectedAt)}</td>
                <td>{a.lastUsedAt ? when(l, a.lastUsedAt) : t(l, "never")}</td>
                <td>
                  <form method="post" action="/konto/apps/trennen">
                    <CsrfField token={csrf} />
                    <input type="hidden" name="client_id" value={a.clientId} />
                    <button type="submit">{t(l, "disconnect")}</button>
                  </form>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {apps.map((a) => (
        <AppEventsCard
          l={l}
          csrf={csrf}
          clientId={a.clientId}
          appName={a.clientName ?? a.clientId}
          offered={eventsOfScopes(a.scopes)}
          events={events.get(a.clientId)}
        />
      ))}
    </Layout>,
    p.status ?? 200,
  );
}

/**
 * One app's events (lists, not tables): its active subscriptions, and a switch for each event its server offers.
 * Switching off ends the app's subscriptions of that event at once; the app cannot subscribe to it again until
 * the event is switched on.
 */
function AppEventsCard(p: {
  l: Lang;
  csrf: string;
  clientId: string;
  appName: string;
  offered: EventName[];
  events: AppEvents | undefined;
}) {
  const { l } = p;
  const subs = p.events?.subscriptions ?? [];
  const off = new Set(p.events?.switchedOff ?? []);
  if (p.offered.length === 0 && subs.length === 0) return null;
  return (
    <section class="card" data-app-events={p.clientId}>
      <h2>
        {t(l, "appEventsOf")} {p.appName}
      </h2>
      <h3>{t(l, "activeSubscriptions")}</h3>
      {subs.length === 0 ? <p class="no-subscriptions">{t(l, "noSubscriptions")}</p> : (
        <>
          <ul class="subscriptions">
            {subs.map((s) => (
              <li data-subscription-id={s.id} data-event={s.name}>
                <code>{s.name}</code> ({eventLabel(l, s.name)}) · {t(l, "filter")}:{" "}
                {Object.keys(s.filter).length === 0
                  ? t(l, "noFilter")
                  : Object.entries(s.filter).map(([k, v]) => `${k}=${v}`).join(", ")} ·{" "}
                {t(l, "deliveryAddress")}: <code class="address">{s.address}</code> · {t(l, "validUntil")}
                {" "}
                <time datetime={s.refreshBefore.toISOString()}>{when(l, s.refreshBefore)}</time>
              </li>
            ))}
          </ul>
          <p class="hint">{t(l, "disconnectEndsSubscriptions")}</p>
        </>
      )}
      {p.offered.length > 0 && (
        <>
          <h3>{t(l, "eventSwitches")}</h3>
          <ul class="switches">
            {p.offered.map((name) => {
              const isOff = off.has(name);
              return (
                <li data-event={name} data-state={isOff ? "off" : "on"}>
                  <code>{name}</code> ({t(l, EVENT_LABELS[name])}):{" "}
                  <strong>{t(l, isOff ? "eventIsOff" : "eventIsOn")}</strong>
                  <form class="inline" method="post" action="/konto/apps/ereignis">
                    <CsrfField token={p.csrf} />
                    <input type="hidden" name="client_id" value={p.clientId} />
                    <input type="hidden" name="name" value={name} />
                    <input type="hidden" name="action" value={isOff ? "on" : "off"} />
                    <button type="submit">{t(l, isOff ? "switchOn" : "switchOff")}</button>
                  </form>
                  <br />
                  <small>{eventDescription(l, name)}</small>
                </li>
              );
            })}
          </ul>
        </>
      )}
    </section>
  );
}

async function disconnect(ctx: Ctx, c: C) {
  const got = await signedInForm(ctx, c);
  if (got instanceof Response) return got;
  const { f, userId } = got;
  const clientId = (f.client_id ?? "").slice(0, 200);
  const before = (await appSubscriptions(ctx.deps, userId)).get(clientId)?.subscriptions.length ?? 0;
  const existed = await disconnectApp(ctx.deps, userId, clientId);
  return appsPage(ctx, c, { notice: existed && before > 0 ? "disconnectedEvents" : "disconnected" });
}

/** Switches one event of one app off or on (form fields client_id, name, action off|on). */
async function switchEvent(ctx: Ctx, c: C) {
  const got = await signedInForm(ctx, c);
  if (got instanceof Response) return got;
  const { f, userId } = got;
  const clientId = (f.client_id ?? "").slice(0, 200);
  const name = (f.name ?? "").slice(0, 100);
  if (f.action !== "off" && f.action !== "on") return errorPage(ctx, c, "badRequest", 400);
  try {
    if (f.action === "off") await switchEventOff(ctx.deps, userId, clientId, name);
    else await switchEventOn(ctx.deps, userId, clientId, name);
  } catch (err) {
    if (err instanceof AppError && err.code === "not_found") {
      return appsPage(ctx, c, { error: "appEventNotFound", status: 404 });
    }
    throw err;
  }
  return appsPage(ctx, c, { notice: f.action === "off" ? "eventSwitchedOff" : "eventSwitchedOn" });
}

// --- API keys --------------------------------------------------------------------------------------------

async function keysPage(ctx: Ctx, c: C, p: { newKey?: string; notice?: TextKey; error?: TextKey }) {
  const l = langOfRequest(c);
  const session = await sessionOf(ctx.auth, c);
  if (!session) return c.redirect(LOGIN_PAGE, 303);
  const keys = await listApiKeys(ctx.deps.db, session.userId);
  const csrf = csrfToken(c, ctx.secure);
  return c.html(
    <Layout lang={l} title={t(l, "apiKeys")} signedIn csrf={csrf}>
      {p.error && <p class="error" role="alert">{t(l, p.error)}</p>}
      {p.notice && <p class="notice" role="status">{t(l, p.notice)}</p>}
      {p.newKey && (
        <div class="notice" role="status">
          <p>{t(l, "keyCreated")}</p>
          <code class="key" id="new-key">{p.newKey}</code>
        </div>
      )}
      <form method="post" action="/konto/schluessel">
        <CsrfField token={csrf} />
        <label for="name">{t(l, "keyName")}</label>
        <input id="name" name="name" type="text" required maxlength={100} />
        <button type="submit">{t(l, "createKey")}</button>
      </form>
      {keys.length === 0 ? <p>{t(l, "noKeys")}</p> : (
        <table>
          <thead>
            <tr>
              <th>{t(l, "keyName")}</th>
              <th>{t(l, "apiKeys")}</th>
              <th>{t(l, "created")}</th>
              <th>{t(l, "lastUsed")}</th>
              <th>{t(l, "status")}</th>
            </tr>
          </thead>
          <tbody>
            {keys.map((k) => (
              <tr data-key-id={k.id}>
                <td>{k.name}</td>
                <td>
                  <code>{k.displayPrefix}…</code>
                </td>
                <td>{when(l, new Date(k.created_at))}</td>
                <td>{k.last_used_at ? when(l, new Date(k.last_used_at)) : t(l, "never")}</td>
                <td>
                  {k.revoked_at ? t(l, "revoked") : (
                    <form method="post" action="/konto/schluessel/widerrufen">
                      <CsrfField token={csrf} />
                      <input type="hidden" name="key_id" value={k.id} />
                      <button type="submit">{t(l, "revoke")}</button>
                    </form>
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </Layout>,
  );
}

async function createKey(ctx: Ctx, c: C) {
  const got = await signedInForm(ctx, c);
  if (got instanceof Response) return got;
  const { f, userId } = got;
  const name = (f.name ?? "").trim();
  if (name.length < 1 || name.length > 100) return keysPage(ctx, c, { error: "invalidForm" });
  const created = await createApiKey(ctx.deps.db, userId, name);
  return keysPage(ctx, c, { newKey: created.key });
}

async function revokeKey(ctx: Ctx, c: C) {
  const got = await signedInForm(ctx, c);
  if (got instanceof Response) return got;
  const { f, userId } = got;
  const done = await revokeApiKey(ctx.deps.db, userId, f.key_id ?? "");
  return keysPage(ctx, c, done ? { notice: "keyRevoked" } : { error: "badRequest" });
}
