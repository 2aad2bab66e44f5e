/**
 * The public listing pages (server-rendered, German or English, no JavaScript): the catalogue search with its
 * filters and paging, the listing view with map link, location baseline and the inquiry form, and the inquiry
 * POST. Rules live in `catalogue/`, `valuation/` and `inquiries/`; these handlers parse, call and render.
 */
import { Hono } from "hono";
import type { Context } from "hono";
import { z } from "zod";
import { amountText, FILTER_KEYS, filterTextFields, pricesInOrder } from "../catalogue/filters.ts";
import { askedPrice, decimal, euroPerSqm, formDecimal, readFormNumber } from "../catalogue/german.ts";
import {
  type Listing,
  type ListingFilter,
  PAGE_MAX,
  PAGE_SIZE_DEFAULT,
  PROPERTY_TYPES,
  TRANSACTION_TYPES,
} from "../catalogue/listing.ts";
import { getPublicListing, searchListings } from "../catalogue/search.ts";
import { personAccess } from "../db/accounts.ts";
import { workspaceOffice } from "../auth/account_home.ts";
import { AppError } from "../errors.ts";
import { type Inquirer, MESSAGE_MAX, sendInquiry } from "../inquiries/inquiries.ts";
import type { AppEnv } from "../routes/env.ts";
import { type BaselineAnswer, locationBaselineOf } from "../valuation/baseline.ts";
import type { Attribution } from "../valuation/brw_sources.ts";
import { listingBaselineRequest } from "../valuation/input.ts";
import { sessionOf } from "./auth_calls.ts";
import { csrfOk, csrfToken } from "./csrf.ts";
import { type Lang, t, type TextKey } from "./i18n.ts";
import { CsrfField, Layout } from "./layout.tsx";
import { langOfRequest, pageAct, type PageCtx, readForm } from "./common.ts";
import type { Actor } from "../deps.ts";
import { truncate } from "../text.ts";

type C = Context<AppEnv>;

/** The signed-in person of a page request with their role. */
export interface Person {
  userId: string;
  email: string;
  name: string;
  role: "seeker" | "provider";
  /** Whether they may use the workspace (a provider with an active membership): the header links to it. */
  workspace: boolean;
}

/** The signed-in person and their role, or undefined. */
export async function personOf(ctx: PageCtx, c: C): Promise<Person | undefined> {
  const session = await sessionOf(ctx.auth, c);
  if (!session) return undefined;
  const access = await personAccess(ctx.deps.db, session.userId);
  return access
    ? { ...session, role: access.role, workspace: workspaceOffice(access) !== undefined }
    : undefined;
}

/** A page with one message (error or notice) and the given status. */
export function messagePage(
  c: C,
  p: { title: TextKey; text: TextKey; status: 400 | 403 | 404 | 429; person?: Person | undefined },
  secure: boolean,
) {
  const l = langOfRequest(c);
  return c.html(
    <Layout
      lang={l}
      title={t(l, p.title)}
      signedIn={!!p.person}
      provider={p.person?.workspace}
      csrf={p.person && csrfToken(c, secure)}
    >
      <p class="error" role="alert">{t(l, p.text)}</p>
      <p>
        <a href="/objekte">{t(l, "backToSearch")}</a>
      </p>
    </Layout>,
    p.status,
  );
}

/** The "not found" page (unknown, unpublished, malformed or foreign id). */
export function notFoundPage(ctx: PageCtx, c: C, person?: Person) {
  return messagePage(c, { title: "notFoundTitle", text: "notFound", status: 404, person }, ctx.secure);
}

/** The listing page routes: `/objekte`, `/objekte/{id}`, `/objekte/{id}/anfrage` (+ its confirmation). */
export function listingPageRoutes(ctx: PageCtx): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  app.get("/objekte", (c) => searchPage(ctx, c));
  app.get("/objekte/:id", (c) => listingPage(ctx, c, {}));
  app.post("/objekte/:id/anfrage", (c) => inquire(ctx, c));
  app.get("/objekte/:id/anfrage/gesendet", (c) => inquirySentPage(ctx, c));
  return app;
}

