/**
 * The catalogue search page `/objekte`: the filter form with its problems, the result cards and the pager. Rules live in `catalogue/`; this parses, calls and renders.
 */
import type { Context } from "hono";
import { z } from "zod";
import { amountText, FILTER_KEYS, filterTextFields, pricesInOrder } from "../catalogue/filters.ts";
import { askedPrice, decimal, formDecimal, readFormNumber } from "../catalogue/german.ts";
import {
  type Listing,
  type ListingFilter,
  PAGE_MAX,
  PAGE_SIZE_DEFAULT,
  PROPERTY_TYPES,
  TRANSACTION_TYPES,
} from "../catalogue/listing.ts";
import { searchListings } from "../catalogue/search.ts";
import type { AppEnv } from "../routes/env.ts";
import { csrfToken } from "./csrf.ts";
import { type Lang, t, type TextKey } from "./i18n.ts";
import { Layout } from "./layout.tsx";
import { langOfRequest, type PageCtx } from "./common.ts";
import { personOf } from "./page_person.tsx";
import { truncate } from "../text.ts";
import { CardPhoto, cardPhotos } from "./listing_gallery.tsx";
import type { PhotoView } from "../photos/photos.ts";

type C = Context<AppEnv>;

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

export async function searchPage(ctx: PageCtx, c: C) {
  const l = langOfRequest(c);
  const raw = c.req.query();
  const parsed = parseSearch(raw);
  const person = await personOf(ctx, c);
  const csrf = person ? csrfToken(c, ctx.secure) : undefined;
  const result = parsed.ok ? await searchListings(ctx.deps.db, parsed.filter) : undefined;
  const thumbs = await cardPhotos(ctx.deps, result?.items ?? []);
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
            : result.items.map((item, i) => (
              <ListingCard key={item.id} l={l} item={item} photo={thumbs.get(item.id)} eager={i < 2} />
            ))}
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
export function ListingCard(p: { l: Lang; item: Listing; photo?: PhotoView | undefined; eager?: boolean }) {
  const { l, item } = p;
  return (
    <article class="card" data-listing-id={item.id}>
      <CardPhoto l={l} item={item} photo={p.photo} eager={p.eager ?? false} />
      <div>
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
      </div>
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
