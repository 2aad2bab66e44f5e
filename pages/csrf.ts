/**
 * CSRF protection for the pages' forms: a random token in an HttpOnly, SameSite=Lax cookie that every form
 * repeats in a hidden `_csrf` field (double submit), compared in constant time; and a POST whose `Origin` header
 * names another origin is refused outright.
 */
import type { Context } from "hono";
import { getCookie, setCookie } from "hono/cookie";
import { timingSafeEqual } from "../crypto.ts";
import type { AppEnv } from "../routes/env.ts";

const COOKIE = "immo_csrf";

/** The tokens made for requests that came without the cookie: a page asking twice gets the same one. */
const MADE = new WeakMap<Context<AppEnv>, string>();

/** The request's CSRF token, creating the cookie (once per request) when it is missing. */
export function csrfToken(c: Context<AppEnv>, secure: boolean): string {
  const have = getCookie(c, COOKIE);
  if (have && /^[A-Za-z0-9_-]{43}$/.test(have)) return have;
  const made = MADE.get(c);
  if (made) return made;
  const token = randomToken();
  setCookie(c, COOKIE, token, { httpOnly: true, sameSite: "Lax", secure, path: "/" });
  MADE.set(c, token);
  return token;
}

/**
 * Whether a POST's `Origin` is ours or absent. `Origin: null` (privacy settings, some referrer policies) counts as
 * absent: then the form's token decides.
 */
export function originOk(c: Context<AppEnv>, baseUrl: string): boolean {
  const origin = c.req.header("origin");
  return !origin || origin === "null" || origin === new URL(baseUrl).origin;
}

/** Whether a form POST carries the cookie's token and, when the browser sent one, our own Origin. */
export function csrfOk(c: Context<AppEnv>, formToken: unknown, baseUrl: string): boolean {
  if (!originOk(c, baseUrl)) return false;
  const cookie = getCookie(c, COOKIE);
  return typeof formToken === "string" && !!cookie && timingSafeEqual(cookie, formToken);
}

function randomToken(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(32));
  return btoa(String.fromCharCode(...bytes)).replaceAll("+", "-").replaceAll("/", "_").replace(/=+$/, "");
}