// --- search ------------------------------------------------------------------------------------------------

const FORM_FIELDS = [...FILTER_KEYS, "page"] as const;
type FormField = (typeof FORM_FIELDS)[number];

const FIELD_LABEL: Record<FormField, TextKey> = {
  city: "city",
  transaction_type: "transactionType",
  property_type: "propertyType",
  min_price: "minPrice",
  max_price: "maxPrice",
  min_rooms: "minRooms",
  min_sqm: "minSqm",
  page: "pageOf",
};

const FIELD_PROBLEM: Record<FormField, TextKey> = {
  city: "badText",
  transaction_type: "badChoice",
  property_type: "badChoice",
  min_price: "badNumber",
  max_price: "badNumber",
  min_rooms: "badNumber",
  min_sqm: "badNumber",
  page: "badPage",
};

/**
 * A number as typed into the form (German or English style, `readFormNumber` of `catalogue/german.ts`: "500.000",
 * "500.000,50", "2,5", "1.5"), turned into the filters' plain text; then the catalogue's rule for a numeric filter.
 * A text the rule cannot read is refused.
 */
const formNumber = z.string().transform((s, ctx) => {
  const read = readFormNumber(s);
  if (!read) ctx.addIssue({ code: "custom", message: "not a number" });
  return read?.text ?? "";
}).pipe(amountText).optional();

/** The numeric fields of the search form. */
const NUMBER_FIELDS = ["min_price", "max_price", "min_rooms", "min_sqm"] as const;

/** The catalogue filters of `catalogue/filters.ts` as the form sends them, plus the page. */
const filterForm = z.object({
  ...filterTextFields,
  min_price: formNumber,
  max_price: formNumber,
  min_rooms: formNumber,
  min_sqm: formNumber,
  page: z.string().regex(/^[0-9]{1,10}$/).transform(Number).pipe(z.number().int().min(1).max(PAGE_MAX))
    .optional(),
});

/** The parsed search form: the filter, or the fields that were wrong (and whether min > max price). */
type ParsedSearch =
  | { ok: true; filter: ListingFilter }
  | { ok: false; fields: FormField[]; priceOrder: boolean };

/** Parses the query of `/objekte`; empty fields mean "no filter", unknown parameters are ignored. */
function parseSearch(raw: Record<string, string>): ParsedSearch {
  const given: Record<string, string> = {};
  for (const k of FORM_FIELDS) if (raw[k] !== undefined && raw[k].trim() !== "") given[k] = raw[k];
  const r = filterForm.safeParse(given);
  if (!r.success) {
    const fields = [...new Set(r.error.issues.map((i) => i.path[0] as FormField))];
    return { ok: false, fields, priceOrder: false };
  }
  const { page, ...rest } = r.data;
  const filter: ListingFilter = { ...rest, page: page ?? 1, page_size: PAGE_SIZE_DEFAULT };
  if (!pricesInOrder(filter)) return { ok: false, fields: [], priceOrder: true };
  return { ok: true, filter };
}

/** The query string of `filter` at page `page` (only the filters that are set). */
function searchQuery(filter: ListingFilter, page: number): string {
  const q = new URLSearchParams();
  for (const k of FORM_FIELDS) {
    const v = k === "page" ? undefined : filter[k];
    if (v !== undefined) q.set(k, String(v));
  }
  if (page > 1) q.set("page", String(page));
  const s = q.toString();
  return s ? `?${s}` : "";
}

