/**
 * Pages reached from mails to inquirers (inquiries/inquirer_mail.ts), server-rendered, German or English, no
 * JavaScript:
 *
 * - `GET /anfrage-mails/abbestellen/<inquiry id, 32 hex>-<stop token>`: the stop link of every mail about an
 *   inquiry; shows a confirm button only (mail scanners fetch GET links, so GET changes nothing).
 * - `POST` to the same URL: stops every further mail about that inquiry. It is also the one-click target of
 *   `List-Unsubscribe-Post: List-Unsubscribe=One-Click` (RFC 8058), which mail programs send without cookies: the
 *   unguessable token in the URL is the authorisation, so no CSRF cookie is required; a POST whose `Origin` names
 *   another site is refused. A malformed link, an unknown inquiry or a wrong token: 404, nothing changes.
 * - `GET/POST /konto/benachrichtigungen`: a signed-in person switches mails about their inquiries on or off
 *   (CSRF-protected form; a saved form redirects to `?gespeichert=1`, which shows "Gespeichert").
 */
import { Hono } from "hono";
import type { Context } from "hono";
import { LOGIN_PAGE } from "../auth/auth_settings.ts";
import {
  inquiryMailSetting,
  setInquiryMailSetting,
  stopLinkValid,
  stopMailsByLink,
} from "../inquiries/inquirer_mail.ts";
import { STOP_PATH } from "../inquiries/inquiry_address.ts";
import type { AppEnv } from "../routes/env.ts";
import { langOfRequest, pageAct, type PageCtx } from "./common.ts";
import { csrfToken } from "./csrf.ts";
import { signedInForm } from "./form_checks.tsx";
import type { Lang } from "./i18n.ts";
import { CsrfField, Layout } from "./layout.tsx";
import { sessionOf } from "./auth_calls.ts";
import { stopByLink, StopForm, type StopOutcome } from "./ui_stop_link.tsx";

type C = Context<AppEnv>;

/** The path of the mail settings page. */
const MAIL_SETTINGS_PAGE = "/konto/benachrichtigungen";

const TEXT = {
  de: {
    stopTitle: "Keine E-Mails mehr zu dieser Anfrage",
    stopAsk: "Möchten Sie keine weiteren E-Mails zu dieser Anfrage erhalten?",
    stopButton: "Keine E-Mails mehr senden",
    stopped: "Erledigt: Sie erhalten keine weiteren E-Mails zu dieser Anfrage.",
    notFoundTitle: "Nicht gefunden",
    notFound: "Dieser Link ist ungültig.",
    badOrigin: "Die Anfrage kam nicht von dieser Seite.",
    settingsTitle: "Benachrichtigungen",
    settingsLabel: "E-Mails zu meinen Anfragen (Antworten, Absagen, geänderte Besichtigungen)",
    settingsHint: "Ohne diese E-Mails sehen Sie Antworten nur unter „Meine Anfragen“.",
    save: "Speichern",
    saved: "Gespeichert.",
    badForm: "Das Formular ist abgelaufen. Bitte versuchen Sie es erneut.",
  },
  en: {
    stopTitle: "No more e-mails about this inquiry",
    stopAsk: "Do you want to stop e-mails about this inquiry?",
    stopButton: "Stop these e-mails",
    stopped: "Done: you will get no more e-mails about this inquiry.",
    notFoundTitle: "Not found",
    notFound: "This link is not valid.",
    badOrigin: "The request did not come from this site.",
    settingsTitle: "Notifications",
    settingsLabel: "E-mails about my inquiries (replies, rejections, changed viewings)",
    settingsHint: "Without these e-mails you see replies only under “My inquiries”.",
    save: "Save",
    saved: "Saved.",
    badForm: "The form has expired. Please try again.",
  },
} as const satisfies Record<Lang, Record<string, string>>;

type Key = keyof typeof TEXT.de;

