/**
 * The catalogue search page `/objekte`: the filter form (place or postcode, radius, filters, sort) with its
 * problems, the place taken or to choose, the result cards with the price per m², the pager and the empty state
 * (`search_help.tsx`). Rules live in `catalogue/`; this parses, calls and renders.
 */
import type { Context } from "hono";
import { z } from "zod";
import { amountText, FILTER_KEYS, filterTextFields, pricesInOrder } from "../catalogue/filters.ts";
import {
  askedPrice,
  decimal,
  formDecimal,
  numberOfInput,
  pricePerSqmText,
  readFormNumber,
} from "../catalogue/german.ts";
import {
  type Listing,
  PAGE_MAX,
  PAGE_SIZE_DEFAULT,
  PROPERTY_TYPES,
  TRANSACTION_TYPES,
} from "../catalogue/listing.ts";
import { RADIUS_CHOICES, searchByPlace } from "../catalogue/place_search.ts";
import { SORT_DEFAULT, SORT_ORDERS } from "../catalogue/sort.ts";
import { AppError } from "../errors.ts";
import { type EmptyReason, EmptyState, lastPage, Pager, type SearchLink } from "./search_help.tsx";
import { type FindKey, ft, perSqmLabel, sortLabel } from "./search_texts.ts";
import type { AppEnv } from "../routes/env.ts";
import { type Lang, t, type TextKey } from "./i18n.ts";
import { langOfRequest, type PageCtx } from "./common.ts";
import { PersonLayout, personOf } from "./page_person.tsx";
import { SaveSearchLink } from "./saved_search_pages.tsx";
import type { ListingFilter } from "../catalogue/listing.ts";
import { truncate } from "../text.ts";
import { CardPhoto, cardPhotos } from "./listing_gallery.tsx";
import type { PhotoView } from "../photos/photos.ts";

type C = Context<AppEnv>;

/** The fields of the form and the query, in the order of the links. */
const FORM_FIELDS = [...FILTER_KEYS, "postal_code", "radius_km", "lat", "lng", "sort", "page"] as const;
type FormField = (typeof FORM_FIELDS)[number];

/** Each field's label (on the form and in its problem) and what its problem says: a text of `i18n.ts` or of `search_texts.ts`. */
type Text = { key: TextKey } | { find: FindKey };

const FIELD_TEXT: Record<FormField, { label: Text; problem: Text }> = {
  city: { label: { find: "place" }, problem: { key: "badText" } },
  transaction_type: { label: { key: "transactionType" }, problem: { key: "badChoice" } },
  property_type: { label: { key: "propertyType" }, problem: { key: "badChoice" } },
  min_price: { label: { key: "minPrice" }, problem: { key: "badNumber" } },
  max_price: { label: { key: "maxPrice" }, problem: { key: "badNumber" } },
  min_rooms: { label: { key: "minRooms" }, problem: { key: "badNumber" } },
  min_sqm: { label: { key: "minSqm" }, problem: { key: "badNumber" } },
  postal_code: { label: { find: "postalCode" }, problem: { find: "badPostalCode" } },
  radius_km: { label: { find: "radius" }, problem: { find: "badRadius" } },
  lat: { label: { find: "aroundPoint" }, problem: { find: "badCoordinate" } },
  lng: { label: { find: "aroundPoint" }, problem: { find: "badCoordinate" } },
  sort: { label: { find: "sort" }, problem: { find: "badSort" } },
  page: { label: { key: "pageOf" }, problem: { key: "badPage" } },
};

function text(l: Lang, x: Text): string {
  return "key" in x ? t(l, x.key) : ft(l, x.find);
}

/** A coordinate as typed ("50.11", "50,11", "-3.5"), within ±`max`. */
const coordinate = (max: number) =>
  z.string().transform((s, ctx) => {
    const v = numberOfInput(s, true);
    if (v === null || Number.isNaN(v) || Math.abs(v) > max) ctx.addIssue({ code: "custom", message: "bad" });
    return v ?? 0;
  }).optional();

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
  postal_code: z.string().trim().regex(/^[0-9]{5}$/).optional(),
  radius_km: z.enum(RADIUS_CHOICES.map(String) as [string, ...string[]]).transform(Number).optional(),
  lat: coordinate(90),
  lng: coordinate(180),
  sort: z.enum(SORT_ORDERS).optional(),
  page: z.string().regex(/^[0-9]{1,10}$/).transform(Number).pipe(z.number().int().min(1).max(PAGE_MAX))
    .optional(),
});

