/**
 * Calls better-auth on the server for the pages (gap 4 of the notes: sign-in and consent need the browser's
 * request, so its cookies and client address are forwarded), and copies the cookies it sets to our answer.
 */
import type { Context } from "hono";
import { type Auth, AUTH_BASE_PATH, withOwnAdapter } from "../auth/better_auth.ts";
import { clientAddress } from "../routes/client_address.ts";
import type { AppDeps } from "../deps.ts";
import type { AppEnv } from "../routes/env.ts";
import { withClientIp } from "../routes/oauth.ts";

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
  auth: Auth,
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
  const res = await withOwnAdapter(
    auth,
    () => auth.handler(withClientIp(req, clientAddress(c, deps.config.trustProxy))),
  );
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

/** The signed-in person of the browser request, or undefined; looked up once per request. */
export function sessionOf(auth: Auth, c: Context<AppEnv>): Promise<SessionPerson | undefined> {
  let found = sessions.get(c.req.raw);
  if (!found) {
    found = lookUpSession(auth, c.req.raw.headers);
    sessions.set(c.req.raw, found);
  }
  return found;
}

async function lookUpSession(auth: Auth, headers: Headers): Promise<SessionPerson | undefined> {
  const s = await withOwnAdapter(auth, () => auth.api.getSession({ headers })).catch(() => null);
  return s ? { userId: s.user.id, email: s.user.email, name: s.user.name } : undefined;
}

/** Adds better-auth's cookies to our response. */
export function passCookies(c: Context<AppEnv>, cookies: string[]): void {
  for (const k of cookies) c.header("set-cookie", k, { append: true });
}
