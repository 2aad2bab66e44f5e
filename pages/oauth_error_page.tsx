/**
 * The page better-auth sends a person to when an authorization request cannot be sent back to the app (unknown
 * `client_id`, unregistered `redirect_uri`, …; RFC 6749 §4.1.2.1 forbids redirecting then): what went wrong and
 * what to do, in the browser's language, status 400. Only our own texts and known error codes are shown, never
 * the request's wording.
 */
import { type Lang, langOf, t, type TextKey } from "./i18n.ts";
import { Layout } from "./layout.tsx";

/** The pages' Content-Security-Policy (no scripts, no framing). */
const CSP =
  "default-src 'none'; style-src 'unsafe-inline'; img-src 'self'; base-uri 'none'; frame-ancestors 'none'";

/** Error codes better-auth's authorization endpoint sends to its error page; others show as `invalid_request`. */
const KNOWN_CODES = new Set([
  "invalid_client",
  "client_disabled",
  "unauthorized_client",
  "invalid_redirect",
  "invalid_request",
  "invalid_scope",
  "invalid_target",
  "unsupported_response_type",
  "unsupported_prompt_select_account",
  "request_not_supported",
  "request_uri_not_supported",
  "invalid_request_uri",
]);

/** What went wrong and what to do, per error code. */
function textsOf(code: string): [TextKey, TextKey] {
  if (code === "invalid_client") return ["oauthUnknownApp", "oauthUnknownAppHelp"];
  if (code === "invalid_redirect") return ["oauthBadRedirect", "oauthErrorHelp"];
  if (code === "client_disabled") return ["oauthDisabledApp", "oauthErrorHelp"];
  return ["oauthBadRequest", "oauthErrorHelp"];
}

/** The error page of an authorization request that cannot go back to the app. */
export function OAuthErrorPage(p: { lang: Lang; code: string }) {
  const code = KNOWN_CODES.has(p.code) ? p.code : "invalid_request";
  const [what, help] = textsOf(code);
  return (
    <Layout lang={p.lang} title={t(p.lang, "oauthErrorTitle")}>
      <p class="error" role="alert">{t(p.lang, what)}</p>
      <p>{t(p.lang, help)}</p>
      <p>
        <small>
          {t(p.lang, "oauthErrorCode")}: <code>{code}</code>
        </small>
      </p>
    </Layout>
  );
}

/** The error page as a 400 response for `request` (its `error` parameter and `Accept-Language`). */
export function oauthErrorResponse(request: Request): Response {
  const lang = langOf(request.headers.get("accept-language") ?? undefined);
  const code = new URL(request.url).searchParams.get("error") ?? "";
  // The Layout starts with the doctype, so the page renders in standards mode.
  const html = String(<OAuthErrorPage lang={lang} code={code} />);
  return new Response(html, {
    status: 400,
    headers: {
      "content-type": "text/html; charset=UTF-8",
      "content-security-policy": CSP,
      "cache-control": "no-store",
      "referrer-policy": "same-origin",
      vary: "accept-language",
    },
  });
}
