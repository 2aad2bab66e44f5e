/**
 * Ways back that a page carries in its links and forms, checked so that none leads off the site (no open
 * redirect):
 *
 * - the search a seeker came from (`suche`, the query string of `/objekte`): the listing page, the inquiry form
 *   and the pages after an inquiry link "Zur Objektsuche" to `/objekte?<that query>`. Only parameter names of
 *   lower-case letters and `_` with short values are kept and the query is written anew, so the link always stays
 *   on `/objekte`;
 * - the page to return to after signing in (`weiter`): a path of this site under `/objekte` or `/konto`.
 */
import type { Context } from "hono";
import type { AppEnv } from "../routes/env.ts";

/** Longest search query carried back. */
const SEARCH_QUERY_MAX = 1000;
/** Most parameters of a search query carried back. */
const SEARCH_PARAMS_MAX = 20;
/** The path of the search. */
export const SEARCH_PAGE = "/objekte";

/**
 * The search query of `raw` (with or without `?`) as it is carried back: its parameters with names of `a`–`z` and
 * `_` (at most 30) and values of at most 200 characters, written anew; undefined when there is none or it is too
 * long.
 */
export function searchBack(raw: string | undefined): string | undefined {
  if (!raw || raw.length > SEARCH_QUERY_MAX * 3) return undefined;
  const q = new URLSearchParams();
  let n = 0;
  for (const [k, v] of new URLSearchParams(raw.startsWith("?") ? raw.slice(1) : raw)) {
    if (!/^[a-z_]{1,30}$/.test(k) || v.length > 200 || v.trim() === "") continue;
    if (++n > SEARCH_PARAMS_MAX) return undefined;
    q.append(k, v);
  }
  const s = q.toString();
  return s && s.length <= SEARCH_QUERY_MAX ? s : undefined;
}

/** The address of the search `back` leads to (`/objekte` without one). */
export function searchHref(back: string | undefined): string {
  return back ? `${SEARCH_PAGE}?${back}` : SEARCH_PAGE;
}

/**
 * The search a request came from: its `suche` parameter, else the query of its `Referer` when that is this site's
 * search page (the pages send `Referrer-Policy: same-origin`, so a search page's address reaches the listing).
 */
export function searchOfRequest(c: Context<AppEnv>, baseUrl: string): string | undefined {
  const given = c.req.query("suche");
  if (given !== undefined) return searchBack(given);
  const referer = c.req.header("referer");
  if (!referer) return undefined;
  try {
    const from = new URL(referer);
    const self = new URL(c.req.url);
    const sameSite = from.origin === self.origin || from.origin === new URL(baseUrl).origin;
    return sameSite && from.pathname === SEARCH_PAGE ? searchBack(from.search) : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The page to return to after signing in, from `raw`: a path of this site (never `//host` or `/\host`) under
 * `/objekte` or `/konto`, with its query; undefined for anything else.
 */
export function returnPath(raw: string | undefined, baseUrl: string): string | undefined {
  if (!raw || raw.length > 2000 || !raw.startsWith("/") || /^\/[\/\\]/.test(raw) || /[\\\s]/.test(raw)) {
    return undefined;
  }
  try {
    const base = new URL(baseUrl);
    const u = new URL(raw, base);
    if (u.origin !== base.origin) return undefined;
    const ok = u.pathname === SEARCH_PAGE || u.pathname === "/konto" || u.pathname.startsWith("/konto/");
    return ok ? `${u.pathname}${u.search}` : undefined;
  } catch {
    return undefined;
  }
}
