/**
 * A seeker's saved searches in the browser (server-rendered, German or English, no JavaScript):
 *
 * - `GET /konto/suchen/neu?<filters>`: the "Suche speichern" form for the filters of the results page (name, e-mail
 *   alert); a visitor not signed in is sent to sign in and comes back here with the filters kept. `POST` saves it
 *   (`createSavedSearch`, then `setSearchAlert`, one action) and goes to the list.
 * - `GET /konto/suchen`: the list (name, filters in words, e-mail alert off/daily/instant with a save button, the
 *   results, delete). `POST /konto/suchen/{id}/mail` sets the alert; `GET /konto/suchen/{id}/loeschen` asks,
 *   `POST` deletes.
 * - `GET/POST /suche-mails/abbestellen/{search id, 32 hex}-{token}`: the stop link of alert mails, without
 *   signing in: GET shows a confirm button (changes nothing), POST switches the alert off (one-click, no CSRF
 *   cookie; a foreign `Origin` is refused). A malformed link, an unknown search or a wrong token: 404.
 *
 * Every form but the stop link carries a CSRF token; rules live in `searches/`.
 */
import { Hono } from "hono";
import type { Context } from "hono";
import { z } from "zod";
import { LOGIN_PAGE } from "../auth/auth_settings.ts";
import { FILTER_KEYS, filterTextFields, type SearchFilters } from "../catalogue/filters.ts";
import type { ListingFilter } from "../catalogue/listing.ts";
import { AppError } from "../errors.ts";
import {
  createSavedSearch,
  deleteSavedSearch,
  getSavedSearch,
  listSavedSearches,
  SAVED_SEARCH_MAX,
  SAVED_SEARCH_NAME_MAX,
  type SavedSearch,
} from "../searches/saved_searches.ts";
import {
  ALERT_KINDS,
  ALERT_STOP_PATH,
  type AlertKind,
  alertKindSchema,
  alertStopLinkSearch,
  filtersQuery,
  SAVED_SEARCHES_PAGE,
  searchAlerts,
  setSearchAlert,
  stopAlertByLink,
} from "../searches/search_alerts.ts";
import type { AppEnv } from "../routes/env.ts";
import { langOfRequest, pageAct, type PageCtx, queryOf } from "./common.ts";
import { csrfToken } from "./csrf.ts";
import { signedInForm } from "./form_checks.tsx";
import type { Lang } from "./i18n.ts";
import { CsrfField, Layout, TableHead, Td } from "./layout.tsx";
import { type Person, PersonLayout, personOf } from "./page_person.tsx";
import { alertWords, filtersInWords, type SavedSearchKey, st } from "./saved_search_texts.ts";
import { stopByLink, StopForm, type StopOutcome } from "./ui_stop_link.tsx";

type C = Context<AppEnv>;

/** The page of a new saved search. */
const NEW_PAGE = `${SAVED_SEARCHES_PAGE}/neu`;

/** The filters of the search form's query, strictly as plain text (the results page links with them so). */
const filterQuerySchema = z.strictObject(filterTextFields);

/** The routes of the saved-search pages and of the alert stop link. */
export function savedSearchPageRoutes(ctx: PageCtx): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  app.get(SAVED_SEARCHES_PAGE, (c) => listPage(ctx, c));
  app.get(NEW_PAGE, (c) => newPage(ctx, c, {}));
  app.post(NEW_PAGE, (c) => save(ctx, c));
  app.post(`${SAVED_SEARCHES_PAGE}/:id/mail`, (c) => saveAlert(ctx, c));
  app.get(`${SAVED_SEARCHES_PAGE}/:id/loeschen`, (c) => deletePage(ctx, c));
  app.post(`${SAVED_SEARCHES_PAGE}/:id/loeschen`, (c) => remove(ctx, c));
  app.get(`${ALERT_STOP_PATH}/:ref`, (c) => stopPage(ctx, c));
  app.post(`${ALERT_STOP_PATH}/:ref`, (c) => stop(ctx, c));
  return app;
}

/** The save link looks like a button. */
const SAVE_LINK_STYLE =
  "display:inline-block;padding:.5rem 1rem;border:1px solid #2f855a;background:#e6f4ea;color:#1b1b1b;font-weight:600";