async function searchPage(ctx: PageCtx, c: C) {
  const l = langOfRequest(c);
  const raw = c.req.query();
  const parsed = parseSearch(raw);
  const person = await personOf(ctx, c);
  const csrf = person ? csrfToken(c, ctx.secure) : undefined;
  const result = parsed.ok ? await searchListings(ctx.deps.db, parsed.filter) : undefined;
  return c.html(
    <Layout
      lang={l}
      title={t(l, "searchTitle")}
      signedIn={!!person}
      provider={person?.workspace}
      csrf={csrf}
    >
      {!parsed.ok && <FilterProblems l={l} parsed={parsed} />}
      <SearchForm l={l} raw={raw} parsed={parsed} />
      {result && parsed.ok && (
        <>
          <p id="total">
            {decimal(result.total, l)} {t(l, "found")}
          </p>
          {result.items.length === 0
            ? <p>{t(l, "noResults")}</p>
            : result.items.map((item) => <ListingCard key={item.id} l={l} item={item} />)}
          <Pager l={l} filter={parsed.filter} total={result.total} />
        </>
      )}
    </Layout>,
    parsed.ok ? 200 : 400,
  );
}

/** The id of the message that explains what is wrong with form field `f`. */
function problemId(f: FormField): string {
  return `problem-${f}`;
}

function FilterProblems(p: { l: Lang; parsed: Extract<ParsedSearch, { ok: false }> }) {
  const { l, parsed } = p;
  return (
    <div class="error" role="alert">
      {parsed.priceOrder ? <p id="problem-price-order">{t(l, "priceOrder")}</p> : (
        <>
          <p>{t(l, "badFilter")}</p>
          <ul>
            {parsed.fields.map((f) => (
              <li data-field={f} id={problemId(f)}>
                {t(l, FIELD_LABEL[f])}: {t(l, FIELD_PROBLEM[f])}
              </li>
            ))}
          </ul>
        </>
      )}
    </div>
  );
}

/**
 * What a text field of the search form shows: a number field the value as read ("500.000" for "500000", "2,5"
 * for "2.5" on the German page), anything else (and an unreadable number) as typed.
 */
function shownValue(l: Lang, name: FormField, typed: string | undefined): string {
  const raw = truncate(typed ?? "", 100);
  if (!(NUMBER_FIELDS as readonly string[]).includes(name) || raw.trim() === "") return raw;
  const read = readFormNumber(raw);
  return read ? formDecimal(read.value, l) : raw;
}

/** The fields of the search form that are wrong, each with the id of its message. */
function invalidFields(parsed: ParsedSearch): Map<FormField, string> {
  if (parsed.ok) return new Map();
  if (parsed.priceOrder) {
    return new Map([["min_price", "problem-price-order"], ["max_price", "problem-price-order"]]);
  }
  return new Map(parsed.fields.map((f) => [f, problemId(f)]));
}

/** The search form (also on the start page): the given values shown back, wrong fields marked. */
export function SearchForm(p: { l: Lang; raw: Record<string, string>; parsed?: ParsedSearch }) {
  const { l, raw } = p;
  const invalid = p.parsed ? invalidFields(p.parsed) : new Map<FormField, string>();
  const marks = (name: FormField) =>
    invalid.has(name) ? { "aria-invalid": "true", "aria-describedby": invalid.get(name) } : {};
  const text = (name: FormField, label: TextKey, mode: "text" | "decimal") => (
    <div>
      <label for={name}>{t(l, label)}</label>
      <input
        id={name}
        name={name}
        type="text"
        inputmode={mode}
        maxlength={100}
        value={shownValue(l, name, raw[name])}
        {...marks(name)}
      />
    </div>
  );
  const choice = (name: FormField, label: TextKey, values: readonly TextKey[]) => (
    <div>
      <label for={name}>{t(l, label)}</label>
      <select id={name} name={name} {...marks(name)}>
        <option value="">{t(l, "any")}</option>
        {values.map((v) => <Choice key={v} value={v} label={t(l, v)} selected={raw[name] === v} />)}
      </select>
    </div>
  );
  return (
    <form method="get" action="/objekte" role="search">
      <div class="filters">
        {text("city", "city", "text")}
        {choice("transaction_type", "transactionType", TRANSACTION_TYPES)}
        {choice("property_type", "propertyType", PROPERTY_TYPES)}
        {text("min_price", "minPrice", "decimal")}
        {text("max_price", "maxPrice", "decimal")}
        {text("min_rooms", "minRooms", "decimal")}
        {text("min_sqm", "minSqm", "decimal")}
      </div>
      <p class="hint" id="number-rule">{t(l, "numberRule")}</p>
      <button type="submit">{t(l, "search")}</button>
    </form>
  );
}

