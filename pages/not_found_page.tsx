/**
 * The HTML "page not found" answer for people's browsers (German or English, with the way back to the start
 * page and the search). API clients keep `{"error":"not_found"}`: `app.ts` decides by `wantsHtmlPage`.
 */
import type { Context } from "hono";
import type { AppEnv } from "../routes/env.ts";
import { langOfRequest, setHtmlPageHeaders } from "./common.ts";
import { t } from "./i18n.ts";
import { Layout } from "./layout.tsx";

/** The 404 page with the pages' HTML headers (CSP, no-store). */
export async function notFoundHtml(c: Context<AppEnv>): Promise<Response> {
  const l = langOfRequest(c);
  const res = await c.html(
    <Layout lang={l} title={t(l, "pageNotFoundTitle")}>
      <p class="error" role="alert" id="not-found">{t(l, "pageNotFound")}</p>
      <ul>
        <li>
          <a href="/" id="back-home">{t(l, "backHome")}</a>
        </li>
        <li>
          <a href="/objekte">{t(l, "backToSearch")}</a>
        </li>
      </ul>
    </Layout>,
    404,
  );
  return setHtmlPageHeaders(res);
}