/** The link "Suche speichern" under the results of `filter` (the search page shows it when there is a filter). */
export function SaveSearchLink(p: { l: Lang; filter: Partial<ListingFilter>; signedIn: boolean }) {
  const q = filtersQuery(filtersOf(p.filter));
  if (!q) return null;
  return (
    <p id="save-search">
      <a href={`${NEW_PAGE}?${q}`} style={SAVE_LINK_STYLE}>{st(p.l, "saveSearch")}</a>{" "}
      <span class="hint">{st(p.l, p.signedIn ? "saveSearchHint" : "saveSearchSignIn")}</span>
    </p>
  );
}

/** Only the catalogue filters of `f` that are set. */
function filtersOf(f: Partial<ListingFilter>): SearchFilters {
  const out: Record<string, unknown> = {};
  for (const k of FILTER_KEYS) if (f[k] !== undefined) out[k] = f[k];
  return out as SearchFilters;
}

/** The filters of a query or form (only the filter fields), or undefined when one is not valid. */
function filtersOfFields(raw: Record<string, string>): SearchFilters | undefined {
  const given: Record<string, string> = {};
  for (const k of FILTER_KEYS) if (raw[k] !== undefined && raw[k].trim() !== "") given[k] = raw[k];
  const r = filterQuerySchema.safeParse(given);
  return r.success ? filtersOf(r.data) : undefined;
}

/** The signed-in seeker, or the answer to send instead: sign-in (back to this page) or the seekers-only page. */
async function seekerOrAnswer(ctx: PageCtx, c: C): Promise<Person | Response> {
  const person = await personOf(ctx, c);
  if (!person) {
    const back = `${c.req.path}${queryOf(c) ? `?${queryOf(c)}` : ""}`;
    return c.redirect(`${LOGIN_PAGE}?weiter=${encodeURIComponent(back)}`, 303);
  }
  if (person.role !== "seeker") return await message(ctx, c, person, "seekersOnly", 403);
  return person;
}

/** A page of these routes with one message. */
function message(
  ctx: PageCtx,
  c: C,
  person: Person | undefined,
  key: SavedSearchKey,
  status: 200 | 400 | 403 | 404,
) {
  const l = langOfRequest(c);
  return c.html(
    <PersonLayout
      c={c}
      l={l}
      secure={ctx.secure}
      title={st(l, person ? "mySearches" : "stopTitle")}
      person={person}
    >
      <p class={status === 200 ? "notice" : "error"} role={status === 200 ? "status" : "alert"}>
        {st(l, key)}
      </p>
      <p>
        <a href={person ? SAVED_SEARCHES_PAGE : "/objekte"}>{st(l, person ? "mySearches" : "startSearch")}</a>
      </p>
    </PersonLayout>,
    status,
  );
}

// --- a new saved search -------------------------------------------------------------------------------------

/** What the new-search form shows again after a refused POST. */
interface NewState {
  error?: SavedSearchKey;
  status?: 400 | 409;
  name?: string;
  alert?: AlertKind;
  filters?: SearchFilters;
}

async function newPage(ctx: PageCtx, c: C, state: NewState) {
  const person = await seekerOrAnswer(ctx, c);
  if (person instanceof Response) return person;
  const filters = state.filters ?? filtersOfFields(c.req.query());
  if (!filters) return message(ctx, c, person, "badFilters", 400);
  const l = langOfRequest(c);
  const csrf = csrfToken(c, ctx.secure);
  const alert = state.alert ?? "daily";
  return c.html(
    <Layout lang={l} title={st(l, "newSearchTitle")} signedIn provider={person.workspace} csrf={csrf}>
      {state.error && <p class="error" role="alert" id="save-error">{st(l, state.error)}</p>}
      <form method="post" action={NEW_PAGE}>
        <CsrfField token={csrf} />
        <p>
          {st(l, "filters")}: <strong id="filters-words">{filtersInWords(l, filters)}</strong>
        </p>
        {Object.entries(filters).map(([k, v]) => <input key={k} type="hidden" name={k} value={String(v)} />)}
        <label for="name">{st(l, "searchName")}</label>
        <input
          id="name"
          name="name"
          type="text"
          maxlength={SAVED_SEARCH_NAME_MAX}
          value={state.name ?? ""}
          {...(state.error === "badName" ? { "aria-invalid": "true", "aria-describedby": "save-error" } : {})}
        />
        <AlertChoice l={l} name="alert" checked={alert} />
        <button type="submit">{st(l, "save")}</button>
      </form>
      <p>
        <a href={`/objekte?${filtersQuery(filters)}`}>{st(l, "cancel")}</a>
      </p>
    </Layout>,
    state.status ?? (state.error ? 400 : 200),
  );
}

