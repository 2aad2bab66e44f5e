/**
 * A subscription's delivery on the connected-apps page (docs/contract.md §5.7, §6.4): its state (active, or
 * suspended with the kept events and a "reactivate" button), the events being sent again, and its recent attempts
 * (time, event, attempt, status or error category, duration) with "send again" on a failed event. Forms are POSTs
 * with the page's CSRF token; no JavaScript.
 */
import type { AttemptLine, SubscriptionDelivery } from "../events/app_events.ts";
import type { Lang } from "./i18n.ts";
import { type DeliveryTextKey, td } from "./apps_texts.ts";
import { ButtonForm, TableHead, Td } from "./layout.tsx";

/** Where the "reactivate" form posts, under the connected-apps page. */
export const REACTIVATE_PATH = "/reaktivieren";
/** Where the "send again" form posts, under the connected-apps page. */
export const RESEND_PATH = "/erneut-senden";

/** Props of {@linkcode SubscriptionDeliveryView}. */
export interface SubscriptionDeliveryProps {
  l: Lang;
  csrf: string;
  /** The connected-apps page's address (the forms post below it). */
  base: string;
  subscriptionId: string;
  delivery: SubscriptionDelivery;
}

/** A time to the second, Berlin time (attempts follow each other within seconds). */
function Time(p: { l: Lang; at: Date | string }) {
  const d = new Date(p.at);
  const text = d.toLocaleString(p.l === "en" ? "en-GB" : "de-DE", {
    timeZone: "Europe/Berlin",
    dateStyle: "medium",
    timeStyle: "medium",
  });
  return <time datetime={d.toISOString()}>{text}</time>;
}

function categoryText(l: Lang, category: string): string {
  return `${td(l, `cat_${category}` as DeliveryTextKey)} (${category})`;
}

/** The delivery state, kept and resent events, and recent attempts of one subscription. */
export function SubscriptionDeliveryView(p: SubscriptionDeliveryProps) {
  const { l, delivery: d } = p;
  const s = d.status;
  return (
    <div class="delivery" data-delivery-state={s.active ? "active" : "suspended"}>
      {s.active
        ? (
          <p class="delivery-state">
            <strong>{td(l, "deliveryActive")}</strong> · <StateFacts {...p} />
          </p>
        )
        : (
          <div class="warning">
            <p class="delivery-state">
              <strong>{td(l, "deliverySuspended")}</strong> · <StateFacts {...p} />
            </p>
            <p>{td(l, "suspendedExplain")}</p>
            <p>
              {td(l, "keptEvents")}: <strong class="kept">{d.kept}</strong>
            </p>
            <ButtonForm
              action={`${p.base}${REACTIVATE_PATH}`}
              csrf={p.csrf}
              fields={{ subscription_id: p.subscriptionId }}
              label={td(l, "reactivate")}
            />
          </div>
        )}
      {d.resending > 0 && (
        <p class="hint resending">
          {td(l, "resendingEvents")}: <strong>{d.resending}</strong>
        </p>
      )}
      {d.attempts.length === 0 ? <p class="hint">{td(l, "noAttempts")}</p> : <Attempts {...p} />}
    </div>
  );
}

/** Last delivery, last error and since when deliveries fail. */
function StateFacts(p: SubscriptionDeliveryProps) {
  const { l } = p;
  const s = p.delivery.status;
  return (
    <>
      {td(l, "lastDelivery")}:{" "}
      {s.lastDeliveryAt ? <Time l={l} at={s.lastDeliveryAt} /> : td(l, "noDeliveryYet")}
      {s.lastError && <>{" · "}{td(l, "lastError")}: {categoryText(l, s.lastError)}</>}
      {s.failedSince && (
        <>
          {" · "}
          {td(l, "failingSince")} <Time l={l} at={s.failedSince} />
        </>
      )}
    </>
  );
}

function Attempts(p: SubscriptionDeliveryProps) {
  const { l } = p;
  const cols = [
    td(l, "colTime"),
    td(l, "colEvent"),
    td(l, "colAttempt"),
    td(l, "colResult"),
    td(l, "colDuration"),
  ];
  return (
    <table class="attempts">
      <caption style="text-align:left;font-weight:600">{td(l, "recentAttempts")}</caption>
      <TableHead titles={[...cols, ""]} />
      <tbody>
        {p.delivery.attempts.map((a) => (
          <tr data-event-id={a.eventId} data-outcome={a.outcome}>
            <Td label={cols[0]!}>
              <Time l={l} at={a.at} />
            </Td>
            <Td label={cols[1]!}>
              <code>{a.name}</code>{" "}
              <small>
                <code>{a.eventId}</code>
              </small>
            </Td>
            <Td label={cols[2]!}>{a.attempt}</Td>
            <Td label={cols[3]!}>{resultText(l, a)}</Td>
            <Td label={cols[4]!}>{`${a.durationMs} ms`}</Td>
            <td>{a.resendable && <ResendForm {...p} eventId={a.eventId} />}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

/** "HTTP 500 · Serverfehler 5xx (http_5xx) · wird wiederholt", "keine Antwort in 10 s (timeout) · …". */
function resultText(l: Lang, a: AttemptLine): string {
  const parts: string[] = [];
  if (a.status !== null) parts.push(`HTTP ${a.status}`);
  if (a.category) parts.push(categoryText(l, a.category));
  parts.push(td(l, `outcome_${a.outcome}` as DeliveryTextKey));
  return parts.join(" · ");
}

function ResendForm(p: SubscriptionDeliveryProps & { eventId: string }) {
  return (
    <ButtonForm
      action={`${p.base}${RESEND_PATH}`}
      csrf={p.csrf}
      fields={{ subscription_id: p.subscriptionId, event_id: p.eventId }}
      label={td(p.l, "resend")}
      ariaLabel={`${td(p.l, "resend")}: ${p.eventId}`}
    />
  );
}
