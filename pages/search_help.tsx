/**
 * The parts of the search page `/objekte` around the results: the pager with page numbers, the one empty state
 * with its help (a page past the last, nothing found, a place to choose or unknown), and the notice of the place
 * taken. Every link keeps the search (`SearchLink` builds it from the form's values).
 */
import { decimal } from "../catalogue/german.ts";
import type { PlaceOption } from "../catalogue/place_search.ts";
import { RADIUS_CHOICES } from "../catalogue/place_search.ts";
import { type Lang, t } from "./i18n.ts";
import { ft } from "./search_texts.ts";

/** The search as the form gave it (field → text), and a link to it with some fields changed. */
export type SearchLink = (change?: Record<string, string | undefined>) => string;

/** How many page numbers stand on each side of the current one. */
const NEIGHBOURS = 2;

/** The page numbers the pager shows: the first, the last, and the current one with its neighbours, in order. */
export function pagerNumbers(current: number, last: number): number[] {
  const out = new Set([1, last]);
  for (let p = current - NEIGHBOURS; p <= current + NEIGHBOURS; p++) if (p >= 1 && p <= last) out.add(p);
  return [...out].sort((a, b) => a - b);
}

/** The number of the last page of `total` results (at least 1). */
export function lastPage(total: number, pageSize: number): number {
  return Math.max(1, Math.ceil(total / pageSize));
}

/** The pager: previous, the numbers (current one marked with aria-current), next, and "Seite p von q". */
export function Pager(p: { l: Lang; page: number; last: number; total: number; link: SearchLink }) {
  const { l, page, last, total, link } = p;
  if (page > last || total === 0) return null;
  const to = (n: number) => link({ page: n > 1 ? String(n) : undefined });
  const numbers = pagerNumbers(page, last);
  return (
    <nav class="pager" aria-label={ft(l, "pages")}>
      {page > 1 && <a rel="prev" href={to(page - 1)}>{t(l, "previous")}</a>}
      <ol>
        {numbers.map((n, i) => (
          <>
            {i > 0 && n > numbers[i - 1]! + 1 && <li aria-hidden="true">…</li>}
            <li>
              {n === page
                ? <span aria-current="page">{decimal(n, l)}</span>
                : <a href={to(n)} aria-label={`${t(l, "pageOf")} ${n}`}>{decimal(n, l)}</a>}
            </li>
          </>
        ))}
      </ol>
      {page < last && <a rel="next" href={to(page + 1)}>{t(l, "next")}</a>}
      <span class="hint">
        {t(l, "pageOf")} {decimal(page, l)} {t(l, "of")} {decimal(last, l)}
      </span>
    </nav>
  );
}

/** Why a search shows no listing. */
export type EmptyReason =
  | { kind: "none" }
  | { kind: "past_last"; page: number; last: number; total: number }
  | { kind: "choose"; options: PlaceOption[] }
  | { kind: "unknown"; suggestions: PlaceOption[] }
  | { kind: "no_centre" };

/**
 * The one empty state of the search: what happened, then help: the places to choose or suggested, a wider radius,
 * the place alone without the other filters, and clearing every filter.
 */
export function EmptyState(
  p: { l: Lang; reason: EmptyReason; values: Record<string, string>; link: SearchLink },
) {
  const { l, reason, values, link } = p;
  const options = reason.kind === "choose"
    ? reason.options
    : reason.kind === "unknown"
    ? reason.suggestions
    : [];
  const radius = Number(values.radius_km ?? 0);
  const wider = RADIUS_CHOICES.find((r) => r > radius);
  const others = ["transaction_type", "property_type", "min_price", "max_price", "min_rooms", "min_sqm"]
    .some((k) => values[k] !== undefined);
  const placeOnly = Object.fromEntries(
    ["transaction_type", "property_type", "min_price", "max_price", "min_rooms", "min_sqm"].map((
      k,
    ) => [k, undefined]),
  );
  return (
    <section id="empty" class="empty" aria-labelledby="empty-title">
      <h2 id="empty-title">{headline(l, reason)}</h2>
      {reason.kind === "past_last" && (
        <p>
          <a id="to-last-page" href={link({ page: reason.last > 1 ? String(reason.last) : undefined })}>
            {ft(l, "toLastPage", { last: decimal(reason.last, l) })}
          </a>
        </p>
      )}
      {reason.kind === "no_centre" && <p>{ft(l, "noCentre")}</p>}
      {reason.kind !== "past_last" && (
        <>
          <p>{ft(l, "helpTitle")}</p>
          <ul id="help">
            {options.length > 0 && (
              <li id="place-options">
                {reason.kind === "unknown" && `${ft(l, "didYouMean")} `}
                {options.map((o, i) => (
                  <>
                    {i > 0 && ", "}
                    <a href={link({ city: o.city, page: undefined })}>{o.city}</a> ({decimal(o.count, l)}{" "}
                    {ft(l, o.count === 1 ? "listingCount" : "listingsCount")})
                  </>
                ))}
              </li>
            )}
            {reason.kind === "no_centre" && (
              <li>
                <a href={link({ radius_km: undefined, lat: undefined, lng: undefined, page: undefined })}>
                  {ft(l, "searchWithoutRadius")}
                </a>
              </li>
            )}
            {radius > 0 && wider !== undefined && reason.kind === "none" && (
              <li>
                <a id="widen-radius" href={link({ radius_km: String(wider), page: undefined })}>
                  {ft(l, "widenRadius", { km: wider })}
                </a>
              </li>
            )}
            {others && (
              <li>
                <a id="place-only" href={link({ ...placeOnly, page: undefined })}>{ft(l, "onlyPlace")}</a>
              </li>
            )}
            <li>
              <a id="clear-filters" href="/objekte">{ft(l, "clearFilters")}</a>
            </li>
          </ul>
        </>
      )}
    </section>
  );
}

function headline(l: Lang, reason: EmptyReason): string {
  switch (reason.kind) {
    case "past_last":
      return ft(l, "pastLast", {
        page: decimal(reason.page, l),
        total: decimal(reason.total, l),
        last: decimal(reason.last, l),
      });
    case "choose":
      return ft(l, "choosePlace");
    case "unknown":
      return `${ft(l, "unknownPlace")}. ${ft(l, "noResults")}`;
    default:
      return ft(l, "noResults");
  }
}