/** The three alert settings as radio buttons in a fieldset. */
function AlertChoice(p: { l: Lang; name: string; checked: AlertKind }) {
  return (
    <fieldset>
      <legend>{st(p.l, "alertLabel")}</legend>
      {ALERT_KINDS.map((k) => (
        <label>
          <input type="radio" name={p.name} value={k} checked={k === p.checked} /> {alertWords(p.l, k).long}
        </label>
      ))}
    </fieldset>
  );
}

/** The page's message for a refused save. */
function saveError(e: AppError): { error: SavedSearchKey; status: 400 | 409 } {
  if (e.code === "conflict") return { error: "tooMany", status: 409 };
  if (e.facts.field === "name") return { error: "badName", status: 400 };
  return { error: e.facts.reason === "no_filter" ? "noFilter" : "badFilters", status: 400 };
}

async function save(ctx: PageCtx, c: C) {
  const form = await signedInForm(ctx, c);
  if (form instanceof Response) return form;
  const person = await seekerOrAnswer(ctx, c);
  if (person instanceof Response) return person;
  const filters = filtersOfFields(form.f);
  const alert = alertKindSchema.safeParse(form.f.alert ?? "off");
  if (!filters || !alert.success) return message(ctx, c, person, "badFilters", 400);
  const name = form.f.name ?? "";
  try {
    await pageAct(ctx, { kind: "seeker", userId: person.userId }, async (a) => {
      const saved = await createSavedSearch(a, { name, filters });
      if (alert.data !== "off") await setSearchAlert(a, saved.id, alert.data);
    });
  } catch (e) {
    if (!(e instanceof AppError) || (e.code !== "invalid_request" && e.code !== "conflict")) throw e;
    return newPage(ctx, c, {
      ...saveError(e),
      name: name.slice(0, SAVED_SEARCH_NAME_MAX),
      alert: alert.data,
      filters,
    });
  }
  return c.redirect(`${SAVED_SEARCHES_PAGE}?gespeichert=suche`, 303);
}

// --- the list ----------------------------------------------------------------------------------------------

/** The notices of the list after a redirect (`?gespeichert=…`). */
const NOTICES: Record<string, SavedSearchKey> = { suche: "saved", geloescht: "deleted", mail: "alertSaved" };

async function listPage(ctx: PageCtx, c: C) {
  const person = await seekerOrAnswer(ctx, c);
  if (person instanceof Response) return person;
  const l = langOfRequest(c);
  const csrf = csrfToken(c, ctx.secure);
  const { items } = await listSavedSearches(ctx.deps, person.userId, {
    page: 1,
    page_size: SAVED_SEARCH_MAX,
  });
  const alerts = await searchAlerts(ctx.deps, person.userId);
  const notice = NOTICES[c.req.query("gespeichert") ?? ""];
  return c.html(
    <Layout lang={l} title={st(l, "mySearches")} signedIn provider={person.workspace} csrf={csrf}>
      {notice && <p class="notice" role="status">{st(l, notice)}</p>}
      {items.length === 0
        ? <p id="no-searches">{st(l, "noSearches")}</p>
        : <SearchTable l={l} items={items} alerts={alerts} csrf={csrf} />}
    </Layout>,
  );
}