function tx(l: Lang, k: Key): string {
  return TEXT[l][k];
}

/** The routes of the stop link and of the mail settings page. */
export function inquiryMailPageRoutes(ctx: PageCtx): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  app.get(`${STOP_PATH}/:ref`, (c) => stopPage(ctx, c));
  app.post(`${STOP_PATH}/:ref`, (c) => stop(ctx, c));
  app.get(MAIL_SETTINGS_PAGE, (c) => settingsPage(ctx, c, { saved: c.req.query("gespeichert") === "1" }));
  app.post(MAIL_SETTINGS_PAGE, (c) => saveSettings(ctx, c));
  return app;
}

/** A page with one message (`role` alert for errors, status for success). */
function messagePage(c: C, title: Key, text: Key, status: 200 | 403 | 404) {
  const l = langOfRequest(c);
  return c.html(
    <Layout lang={l} title={tx(l, title)}>
      <p class={status === 200 ? "notice" : "error"} role={status === 200 ? "status" : "alert"}>
        {tx(l, text)}
      </p>
    </Layout>,
    status,
  );
}

async function stopPage(ctx: PageCtx, c: C) {
  const ref = c.req.param("ref") ?? "";
  if (!await stopLinkValid(ctx.deps, ref)) return messagePage(c, "notFoundTitle", "notFound", 404);
  const l = langOfRequest(c);
  return c.html(
    <Layout lang={l} title={tx(l, "stopTitle")}>
      <p>{tx(l, "stopAsk")}</p>
      <StopForm action={`${STOP_PATH}/${ref}`} label={tx(l, "stopButton")} />
    </Layout>,
  );
}

/** The answer pages of the stop POST, by outcome: title, text and status. */
const STOP_ANSWERS: Record<StopOutcome, [Key, Key, 200 | 403 | 404]> = {
  badOrigin: ["stopTitle", "badOrigin", 403],
  unknownLink: ["notFoundTitle", "notFound", 404],
  stopped: ["stopTitle", "stopped", 200],
};

function stop(ctx: PageCtx, c: C) {
  return stopByLink(ctx, c, stopMailsByLink, (outcome) => messagePage(c, ...STOP_ANSWERS[outcome]));
}

async function settingsPage(ctx: PageCtx, c: C, state: { saved?: boolean; error?: boolean }) {
  const person = await sessionOf(ctx.auth, c);
  if (!person) return c.redirect(LOGIN_PAGE, 303);
  const on = await inquiryMailSetting(ctx.deps, person.userId);
  const l = langOfRequest(c);
  const csrf = csrfToken(c, ctx.secure);
  return c.html(
    <Layout lang={l} title={tx(l, "settingsTitle")} signedIn csrf={csrf}>
      {state.saved && <p class="notice" role="status">{tx(l, "saved")}</p>}
      {state.error && <p class="error" role="alert">{tx(l, "badForm")}</p>}
      <form method="post" action={MAIL_SETTINGS_PAGE}>
        <CsrfField token={csrf} />
        <input type="hidden" name="gesendet" value="1" />
        <label>
          <input type="checkbox" name="anfrage_mails" value="an" checked={on} /> {tx(l, "settingsLabel")}
        </label>
        <p class="hint">{tx(l, "settingsHint")}</p>
        <button type="submit">{tx(l, "save")}</button>
      </form>
    </Layout>,
    state.error ? 400 : 200,
  );
}

async function saveSettings(ctx: PageCtx, c: C) {
  const form = await signedInForm(ctx, c);
  if (form instanceof Response) return form;
  if (form.f.gesendet !== "1") return await settingsPage(ctx, c, { error: true });
  const on = form.f.anfrage_mails === "an";
  await pageAct(ctx, { kind: "person", userId: form.userId }, (a) => setInquiryMailSetting(a, on));
  return c.redirect(`${MAIL_SETTINGS_PAGE}?gespeichert=1`, 303);
}
