/** Small helpers shared by every page module: the page context, language, form reading, dates, ids. */
import type { Context } from "hono";
import type { Auth } from "../auth/better_auth.ts";
import type { AppDeps } from "../deps.ts";
import type { AppEnv } from "../routes/env.ts";
import { mediaTypeIs } from "../routes/media_type.ts";
import { type Lang, langOf } from "./i18n.ts";

type C = Context<AppEnv>;

/** What every page handler needs: the app's dependencies, better-auth and whether cookies are `Secure`. */
export interface PageCtx {
  deps: AppDeps;
  auth: Auth;
  secure: boolean;
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

/** A date and time in Berlin time, in the page's language. */
export function when(l: Lang, d: Date | string): string {
  return new Date(d).toLocaleString(l === "en" ? "en-GB" : "de-DE", {
    timeZone: "Europe/Berlin",
    dateStyle: "medium",
    timeStyle: "short",
  });
}
