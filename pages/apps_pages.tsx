/**
 * The connected-apps pages (`/konto/apps`): the apps a person connected, each app's event subscriptions with their
 * delivery and recent attempts (`apps_delivery.tsx`) and switches, disconnecting an app, switching one of its events
 * off or on, reactivating a suspended subscription and sending a failed event again.
 */
import { Hono } from "hono";
import type { Context } from "hono";
import { LOGIN_PAGE } from "../auth/auth_settings.ts";
import { disconnectApp } from "../auth/connections.ts";
import { connectionsOf } from "../db/oauth.ts";
import { AppError } from "../errors.ts";
import {
  type AppEvents,
  appSubscriptions,
  eventsOfScopes,
  switchEventOff,
  switchEventOn,
} from "../events/app_events.ts";
import { type EventName, isEventName } from "../events/catalogue.ts";
import { reactivateSubscription, resendEvent } from "../events/suspension.ts";
import type { AppEnv } from "../routes/env.ts";
import { sessionOf } from "./auth_calls.ts";
import { isProvider, langOfRequest, pageAct, type PageCtx, pageMiddleware, when } from "./common.ts";
import { csrfToken } from "./csrf.ts";
import { errorPage, signedInForm } from "./form_checks.tsx";
import { type Lang, t, type TextKey } from "./i18n.ts";
import { ButtonForm, Layout, TableHead, Td } from "./layout.tsx";
import { REACTIVATE_PATH, RESEND_PATH, SubscriptionDeliveryView } from "./apps_delivery.tsx";
import { td } from "./apps_texts.ts";

type C = Context<AppEnv>;
type Ctx = PageCtx;

/** The address of the connected-apps page (also where sign-in lands and `/konto` leads). */
export const APPS_PAGE = "/konto/apps";

/** The connected-apps routes, mounted at `APPS_PAGE`. */
export function appsPageRoutes(ctx: Ctx): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  app.use("*", ...pageMiddleware(ctx));
  app.get("/", (c) => appsPage(ctx, c));
  app.post("/trennen", (c) => disconnect(ctx, c));
  app.post("/ereignis", (c) => switchEvent(ctx, c));
  app.post(REACTIVATE_PATH, (c) => reactivate(ctx, c));
  app.post(RESEND_PATH, (c) => resend(ctx, c));
  return app;
}

/** What each event is, in one line for people (docs/contract.md §6.6 provider server, §6.7 seeker server). */
const EVENT_LABELS: Record<EventName, TextKey> = {
  "inquiry.received": "evInquiryReceived",
  "message.received": "evMessageReceived",
  "viewing.booked": "evViewingBooked",
  "viewing.cancelled": "evViewingCancelled",
  "proposal.pending": "evProposalPending",
  "file.processed": "evFileProcessed",
  "viewing.upcoming": "evViewingUpcoming",
  "social.received": "evSocialReceived",
  "matches.new": "evMatchesNew",
  "reply.received": "evReplyReceived",
  "viewing.changed": "evViewingChanged",
};

/** What switching an event on means for the person: what the app then learns, and when. */
const EVENT_EXPLANATIONS: Record<EventName, TextKey> = {
  "inquiry.received": "evdInquiryReceived",
  "message.received": "evdMessageReceived",
  "viewing.booked": "evdViewingBooked",
  "viewing.cancelled": "evdViewingCancelled",
  "proposal.pending": "evdProposalPending",
  "file.processed": "evdFileProcessed",
  "viewing.upcoming": "evdViewingUpcoming",
  "social.received": "evdSocialReceived",
  "matches.new": "evdMatchesNew",
  "reply.received": "evdReplyReceived",
  "viewing.changed": "evdViewingChanged",
};

function eventLabel(l: Lang, name: string): string {
  return isEventName(name) ? t(l, EVENT_LABELS[name]) : name;
}

