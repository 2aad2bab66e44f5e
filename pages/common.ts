/**
 * Small helpers shared by every page module: the page context, the page middleware, language, form reading, the
 * OAuth query, dates.
 */
import type { Context, MiddlewareHandler } from "hono";
import { accepts } from "hono/accepts";
import type { AuthHandle } from "../auth/auth_handle.ts";
import { act, type Action, type Actor, type AppDeps } from "../deps.ts";
import type { AppEnv } from "../routes/env.ts";
import { mediaTypeIs } from "../routes/media_type.ts";
import { WRITE_METHODS, writeLimit } from "../routes/rate_limit.ts";
import { sessionOf } from "./auth_calls.ts";
import { type Lang, langOf } from "./i18n.ts";
import { personAccess } from "../db/accounts.ts";
import { workspaceOffice } from "../auth/account_home.ts";

type C = Context<AppEnv>;

/** What every page handler needs: the app's dependencies, better-auth and whether cookies are `Secure`. */
export interface PageCtx {
  deps: AppDeps;
  auth: AuthHandle;
  secure: boolean;
}

const CSP =
  "default-src 'none'; style-src 'unsafe-inline'; img-src 'self'; base-uri 'none'; frame-ancestors 'none'";

/** The headers of every HTML answer: a strict CSP, `no-store`, same-origin referrers, `vary` on language and cookie. */
export const htmlPageHeaders: MiddlewareHandler<AppEnv> = async (c, next) => {
  await next();
  setHtmlPageHeaders(c.res);
};

/** Sets the headers of an HTML answer on `res` (nothing for another content type); returns `res`. */
export function setHtmlPageHeaders(res: Response): Response {
  if (res.headers.get("content-type")?.startsWith("text/html")) {
    res.headers.set("content-security-policy", CSP);
    res.headers.set("cache-control", "no-store");
    res.headers.set("referrer-policy", "same-origin");
    res.headers.set("vary", "accept, accept-language, cookie");
  }
  return res;
}

/**
 * The middleware every page gets: its HTML headers, the signed-in person of a form sent (spec §8 counts signed-in
 * callers per account, others per address; the handler reuses that lookup), then the write bucket. Each may meet a
 * request more than once (the headers are set again, the person is looked up and the bucket counts once).
 */
export function pageMiddleware(ctx: PageCtx): MiddlewareHandler<AppEnv>[] {
  return [htmlPageHeaders, writerAccount(ctx), writeLimit(ctx.deps)];
}

/** Sets `accountId` for a write request of a signed-in person, so that the write bucket counts the account. */
function writerAccount(ctx: PageCtx): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    if (WRITE_METHODS.has(c.req.method) && !c.get("writeCounted") && !c.get("accountId")) {
      const session = await sessionOf(ctx.auth, c);
      if (session) c.set("accountId", session.userId);
    }
    await next();
  };
}

/** The language of the request. */
export function langOfRequest(c: C): Lang {
  return langOf(c.req.header("accept-language"));
}

/**
 * The string fields of a urlencoded or multipart form body, without NUL characters (no form field holds one, and
 * Postgres text refuses them); another or a malformed content type, or a body that does not parse, gives `{}`.
 */
export async function readForm(c: C): Promise<Record<string, string>> {
  const type = c.req.header("content-type");
  if (!mediaTypeIs(type, "application/x-www-form-urlencoded", "multipart/form-data")) return {};
  const body = await c.req.parseBody().catch(() => ({}));
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(body)) if (typeof v === "string") out[k] = v.replaceAll("\0", "");
  return out;
}

/**
 * The signed OAuth query of a page URL or form (only when it carries better-auth's signature, and only in the
 * printable ASCII of a URL: it ends up in a Location header).
 */
export function oauthQuery(raw: string | undefined): string | undefined {
  if (!raw) return undefined;
  const q = raw.startsWith("?") ? raw.slice(1) : raw;
  return /^[!-~]{1,8192}$/.test(q) && new URLSearchParams(q).has("sig") ? q : undefined;
}

/** The query string of the request's URL, without its `?`. */
export function queryOf(c: C): string {
  return new URL(c.req.url).search.slice(1);
}

/** A date and time in Berlin time, in the page's language. */
export function when(l: Lang, d: Date | string): string {
  return new Date(d).toLocaleString(l === "en" ? "en-GB" : "de-DE", {
    timeZone: "Europe/Berlin",
    dateStyle: "medium",
    timeStyle: "short",
  });
}

/** Paths that belong to API clients: they always get JSON errors, whatever they accept. */
const API_PATHS = /^\/(api(\/|$)|mcp(\/|$)|\.well-known(\/|$)|healthz(\/|$))/;

/**
 * Whether the request gets an HTML page (start page, 404 page) rather than JSON: never under `/api/`, `/mcp`,
 * `/.well-known/`, `/healthz`; otherwise when Accept names text/html and prefers it to application/json (hono's
 * `accepts`: a higher quality, or an equal one listed first).
 */
export function wantsHtmlPage(c: C): boolean {
  const accept = c.req.header("accept");
  if (API_PATHS.test(c.req.path) || !accept || !/text\/html/i.test(accept)) return false;
  const supports = ["text/html", "application/json"];
  return accepts(c, { header: "Accept", supports, default: "application/json" }) === "text/html";
}

/** Whether the signed-in person `userId` may use the workspace (the header then links to `/anbieter`). */
export async function isProvider(ctx: PageCtx, userId: string): Promise<boolean> {
  return workspaceOffice(await personAccess(ctx.deps.db, userId)) !== undefined;
}

/**
 * Runs a page's write as one action of `actor` (`act`). Pages come through no app, so the action has no origin and
 * every subscribed app hears of what it does.
 */
export function pageAct<T>(ctx: PageCtx, actor: Actor, fn: (a: Action) => Promise<T>): Promise<T> {
  return act(ctx.deps, { actor, origin: null }, fn);
}
