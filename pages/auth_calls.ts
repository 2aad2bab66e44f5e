/**
 * Calls better-auth on the server for the pages (gap 4 of the notes: sign-in and consent need the browser's
 * request, so its cookies and client address are forwarded), and copies the cookies it sets to our answer.
 */
import type { Context } from "hono";
import { AUTH_BASE_PATH } from "../auth/auth_settings.ts";
import type { AuthHandle } from "../auth/auth_handle.ts";
import { clientAddress } from "../routes/client_address.ts";
import type { AppDeps } from "../deps.ts";
import type { AppEnv } from "../routes/env.ts";
import { withClientIp } from "../routes/oauth.ts";

/**
 * The name part of better-auth's session cookie (`better-auth.session_token`, `__Secure-` prefixed under https;
 * the prefix is better-auth's default, `authOptions` keeps it).
 */
const SESSION_COOKIE = "better-auth.session_token=";

/** What a better-auth call answered: status, JSON body and the cookies it set. */
export interface AuthAnswer {
  status: number;
  // deno-lint-ignore no-explicit-any
  body: any;
  setCookies: string[];
}

/** POSTs `body` as JSON to better-auth's `path` on behalf of the browser that sent `c`. */
export async function callAuth(
  deps: AppDeps,
  auth: AuthHandle,
  c: Context<AppEnv>,
  path: string,
  body: unknown,
): Promise<AuthAnswer> {
  const headers = new Headers({
    "content-type": "application/json",
    accept: "application/json",
    origin: new URL(deps.config.baseUrl).origin,
  });
  const cookie = c.req.header("cookie");
  if (cookie) headers.set("cookie", cookie);
  const ua = c.req.header("user-agent");
  if (ua) headers.set("user-agent", ua);
  const req = new Request(`${deps.config.baseUrl}${AUTH_BASE_PATH}${path}`, {
    method: "POST",
    headers,
    body: JSON.stringify(body),
  });
  const res = await auth.run((a) => a.handler(withClientIp(req, clientAddress(c, deps.config.trustProxy))));
  const text = await res.text();
  let parsed: unknown = null;
  try {
    parsed = text ? JSON.parse(text) : null;
  } catch {
    parsed = null;
  }
  const location = res.headers.get("location");
  if (location && parsed === null) parsed = { url: location };
  return { status: res.status, body: parsed, setCookies: res.headers.getSetCookie() };
}

/** The signed-in person of a browser request. */
export interface SessionPerson {
  userId: string;
  email: string;
  name: string;
}

/** The lookup of each request's session, made once (the page middleware and the handler both ask). */
const sessions = new WeakMap<Request, Promise<SessionPerson | undefined>>();

/**
 * The signed-in person of the browser request, or undefined; looked up once per request. A request without a
 * session cookie has no session: it is answered without asking better-auth (so an anonymous page view never loads
 * it).
 */
export function sessionOf(auth: AuthHandle, c: Context<AppEnv>): Promise<SessionPerson | undefined> {
  if (!c.req.header("cookie")?.includes(SESSION_COOKIE)) return Promise.resolve(undefined);
  let found = sessions.get(c.req.raw);
  if (!found) {
    found = lookUpSession(auth, c.req.raw.headers);
    sessions.set(c.req.raw, found);
  }
  return found;
}

async function lookUpSession(auth: AuthHandle, headers: Headers): Promise<SessionPerson | undefined> {
  const s = await auth.run((a) => a.api.getSession({ headers })).catch(() => null);
  return s ? { userId: s.user.id, email: s.user.email, name: s.user.name } : undefined;
}

/** Adds better-auth's cookies to our response. */
export function passCookies(c: Context<AppEnv>, cookies: string[]): void {
  for (const k of cookies) c.header("set-cookie", k, { append: true });
}