/** The parsed search form: the search, or the fields that were wrong (and whether min > max price, or a rule). */
type ParsedSearch =
  | { ok: true; search: ParsedForm; values: Record<string, string> }
  | { ok: false; fields: FormField[]; priceOrder: boolean; rule?: { field: FormField; text: FindKey } };

type ParsedForm = z.infer<typeof filterForm>;

/** Parses the query of `/objekte`; empty fields mean "no filter", unknown parameters are ignored. */
function parseSearch(raw: Record<string, string>): ParsedSearch {
  const given: Record<string, string> = {};
  for (const k of FORM_FIELDS) if (raw[k] !== undefined && raw[k].trim() !== "") given[k] = raw[k];
  const r = filterForm.safeParse(given);
  if (!r.success) {
    const fields = [...new Set(r.error.issues.map((i) => i.path[0] as FormField))];
    return { ok: false, fields, priceOrder: false };
  }
  if (!pricesInOrder(r.data)) return { ok: false, fields: [], priceOrder: true };
  return { ok: true, search: r.data, values: linkValues(r.data) };
}

/** The values of the search as its links carry them: numbers as plain decimals, the rest as given. */
function linkValues(s: ParsedForm): Record<string, string> {
  const out: Record<string, string> = {};
  for (const k of FORM_FIELDS) {
    const v = s[k];
    if (v !== undefined && k !== "page" && !(k === "sort" && v === SORT_DEFAULT)) out[k] = String(v);
  }
  return out;
}

/** A link to the search with `values`, some of them changed (undefined removes one). */
function linkTo(values: Record<string, string>): SearchLink {
  return (change = {}) => {
    const q = new URLSearchParams();
    const all = { ...values, ...change };
    for (const k of FORM_FIELDS) if (all[k] !== undefined) q.set(k, all[k]!);
    const s = q.toString();
    return `/objekte${s ? `?${s}` : ""}`;
  };
}

/** The search's result, or the radius rule it broke (a form problem). */
type Found =
  | { ok: true; result: Awaited<ReturnType<typeof searchByPlace>> }
  | { ok: false; problem: Extract<ParsedSearch, { ok: false }> };

/** The radius rules' fields and what the form says about them. */
const RULE_TEXT: Partial<Record<string, { field: FormField; text: FindKey }>> = {
  radius_km: { field: "radius_km", text: "radiusNeedsPlace" },
  lat: { field: "lat", text: "badCoordinate" },
  lng: { field: "lng", text: "badCoordinate" },
};

async function find(ctx: PageCtx, s: ParsedForm): Promise<Found> {
  const { city, postal_code, radius_km, lat, lng, page, ...filters } = s;
  try {
    const result = await searchByPlace(
      ctx.deps.db,
      { ...filters, page: page ?? 1, page_size: PAGE_SIZE_DEFAULT },
      { place: city, postal_code, radius_km, lat, lng },
    );
    return { ok: true, result };
  } catch (e) {
    const rule = e instanceof AppError && e.code === "invalid_request"
      ? RULE_TEXT[e.facts.field ?? ""]
      : undefined;
    if (!rule) throw e;
    const text = rule.field === "radius_km" && lat !== undefined ? "coordinatesNeedRadius" : rule.text;
    return {
      ok: false,
      problem: { ok: false, fields: [rule.field], priceOrder: false, rule: { ...rule, text } },
    };
  }
}

export async function searchPage(ctx: PageCtx, c: C) {
  const l = langOfRequest(c);
  const raw = c.req.query();
  const first = parseSearch(raw);
  const person = await personOf(ctx, c);
  const found = first.ok ? await find(ctx, first.search) : undefined;
  const parsed: ParsedSearch = found && !found.ok ? found.problem : first;
  const thumbs = await cardPhotos(ctx.deps, found?.ok ? found.result.page?.items ?? [] : []);
  return c.html(
    <PersonLayout c={c} l={l} secure={ctx.secure} title={t(l, "searchTitle")} person={person}>
      {!parsed.ok && <FilterProblems l={l} parsed={parsed} />}
      <SearchForm l={l} raw={raw} parsed={parsed} />
      {found?.ok && parsed.ok && (
        <Results
          l={l}
          result={found.result}
          values={parsed.values}
          page={parsed.search.page ?? 1}
          filter={parsed.search}
          signedIn={!!person}
          thumbs={thumbs}
        />
      )}
    </PersonLayout>,
    parsed.ok ? 200 : 400,
  );
}

