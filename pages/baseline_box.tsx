/**
 * The location baseline on a listing page: the guide value and what it is per m² of, where it comes from, and the
 * official source named as its licence requires. Its words are in `valuation/baseline_words.ts`.
 */
import { type BaselineAnswer } from "../valuation/baseline.ts";
import type { Attribution } from "../valuation/brw_sources.ts";
import type { Lang } from "./i18n.ts";
import { bt, gfzText, perSqmText } from "../valuation/baseline_words.ts";

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
      {bt(p.l, "dataSource")}:{" "}
      {a.sourceUrl ? <a href={a.sourceUrl} rel="noopener noreferrer">{a.source}</a> : a.source},{" "}
      {a.licenceUrl ? <a href={a.licenceUrl} rel="license noopener noreferrer">{a.licence}</a> : a.licence}
    </p>
  );
}

/**
 * The location value of a listing: an official land value as "Bodenrichtwert: 1.380 € je m² Grundstücksfläche"
 * with a sentence that it is per m² of land (not the flat's price), its reference date, the floor-area ratio in
 * words and the data source with its licence; a value from comparable listings with its unit (per month for
 * rentals); no value with one plain sentence (for a rental: that there are too few comparable rentals).
 */
export function Baseline(p: { l: Lang; baseline: BaselineAnswer | undefined; rent: boolean }) {
  const { l } = p;
  const b = p.baseline?.result;
  if (!b || b.source === "none" || b.base_eur_sqm === null) {
    return (
      <div id="baseline" data-source="none">
        {p.rent ? <p id="baseline-rent-note">{bt(l, "rentNone")}</p> : (
          <>
            <p>{bt(l, "none")}</p>
            {b?.region_label && <p class="hint">{b.region_label}</p>}
          </>
        )}
      </div>
    );
  }
  if (b.source === "comparables") {
    return (
      <div id="baseline" data-source="comparables">
        <p id="baseline-value">
          {bt(l, "cmpLabel")}:{" "}
          <strong>{perSqmText(l, b.base_eur_sqm, p.rent ? "cmpUnitRent" : "cmpUnitBuy")}</strong>
        </p>
        <p>{bt(l, "cmpExplain")}</p>
        {b.region_label && <p class="hint">{b.region_label}</p>}
      </div>
    );
  }
  const invented = p.baseline?.invented === true;
  return (
    <div id="baseline" data-source={b.source} {...(invented ? { "data-invented": "true" } : {})}>
      <p id="baseline-value">
        {bt(l, invented ? "inventedLabel" : "brwLabel")}:{" "}
        <strong>{perSqmText(l, b.base_eur_sqm, "brwUnit")}</strong>
      </p>
      <p id="baseline-explain">{bt(l, "brwExplain")}</p>
      {invented
        ? <p class="warning" id="baseline-invented">{bt(l, "invented")}</p>
        : <p>{bt(l, "brwSource")}</p>}
      {b.region_label && <p>{b.region_label}</p>}
      {b.gfz !== null && <p id="baseline-gfz">{gfzText(l, b.gfz)}</p>}
      {b.stichtag && (
        <p>
          {bt(l, "stichtag")}: <time datetime={b.stichtag} id="stichtag">{stichtagText(l, b.stichtag)}</time>
        </p>
      )}
      {!invented && p.baseline?.attribution && <BaselineAttribution l={l} a={p.baseline.attribution} />}
    </div>
  );
}
