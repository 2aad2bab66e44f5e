/**
 * The account start page `/konto` (server-rendered, no JavaScript): where a seeker lands after signing in and
 * after confirming the e-mail address. It shows the latest inquiries with their status, the saved searches with
 * their e-mail alerts (the table of `/konto/suchen`), and links to the other account pages. Not signed in: to the
 * sign-in page, which brings the person back here.
 */
import type { Context } from "hono";
import { ACCOUNT_PAGE } from "../auth/account_home.ts";
import { LOGIN_PAGE } from "../auth/auth_settings.ts";
import { type InquirySummary, listSeekerInquiries } from "../inquiries/inquiries.ts";
import { listSavedSearches, SAVED_SEARCH_MAX } from "../searches/saved_searches.ts";
import { SAVED_SEARCHES_PAGE, searchAlerts } from "../searches/search_alerts.ts";
import type { AppEnv } from "../routes/env.ts";
import { langOfRequest, type PageCtx, when } from "./common.ts";
import { csrfToken } from "./csrf.ts";
import { type Lang, t, type TextKey } from "./i18n.ts";
import { Layout } from "./layout.tsx";
import { personOf } from "./page_person.tsx";
import { SearchTable } from "./saved_search_pages.tsx";
import { st } from "./saved_search_texts.ts";

type C = Context<AppEnv>;

/** How many inquiries the start page lists (the rest are on `/konto/anfragen`). */
const LATEST_INQUIRIES = 5;

const STATUS_TEXT: Record<InquirySummary["status"], TextKey> = {
  open: "statusOpen",
  answered: "statusAnswered",
  rejected: "statusRejected",
  closed: "statusClosed",
};

/** `GET /konto`: the account start page. */
export async function accountStartPage(ctx: PageCtx, c: C) {
  const person = await personOf(ctx, c);
  if (!person) return c.redirect(`${LOGIN_PAGE}?weiter=${encodeURIComponent(ACCOUNT_PAGE)}`, 303);
  const l = langOfRequest(c);
  const csrf = csrfToken(c, ctx.secure);
  const seeker = person.role === "seeker";
  const inquiries = await listSeekerInquiries(ctx.deps, person.userId, {
    page: 1,
    page_size: LATEST_INQUIRIES,
  });
  const searches = seeker
    ? await listSavedSearches(ctx.deps, person.userId, { page: 1, page_size: SAVED_SEARCH_MAX })
    : undefined;
  const alerts = seeker ? await searchAlerts(ctx.deps, person.userId) : new Map();
  return c.html(
    <Layout lang={l} title={st(l, "accountTitle")} signedIn provider={person.workspace} csrf={csrf}>
      <p id="welcome">
        {st(l, "welcome")}, {person.name}
      </p>
      <section id="my-inquiries">
        <h2>{st(l, "latestInquiries")}</h2>
        {inquiries.total === 0
          ? <p>{st(l, "noInquiriesYet")}</p>
          : <LatestInquiries l={l} items={inquiries.items} />}
        {inquiries.total > 0 && (
          <p>
            <a href="/konto/anfragen">
              {st(l, "allInquiries")} ({inquiries.total})
            </a>
          </p>
        )}
      </section>
      {searches && (
        <section id="my-searches">
          <h2>{st(l, "mySearches")}</h2>
          {searches.items.length === 0
            ? <p id="no-searches">{st(l, "noSearches")}</p>
            : <SearchTable l={l} items={searches.items} alerts={alerts} csrf={csrf} />}
          <p>
            <a href="/objekte">{st(l, "startSearch")}</a>
            {searches.items.length > 0 && (
              <>
                {" · "}
                <a href={SAVED_SEARCHES_PAGE}>{st(l, "mySearches")}</a>
              </>
            )}
          </p>
        </section>
      )}
      <AccountLinks l={l} />
    </Layout>,
  );
}

/** The latest inquiries: listing (to the thread), status, last activity. */
function LatestInquiries(p: { l: Lang; items: InquirySummary[] }) {
  const { l } = p;
  return (
    <ul id="latest-inquiries">
      {p.items.map((i) => (
        <li data-inquiry-id={i.id}>
          <a href={`/konto/anfragen/${i.id}`}>{i.listing_title ?? t(l, "untitled")}</a>
          {" – "}
          {t(l, STATUS_TEXT[i.status])}, {when(l, i.last_message_at)}
        </li>
      ))}
    </ul>
  );
}

/** The other account pages. */
function AccountLinks(p: { l: Lang }) {
  const { l } = p;
  return (
    <section id="account-links">
      <h2>{st(l, "moreInAccount")}</h2>
      <ul>
        <li>
          <a href="/konto/benachrichtigungen">{t(l, "notifications")}</a>
        </li>
        <li>
          <a href="/konto/apps">{t(l, "connectedApps")}</a>
        </li>
        <li>
          <a href="/konto/schluessel">{t(l, "apiKeys")}</a>
        </li>
      </ul>
    </section>
  );
}
