/**
 * The OAuth consent page (`/zustimmung`): shows what a client asks for, grants only the rights the person holds,
 * and passes the decision to better-auth.
 */
import { Hono } from "hono";
import type { Context } from "hono";
import { CONSENT_PAGE, grantableScopes, LOGIN_PAGE } from "../auth/auth_settings.ts";
import { personAccess } from "../db/accounts.ts";
import { workspaceOffice } from "../auth/account_home.ts";
import { clientById } from "../db/oauth.ts";
import type { AppEnv } from "../routes/env.ts";
import { callAuth, passCookies, sessionOf } from "./auth_calls.ts";
import { langOfRequest, oauthQuery, type PageCtx, pageMiddleware, queryOf } from "./common.ts";
import { csrfToken } from "./csrf.ts";
import { csrfForm, errorPage } from "./form_checks.tsx";
import { t } from "./i18n.ts";
import { CsrfField, Layout } from "./layout.tsx";

type C = Context<AppEnv>;
type Ctx = PageCtx;

/** The consent routes, mounted at `CONSENT_PAGE`. */
export function consentPageRoutes(ctx: Ctx): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  app.use("*", ...pageMiddleware(ctx));
  app.get("/", (c) => consentPage(ctx, c));
  app.post("/", (c) => consent(ctx, c));
  return app;
}

async function consentPage(ctx: Ctx, c: C) {
  const l = langOfRequest(c);
  const oq = oauthQuery(queryOf(c));
  if (!oq) return errorPage(c, "badRequest", 400);
  const session = await sessionOf(ctx.auth, c);
  if (!session) return c.redirect(`${LOGIN_PAGE}?${oq}`, 303);
  const q = new URLSearchParams(oq);
  const client = await clientById(ctx.deps.db, q.get("client_id") ?? "");
  if (!client || client.disabled) return errorPage(c, "badRequest", 400);
  const requested = (q.get("scope") ?? "").split(" ").filter(Boolean);
  const access = await personAccess(ctx.deps.db, session.userId);
  const granted = grantableScopes(requested, access);
  const hasRight = granted.some((s) => s === "lesen" || s === "suchen");
  const provider = workspaceOffice(access) !== undefined;
  let host = "";
  try {
    host = new URL(q.get("redirect_uri") ?? "").host;
  } catch { /* shown empty */ }
  return c.html(
    <Layout
      lang={l}
      title={t(l, "consentTitle")}
      signedIn
      provider={provider}
      csrf={csrfToken(c, ctx.secure)}
    >
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
  const f = await csrfForm(ctx, c);
  if (f instanceof Response) return f;
  const oq = oauthQuery(f.oauth_query);
  if (!oq) return errorPage(c, "badRequest", 400);
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
  if (typeof target !== "string") return errorPage(c, "badRequest", 400);
  return c.redirect(target, 303);
}