/** The total, the place taken, the cards and the pager; or the empty state. */
function Results(
  p: {
    l: Lang;
    result: Awaited<ReturnType<typeof searchByPlace>>;
    values: Record<string, string>;
    page: number;
    /** The filters searched for ("Suche speichern" saves them). */
    filter: Partial<ListingFilter>;
    signedIn: boolean;
    /** The title image of each listing shown (by id). */
    thumbs: Map<string, PhotoView>;
  },
) {
  const { l, result, values, page } = p;
  const link = linkTo(values);
  const o = result.outcome;
  if (o.kind !== "found" || !result.page) {
    const reason: EmptyReason = o.kind === "choose"
      ? { kind: "choose", options: o.options }
      : o.kind === "unknown"
      ? { kind: "unknown", suggestions: o.suggestions }
      : { kind: "no_centre" };
    return <EmptyState l={l} reason={reason} values={values} link={link} />;
  }
  const r = result.page;
  const last = lastPage(r.total, r.page_size);
  const reason: EmptyReason | undefined = r.total === 0
    ? { kind: "none" }
    : page > last
    ? { kind: "past_last", page, last, total: r.total }
    : undefined;
  return (
    <>
      <p id="total">
        {decimal(r.total, l)} {t(l, "found")}
      </p>
      <SaveSearchLink l={l} filter={p.filter} signedIn={p.signedIn} />
      {o.taken && (
        <p class="notice" id="place-taken">
          {ft(l, "takenPlace")} <strong>{o.taken}</strong>
        </p>
      )}
      {reason
        ? <EmptyState l={l} reason={reason} values={values} link={link} />
        : r.items.map((item, i) => (
          <ListingCard key={item.id} l={l} item={item} photo={p.thumbs.get(item.id)} eager={i < 2} />
        ))}
      <Pager l={l} page={page} last={last} total={r.total} link={link} />
    </>
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
                {text(l, FIELD_TEXT[f].label)}:{" "}
                {parsed.rule?.field === f ? ft(l, parsed.rule.text) : text(l, FIELD_TEXT[f].problem)}
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
  const label = (name: FormField) => <label for={name}>{text(l, FIELD_TEXT[name].label)}</label>;
  const input = (name: FormField, mode: "text" | "decimal" | "numeric", max = 100) => (
    <div>
      {label(name)}
      <input
        id={name}
        name={name}
        type="text"
        inputmode={mode}
        maxlength={max}
        value={shownValue(l, name, raw[name])}
        {...marks(name)}
      />
    </div>
  );
  const choice = (name: FormField, values: ReadonlyArray<{ value: string; label: string }>, wide = false) => (
    <div class={wide ? "wide" : undefined}>
      {label(name)}
      <select id={name} name={name} {...marks(name)}>
        {values.map((v) => (
          <Choice key={v.value} value={v.value} label={v.label} selected={(raw[name] ?? "") === v.value} />
        ))}
      </select>
    </div>
  );
  const any = { value: "", label: t(l, "any") };
  const words = (keys: readonly TextKey[]) => [any, ...keys.map((k) => ({ value: k, label: t(l, k) }))];
  const radii = [
    { value: "", label: ft(l, "radiusNone") },
    ...RADIUS_CHOICES.map((km) => ({ value: String(km), label: `${km} km` })),
  ];
  const sorts = SORT_ORDERS.map((s) => ({ value: s === SORT_DEFAULT ? "" : s, label: sortLabel(l, s) }));
  return (
    <form method="get" action="/objekte" role="search">
      <div class="filters">
        {input("city", "text")}
        {input("postal_code", "numeric", 5)}
        {choice("radius_km", radii)}
        {choice("transaction_type", words(TRANSACTION_TYPES))}
        {choice("property_type", words(PROPERTY_TYPES))}
        {input("min_price", "decimal")}
        {input("max_price", "decimal")}
        {input("min_rooms", "decimal")}
        {input("min_sqm", "decimal")}
        {choice("sort", sorts, true)}
      </div>
      {raw.lat !== undefined && raw.lng !== undefined && (
        <>
          <input type="hidden" name="lat" value={truncate(raw.lat, 30)} />
          <input type="hidden" name="lng" value={truncate(raw.lng, 30)} />
          <p class="hint" id="around-point">
            {ft(l, "aroundPoint")} {truncate(raw.lat, 30)}, {truncate(raw.lng, 30)}
          </p>
        </>
      )}
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
        <PerSqm l={l} item={item} />
      </div>
    </article>
  );
}

/** The asked price per m² of a listing, labelled as purchase or rent; nothing when unknown. */
export function PerSqm(p: { l: Lang; item: Listing }) {
  const value = pricePerSqmText(p.item, p.l);
  return value ? <p class="per-sqm">{perSqmLabel(p.l, p.item.transaction_type)}: {value}</p> : null;
}