/** The page, with a notice or an error (texts) above it. */
async function appsPage(
  ctx: Ctx,
  c: C,
  p: { notice?: string; error?: string; status?: 200 | 404 | 409 } = {},
) {
  const l = langOfRequest(c);
  const session = await sessionOf(ctx.auth, c);
  if (!session) return c.redirect(LOGIN_PAGE, 303);
  const [apps, events, provider] = await Promise.all([
    connectionsOf(ctx.deps.db.kysely, session.userId),
    appSubscriptions(ctx.deps, session.userId),
    isProvider(ctx, session.userId),
  ]);
  const csrf = csrfToken(c, ctx.secure);
  return c.html(
    <Layout lang={l} title={t(l, "connectedApps")} signedIn provider={provider} csrf={csrf}>
      {p.error && <p class="error" role="alert">{p.error}</p>}
      {p.notice && <p class="notice" role="status">{p.notice}</p>}
      {apps.length === 0 ? <p>{t(l, "noApps")}</p> : (
        <table>
          <TableHead titles={[t(l, "app"), t(l, "right"), t(l, "connectedAt"), t(l, "lastUsed"), ""]} />
          <tbody>
            {apps.map((a) => (
              <tr data-client-id={a.clientId}>
                <Td label={t(l, "app")}>{a.clientName ?? a.clientId}</Td>
                <Td label={t(l, "right")}>{a.scopes.filter((s) => s !== "offline_access").join(", ")}</Td>
                <Td label={t(l, "connectedAt")}>{when(l, a.connectedAt)}</Td>
                <Td label={t(l, "lastUsed")}>{a.lastUsedAt ? when(l, a.lastUsedAt) : t(l, "never")}</Td>
                <td>
                  <ButtonForm
                    action={`${APPS_PAGE}/trennen`}
                    csrf={csrf}
                    fields={{ client_id: a.clientId }}
                    label={t(l, "disconnect")}
                  />
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {apps.map((a) => (
        <AppEventsCard
          l={l}
          csrf={csrf}
          clientId={a.clientId}
          appName={a.clientName ?? a.clientId}
          offered={eventsOfScopes(a.scopes)}
          events={events.get(a.clientId)}
        />
      ))}
    </Layout>,
    p.status ?? 200,
  );
}

/**
 * One app's events (lists, not tables): its active subscriptions, and a switch for each event its server offers.
 * Switching off ends the app's subscriptions of that event at once; the app cannot subscribe to it again until
 * the event is switched on.
 */
function AppEventsCard(p: {
  l: Lang;
  csrf: string;
  clientId: string;
  appName: string;
  offered: EventName[];
  events: AppEvents | undefined;
}) {
  const { l } = p;
  const subs = p.events?.subscriptions ?? [];
  const off = new Set(p.events?.switchedOff ?? []);
  if (p.offered.length === 0 && subs.length === 0) return null;
  return (
    <section class="card" data-app-events={p.clientId}>
      <h2>
        {t(l, "appEventsOf")} {p.appName}
      </h2>
      <h3>{t(l, "activeSubscriptions")}</h3>
      {subs.length === 0 ? <p class="no-subscriptions">{t(l, "noSubscriptions")}</p> : (
        <>
          <ul class="subscriptions">
            {subs.map((s) => (
              <li data-subscription-id={s.id} data-event={s.name}>
                <strong>{eventLabel(l, s.name)}</strong> (<code>{s.name}</code>) · {t(l, "filter")}:{" "}
                {Object.keys(s.filter).length === 0
                  ? t(l, "noFilter")
                  : Object.entries(s.filter).map(([k, v]) => `${k}=${v}`).join(", ")} ·{" "}
                {t(l, "deliveryAddress")}: <code class="address">{s.address}</code> · {t(l, "validUntil")}
                {" "}
                <time datetime={s.refreshBefore.toISOString()}>{when(l, s.refreshBefore)}</time>
                <SubscriptionDeliveryView
                  l={l}
                  csrf={p.csrf}
                  base={APPS_PAGE}
                  subscriptionId={s.id}
                  delivery={s.delivery}
                />
              </li>
            ))}
          </ul>
          <p class="hint">{t(l, "disconnectEndsSubscriptions")}</p>
        </>
      )}
      {p.offered.length > 0 && (
        <>
          <h3>{t(l, "eventSwitches")}</h3>
          <ul class="switches">
            {p.offered.map((name) => {
              const isOff = off.has(name);
              return (
                <li data-event={name} data-state={isOff ? "off" : "on"}>
                  <span class="event-label">{t(l, EVENT_LABELS[name])}</span>:{" "}
                  <strong>{t(l, isOff ? "eventIsOff" : "eventIsOn")}</strong>
                  <ButtonForm
                    class="inline"
                    action={`${APPS_PAGE}/ereignis`}
                    csrf={p.csrf}
                    fields={{ client_id: p.clientId, name, action: isOff ? "on" : "off" }}
                    label={t(l, isOff ? "switchOn" : "switchOff")}
                  />
                  <br />
                  <small>
                    {t(l, EVENT_EXPLANATIONS[name])} {t(l, "eventTechnicalName")}: <code>{name}</code>
                  </small>
                </li>
              );
            })}
          </ul>
        </>
      )}
    </section>
  );
}

async function disconnect(ctx: Ctx, c: C) {
  const got = await signedInForm(ctx, c);
  if (got instanceof Response) return got;
  const { f, userId } = got;
  const clientId = (f.client_id ?? "").slice(0, 200);
  const before = (await appSubscriptions(ctx.deps, userId)).get(clientId)?.subscriptions.length ?? 0;
  const existed = await pageAct(ctx, { kind: "person", userId }, (a) => disconnectApp(a, userId, clientId));
  const l = langOfRequest(c);
  return appsPage(ctx, c, { notice: t(l, existed && before > 0 ? "disconnectedEvents" : "disconnected") });
}

/** Switches one event of one app off or on (form fields client_id, name, action off|on). */
async function switchEvent(ctx: Ctx, c: C) {
  const got = await signedInForm(ctx, c);
  if (got instanceof Response) return got;
  const { f, userId } = got;
  const clientId = (f.client_id ?? "").slice(0, 200);
  const name = (f.name ?? "").slice(0, 100);
  if (f.action !== "off" && f.action !== "on") return errorPage(c, "badRequest", 400);
  try {
    await pageAct(ctx, { kind: "person", userId }, async (a) => {
      if (f.action === "off") await switchEventOff(a, userId, clientId, name);
      else await switchEventOn(a, userId, clientId, name);
    });
  } catch (err) {
    if (err instanceof AppError && err.code === "not_found") {
      return appsPage(ctx, c, { error: t(langOfRequest(c), "appEventNotFound"), status: 404 });
    }
    throw err;
  }
  const l = langOfRequest(c);
  return appsPage(ctx, c, { notice: t(l, f.action === "off" ? "eventSwitchedOff" : "eventSwitchedOn") });
}

/** Reactivates a suspended subscription of the person (form field subscription_id). */
async function reactivate(ctx: Ctx, c: C) {
  const got = await signedInForm(ctx, c);
  if (got instanceof Response) return got;
  const l = langOfRequest(c);
  try {
    const id = (got.f.subscription_id ?? "").slice(0, 40);
    const done = await pageAct(
      ctx,
      { kind: "person", userId: got.userId },
      (a) => reactivateSubscription(a, id),
    );
    return appsPage(ctx, c, { notice: td(l, done.reactivated ? "reactivated" : "alreadyActive") });
  } catch (err) {
    if (err instanceof AppError && err.code === "not_found") {
      return appsPage(ctx, c, { error: td(l, "subscriptionNotFound"), status: 404 });
    }
    throw err;
  }
}

/** Sends a failed event of one of the person's subscriptions again (form fields subscription_id, event_id). */
async function resend(ctx: Ctx, c: C) {
  const got = await signedInForm(ctx, c);
  if (got instanceof Response) return got;
  const { f, userId } = got;
  const l = langOfRequest(c);
  try {
    const [id, eventId] = [(f.subscription_id ?? "").slice(0, 40), (f.event_id ?? "").slice(0, 40)];
    await pageAct(ctx, { kind: "person", userId }, (a) => resendEvent(a, id, eventId));
    return appsPage(ctx, c, { notice: td(l, "resent") });
  } catch (err) {
    if (err instanceof AppError && err.code === "not_found") {
      return appsPage(ctx, c, { error: td(l, "resendRefused"), status: 404 });
    }
    if (err instanceof AppError && err.code === "conflict") {
      return appsPage(ctx, c, { error: td(l, "resendSuspended"), status: 409 });
    }
    throw err;
  }
}
