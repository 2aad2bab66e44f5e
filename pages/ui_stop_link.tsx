/**
 * The stop links in mails (inquiry mails, search alerts): `GET` shows a confirm button only (mail scanners fetch
 * GET links, so GET changes nothing); the button's `POST` — also the RFC 8058 one-click target, sent without
 * cookies — stops the mails. The unguessable token in the link authorises it, so there is no CSRF token; a POST
 * whose `Origin` names another site is refused.
 */
import type { Context } from "hono";
import type { Action } from "../deps.ts";
import type { AppEnv } from "../routes/env.ts";
import { pageAct, type PageCtx } from "./common.ts";
import { originOk } from "./csrf.ts";

/** The confirm button of a stop link's page: a form posting to `action` (the link's own address). */
export function StopForm(p: { action: string; label: string }) {
  return (
    <>
      {/* No CSRF token: the one-click stop POST takes none (the token in the link authorises it). */}
      <form method="post" action={p.action}>
        <button type="submit">{p.label}</button>
      </form>
    </>
  );
}

/** What a stop link's POST came to: another site's `Origin` (403), an unknown or wrong link (404), or stopped. */
export type StopOutcome = "badOrigin" | "unknownLink" | "stopped";

/** The POST of a stop link `ref`: `stop` runs as a guest's action and tells whether the link was valid. */
export async function stopByLink(
  ctx: PageCtx,
  c: Context<AppEnv>,
  stop: (a: Action, ref: string) => Promise<boolean>,
  answer: (outcome: StopOutcome) => Response | Promise<Response>,
): Promise<Response> {
  if (!originOk(c, ctx.deps.config.baseUrl)) return await answer("badOrigin");
  const ref = c.req.param("ref") ?? "";
  const stopped = await pageAct(ctx, { kind: "guest" }, (a) => stop(a, ref));
  return await answer(stopped ? "stopped" : "unknownLink");
}