function Choice(p: { value: string; label: string; selected: boolean }) {
  return <option value={p.value} selected={p.selected}>{p.label}</option>;
}

/** One listing of a result list: title (linked), sample badge, place, kind, deal, price, rooms, area. */
export function ListingCard(p: { l: Lang; item: Listing }) {
  const { l, item } = p;
  return (
    <article class="card" data-listing-id={item.id}>
      <h2>
        <a href={`/objekte/${item.id}`}>{item.title ?? t(l, "untitled")}</a>
        {item.beispiel && <span class="badge">{t(l, "beispiel")}</span>}
      </h2>
      <p>
        {[
          [item.postal_code, item.city].filter(Boolean).join(" "),
          item.property_type && t(l, item.property_type),
          item.transaction_type && t(l, item.transaction_type),
          askedPrice(item.asked_price, item.transaction_type, l),
          item.total_rooms !== null && `${decimal(item.total_rooms, l)} ${t(l, "rooms")}`,
          item.square_meters !== null && `${decimal(item.square_meters, l)} m²`,
        ].filter(Boolean).join(" · ")}
      </p>
    </article>
  );
}

function Pager(p: { l: Lang; filter: ListingFilter; total: number }) {
  const { l, filter, total } = p;
  const last = Math.max(1, Math.ceil(total / filter.page_size));
  return (
    <nav class="pager" aria-label={t(l, "pageOf")}>
      {filter.page > 1 && (
        <a rel="prev" href={`/objekte${searchQuery(filter, Math.min(filter.page - 1, last))}`}>
          {t(l, "previous")}
        </a>
      )}
      <span>
        {t(l, "pageOf")} {filter.page} {t(l, "of")} {last}
      </span>
      {filter.page < last && (
        <a rel="next" href={`/objekte${searchQuery(filter, filter.page + 1)}`}>{t(l, "next")}</a>
      )}
    </nav>
  );
}

// --- listing view and inquiry form -------------------------------------------------------------------------

/** A field of the inquiry form. */
type InquiryField = "name" | "email" | "phone" | "message";

/** The message naming each inquiry field and what it needs. */
const INQUIRY_FIELD_ERROR: Record<InquiryField, TextKey> = {
  name: "inquiryFieldName",
  email: "inquiryFieldEmail",
  phone: "inquiryFieldPhone",
  message: "inquiryFieldMessage",
};

/** The id of the inquiry form's error box (the wrong field's `aria-describedby`). */
const INQUIRY_ERROR_ID = "anfrage-fehler";

/** What the inquiry form shows again after a failed POST: the message, the wrong field, the values sent. */
interface InquiryState {
  error?: TextKey;
  field?: InquiryField | undefined;
  status?: 400 | 429;
  values?: { name?: string; email?: string; phone?: string; message?: string };
}

