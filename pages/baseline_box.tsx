/**
 * The location baseline on a listing page: the guide value, where it comes from, and the official source named as its licence requires.
 */
import { decimal, euroPerSqm } from "../catalogue/german.ts";
import { type BaselineAnswer } from "../valuation/baseline.ts";
import type { Attribution } from "../valuation/brw_sources.ts";
import { type Lang, t } from "./i18n.ts";

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

export function Baseline(p: { l: Lang; baseline: BaselineAnswer | undefined; rent: boolean }) {
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