/** The saved searches as a table (stacked cards on narrow screens). */
export function SearchTable(
  p: { l: Lang; items: SavedSearch[]; alerts: Map<string, AlertKind>; csrf: string },
) {
  const { l } = p;
  return (
    <table id="saved-searches">
      <TableHead titles={[st(l, "name"), st(l, "filters"), st(l, "alert"), ""]} />
      <tbody>
        {p.items.map((s) => (
          <tr data-saved-search-id={s.id}>
            <Td label={st(l, "name")}>{s.name ?? st(l, "unnamed")}</Td>
            <Td label={st(l, "filters")}>{filtersInWords(l, s.filters)}</Td>
            <Td label={st(l, "alert")}>
              <AlertForm l={l} id={s.id} alert={p.alerts.get(s.id) ?? "off"} csrf={p.csrf} />
            </Td>
            <td>
              <a href={`/objekte?${filtersQuery(s.filters)}`}>{st(l, "showResults")}</a>
              {" · "}
              <a href={`${SAVED_SEARCHES_PAGE}/${s.id}/loeschen`}>{st(l, "delete")}</a>
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

/** The alert setting of one saved search: a select and its save button. */
function AlertForm(p: { l: Lang; id: string; alert: AlertKind; csrf: string }) {
  return (
    <form method="post" action={`${SAVED_SEARCHES_PAGE}/${p.id}/mail`}>
      <CsrfField token={p.csrf} />
      <select name="alert" aria-label={st(p.l, "alertLabel")}>
        {ALERT_KINDS.map((k) => (
          <option key={k} value={k} selected={k === p.alert}>{alertWords(p.l, k).short}</option>
        ))}
      </select>
      <button type="submit">{st(p.l, "save")}</button>
    </form>
  );
}

async function saveAlert(ctx: PageCtx, c: C) {
  const form = await signedInForm(ctx, c);
  if (form instanceof Response) return form;
  const person = await seekerOrAnswer(ctx, c);
  if (person instanceof Response) return person;
  const alert = alertKindSchema.safeParse(form.f.alert);
  if (!alert.success) return message(ctx, c, person, "badFilters", 400);
  try {
    await pageAct(
      ctx,
      { kind: "seeker", userId: person.userId },
      (a) => setSearchAlert(a, c.req.param("id") ?? "", alert.data),
    );
  } catch (e) {
    if (e instanceof AppError && e.code === "not_found") return message(ctx, c, person, "notFound", 404);
    throw e;
  }
  return c.redirect(`${SAVED_SEARCHES_PAGE}?gespeichert=mail`, 303);
}

// --- delete ------------------------------------------------------------------------------------------------

async function deletePage(ctx: PageCtx, c: C) {
  const person = await seekerOrAnswer(ctx, c);
  if (person instanceof Response) return person;
  const id = c.req.param("id") ?? "";
  const search = await getSavedSearch(ctx.deps, person.userId, id).catch((e) => {
    if (e instanceof AppError && e.code === "not_found") return undefined;
    throw e;
  });
  if (!search) return message(ctx, c, person, "notFound", 404);
  const l = langOfRequest(c);
  const csrf = csrfToken(c, ctx.secure);
  return c.html(
    <Layout lang={l} title={st(l, "deleteTitle")} signedIn provider={person.workspace} csrf={csrf}>
      <p>{st(l, "deleteAsk")}</p>
      <p>
        <strong>{search.name ?? st(l, "unnamed")}</strong>: {filtersInWords(l, search.filters)}
      </p>
      <form method="post" action={`${SAVED_SEARCHES_PAGE}/${search.id}/loeschen`}>
        <CsrfField token={csrf} />
        <button type="submit">{st(l, "deleteButton")}</button>
        <a href={SAVED_SEARCHES_PAGE}>{st(l, "cancel")}</a>
      </form>
    </Layout>,
  );
}

async function remove(ctx: PageCtx, c: C) {
  const form = await signedInForm(ctx, c);
  if (form instanceof Response) return form;
  const person = await seekerOrAnswer(ctx, c);
  if (person instanceof Response) return person;
  try {
    await pageAct(
      ctx,
      { kind: "seeker", userId: person.userId },
      (a) => deleteSavedSearch(a, c.req.param("id") ?? ""),
    );
  } catch (e) {
    if (e instanceof AppError && e.code === "not_found") return message(ctx, c, person, "notFound", 404);
    throw e;
  }
  return c.redirect(`${SAVED_SEARCHES_PAGE}?gespeichert=geloescht`, 303);
}

// --- the stop link of alert mails ----------------------------------------------------------------------------

async function stopPage(ctx: PageCtx, c: C) {
  const ref = c.req.param("ref") ?? "";
  const search = await alertStopLinkSearch(ctx.deps, ref);
  if (!search) return message(ctx, c, undefined, "linkInvalid", 404);
  const l = langOfRequest(c);
  return c.html(
    <Layout lang={l} title={st(l, "stopTitle")}>
      <p>{st(l, "stopAsk")}</p>
      {search.name && (
        <p>
          <strong>{search.name}</strong>
        </p>
      )}
      <StopForm action={`${ALERT_STOP_PATH}/${ref}`} label={st(l, "stopButton")} />
    </Layout>,
  );
}

/** The answer of the stop POST, by outcome: its text and status. */
const STOP_ANSWERS: Record<StopOutcome, [SavedSearchKey, 200 | 403 | 404]> = {
  badOrigin: ["badOrigin", 403],
  unknownLink: ["linkInvalid", 404],
  stopped: ["stopped", 200],
};

function stop(ctx: PageCtx, c: C) {
  return stopByLink(
    ctx,
    c,
    stopAlertByLink,
    (outcome) => message(ctx, c, undefined, ...STOP_ANSWERS[outcome]),
  );
}