async function listingPage(ctx: PageCtx, c: C, state: InquiryState) {
  const person = await personOf(ctx, c);
  const listing = await findListing(ctx, c.req.param("id") ?? "");
  if (!listing) return notFoundPage(ctx, c, person);
  const l = langOfRequest(c);
  const csrf = csrfToken(c, ctx.secure);
  const baseline = await baselineOf(ctx, listing);
  return c.html(
    <Layout
      lang={l}
      title={listing.title ?? t(l, "untitled")}
      signedIn={!!person}
      provider={person?.workspace}
      csrf={csrf}
    >
      {listing.beispiel && <p class="warning" id="beispiel">{t(l, "beispielNote")}</p>}
      <ListingFacts l={l} listing={listing} />
      <h2>{t(l, "location")}</h2>
      <MapLink l={l} listing={listing} />
      <h2>{t(l, "baselineTitle")}</h2>
      <Baseline l={l} baseline={baseline} rent={listing.transaction_type === "rent"} />
      <section id="anfrage">
        <h2>{t(l, "inquiryTitle")}</h2>
        <InquiryForm l={l} listing={listing} person={person} csrf={csrf} state={state} />
      </section>
    </Layout>,
    state.status ?? 200,
  );
}

/** The published listing of a path id, or undefined for an unknown, unpublished or malformed one. */
async function findListing(ctx: PageCtx, id: string): Promise<Listing | undefined> {
  try {
    return await getPublicListing(ctx.deps.db, id);
  } catch (e) {
    if (e instanceof AppError && e.code === "not_found") return undefined;
    throw e;
  }
}

/** The location baseline of the listing's place and kind; no transaction type means no basis. */
async function baselineOf(ctx: PageCtx, listing: Listing): Promise<BaselineAnswer | undefined> {
  const req = listingBaselineRequest(listing);
  return req && await locationBaselineOf(ctx.deps.db, req);
}

function ListingFacts(p: { l: Lang; listing: Listing }) {
  const { l, listing: x } = p;
  const unknown = t(l, "unknown");
  const priceLabel = x.transaction_type === "rent"
    ? "rentPerMonth"
    : x.transaction_type === "buy"
    ? "purchasePrice"
    : "price";
  return (
    <dl class="facts">
      <dt>{t(l, "city")}</dt>
      <dd id="f-city">{[x.postal_code, x.city].filter(Boolean).join(" ") || unknown}</dd>
      <dt>{t(l, "propertyType")}</dt>
      <dd id="f-property-type">{x.property_type ? t(l, x.property_type) : unknown}</dd>
      <dt>{t(l, "transactionType")}</dt>
      <dd id="f-transaction-type">{x.transaction_type ? t(l, x.transaction_type) : unknown}</dd>
      <dt>{t(l, priceLabel)}</dt>
      <dd id="f-price">{askedPrice(x.asked_price, x.transaction_type, l) || unknown}</dd>
      <dt>{t(l, "rooms")}</dt>
      <dd id="f-rooms">{decimal(x.total_rooms, l) || unknown}</dd>
      <dt>{t(l, "area")}</dt>
      <dd id="f-area">{x.square_meters !== null ? `${decimal(x.square_meters, l)} m²` : unknown}</dd>
    </dl>
  );
}

/** The OpenStreetMap address of a point. */
export function mapUrl(lat: number, lng: number): string {
  return `https://www.openstreetmap.org/?mlat=${lat}&mlon=${lng}#map=16/${lat}/${lng}`;
}

function MapLink(p: { l: Lang; listing: Listing }) {
  const { latitude: lat, longitude: lng } = p.listing;
  if (lat === null || lng === null) return <p>{t(p.l, "noMap")}</p>;
  return (
    <p>
      <a id="map-link" href={mapUrl(lat, lng)} rel="noopener noreferrer">{t(p.l, "showMap")}</a> ({lat},{" "}
      {lng})
    </p>
  );
}

/** "1. Januar 2024" (English "1 January 2024") for a `YYYY-MM-DD` date; the text itself when it is not one. */
function stichtagText(l: Lang, ymd: string): string {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(ymd);
  if (!m) return ymd;
  const d = new Date(Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3])));
  return d.toLocaleDateString(l === "en" ? "en-GB" : "de-DE", {
    timeZone: "UTC",
    day: "numeric",
    month: "long",
    year: "numeric",
  });
}

/** "Datenquelle: <source>, <licence>" with links, as the land value's licence asks (valuation/brw_sources.ts). */
function BaselineAttribution(p: { l: Lang; a: Attribution }) {
  const { a } = p;
  return (
    <p class="hint" id="baseline-attribution">
      {t(p.l, "dataSource")}:{" "}
      {a.sourceUrl ? <a href={a.sourceUrl} rel="noopener noreferrer">{a.source}</a> : a.source},{" "}
      {a.licenceUrl ? <a href={a.licenceUrl} rel="license noopener noreferrer">{a.licence}</a> : a.licence}
    </p>
  );
}

function Baseline(p: { l: Lang; baseline: BaselineAnswer | undefined; rent: boolean }) {
  const { l } = p;
  const b = p.baseline?.result;
  if (!b || b.source === "none" || b.base_eur_sqm === null) {
    return (
      <div id="baseline" data-source="none">
        <p>{t(l, "baselineNone")}</p>
        {b?.region_label && <p>{b.region_label}</p>}
        {p.rent && <p class="hint" id="baseline-rent-note">{t(l, "baselineRentNote")}</p>}
      </div>
    );
  }
  const invented = p.baseline?.invented === true;
  return (
    <div id="baseline" data-source={b.source} {...(invented ? { "data-invented": "true" } : {})}>
      <p>
        <strong>{euroPerSqm(b.base_eur_sqm, l)}</strong>
      </p>
      {invented
        ? (
          <p class="warning" id="baseline-invented">
            {t(l, "source")}: {t(l, "baselineInvented")}
          </p>
        )
        : (
          <p>
            {t(l, "source")}: {t(l, b.source === "bodenrichtwert" ? "baselineBrw" : "baselineCmp")}
          </p>
        )}
      {b.region_label && <p>{b.region_label}</p>}
      {!invented && p.baseline?.attribution && <BaselineAttribution l={l} a={p.baseline.attribution} />}
      {(b.stichtag || b.gfz !== null) && (
        <p>
          {b.stichtag && (
            <>
              {t(l, "stichtag")}:{" "}
              <time datetime={b.stichtag} id="stichtag">{stichtagText(l, b.stichtag)}</time>
            </>
          )}
          {b.stichtag && b.gfz !== null && " · "}
          {b.gfz !== null && `${t(l, "gfz")}: ${decimal(b.gfz, l)}`}
        </p>
      )}
    </div>
  );
}

function InquiryForm(
  p: { l: Lang; listing: Listing; person: Person | undefined; csrf: string; state: InquiryState },
) {
  const { l, person, state } = p;
  if (person && person.role !== "seeker") {
    return <p class="notice" id="provider-note">{t(l, "providerNote")}</p>;
  }
  const v = state.values ?? {};
  const marks = (f: InquiryField) =>
    state.field === f ? { "aria-invalid": "true", "aria-describedby": INQUIRY_ERROR_ID } : {};
  return (
    <form method="post" action={`/objekte/${p.listing.id}/anfrage#anfrage`}>
      {state.error && <p class="error" role="alert" id={INQUIRY_ERROR_ID}>{t(l, state.error)}</p>}
      <CsrfField token={p.csrf} />
      {person
        ? (
          <p id="sending-as">
            {t(l, "sendingAs")} <strong>{person.name}</strong> ({person.email})
          </p>
        )
        : (
          <>
            <p>{t(l, "anonymousNote")}</p>
            <label for="name">{t(l, "name")}</label>
            <input
              id="name"
              name="name"
              type="text"
              required
              maxlength={200}
              value={v.name ?? ""}
              {...marks("name")}
            />
            <label for="email">{t(l, "email")}</label>
            <input
              id="email"
              name="email"
              type="email"
              required
              maxlength={320}
              value={v.email ?? ""}
              {...marks("email")}
            />
            <label for="phone">{t(l, "phoneOptional")}</label>
            <input
              id="phone"
              name="phone"
              type="tel"
              maxlength={50}
              value={v.phone ?? ""}
              {...marks("phone")}
            />
          </>
        )}
      <label for="message">{t(l, "message")}</label>
      <textarea id="message" name="message" rows={6} required maxlength={MESSAGE_MAX} {...marks("message")}>
        {v.message ?? ""}
      </textarea>
      <button type="submit">{t(l, "sendInquiry")}</button>
    </form>
  );
}

/** The inquirer and message of the form: a signed-in seeker's account, else the name, e-mail and phone given. */
function inquiryInput(
  f: Record<string, string>,
  person: Person | undefined,
): { inquirer: Inquirer; message: string } {
  const message = f.message ?? "";
  if (person) {
    return {
      inquirer: { seekerId: person.userId, name: person.name, email: person.email, phone: null },
      message,
    };
  }
  return {
    inquirer: { seekerId: null, name: f.name ?? "", email: f.email ?? "", phone: f.phone ?? "" },
    message,
  };
}

async function inquire(ctx: PageCtx, c: C) {
  const f = await readForm(c);
  if (!csrfOk(c, f._csrf, ctx.deps.config.baseUrl)) {
    return messagePage(c, { title: "badRequest", text: "csrf", status: 403 }, ctx.secure);
  }
  const person = await personOf(ctx, c);
  const id = c.req.param("id") ?? "";
  if (!await findListing(ctx, id)) return notFoundPage(ctx, c, person);
  if (person && person.role !== "seeker") {
    return messagePage(c, { title: "inquiryTitle", text: "providerNote", status: 403, person }, ctx.secure);
  }
  const values = { name: f.name, email: f.email, phone: f.phone, message: f.message };
  const input = inquiryInput(f, person);
  try {
    const actor: Actor = person ? { kind: "seeker", userId: person.userId } : { kind: "guest" };
    const sent = await pageAct(ctx, actor, (a) => sendInquiry(a, { listingId: id, ...input }));
    return c.redirect(
      person
        ? `/konto/anfragen/${sent.inquiryId}?gesendet=anfrage`
        : `/objekte/${id.toLowerCase()}/anfrage/gesendet`,
      303,
    );
  } catch (e) {
    if (!(e instanceof AppError)) throw e;
    if (e.code === "not_found") return notFoundPage(ctx, c, person);
    if (e.code === "rate_limited") {
      return listingPage(ctx, c, { error: "inquiryLimited", status: 429, values });
    }
    if (e.code === "invalid_request") {
      const field = inquiryField(e.facts.field);
      const error = field ? INQUIRY_FIELD_ERROR[field] : "inquiryInvalid";
      return listingPage(ctx, c, { error, field, status: 400, values });
    }
    throw e;
  }
}

/** The inquiry field an `invalid_request` of `sendInquiry` names, if any. */
function inquiryField(name: string | undefined): InquiryField | undefined {
  return name === "name" || name === "email" || name === "phone" || name === "message" ? name : undefined;
}

async function inquirySentPage(ctx: PageCtx, c: C) {
  const person = await personOf(ctx, c);
  const listing = await findListing(ctx, c.req.param("id") ?? "");
  if (!listing) return notFoundPage(ctx, c, person);
  const l = langOfRequest(c);
  return c.html(
    <Layout
      lang={l}
      title={t(l, "inquirySentTitle")}
      signedIn={!!person}
      csrf={person && csrfToken(c, ctx.secure)}
    >
      <p class="notice" role="status">{t(l, "inquirySent")}</p>
      <p>
        <a href={`/objekte/${listing.id}`}>{listing.title ?? t(l, "untitled")}</a>
      </p>
      <p>
        <a href="/objekte">{t(l, "backToSearch")}</a>
      </p>
    </Layout>,
  );
}
