/**
 * The listing's details on the public listing page (issue 31, docs/contract.md §4.14, §5.7): more facts (Warmmiete,
 * Nebenkosten, Kaution, Etage, Baujahr, Verfügbar ab), the provider's description as escaped paragraphs, and the
 * energy certificate's data with its efficiency class on the A+ … H scale. Only what the provider gave is shown;
 * for a flat or a house without certificate data the page says so. Rules live in `catalogue/listing_details.ts`.
 */
import { decimal, euroCents } from "../catalogue/german.ts";
import type { Listing } from "../catalogue/listing.ts";
import { ENERGY_CLASSES, type ListingDetails, publicDetails } from "../catalogue/listing_details.ts";
import { type PhotoView, publishedPhotos } from "../photos/photos.ts";
import type { AppDeps } from "../deps.ts";
import type { Lang } from "./i18n.ts";
import { longDate, lt } from "./listing_texts.ts";

/** The styles of the details (part of the pages' stylesheet). */
export const DETAILS_STYLE = `
.description p{margin:0 0 .75rem}
.energy-scale{display:flex;list-style:none;padding:0;margin:.5rem 0 1rem;max-width:30rem}
.energy-scale li{flex:1;text-align:center;font-size:.8rem;font-weight:600;padding:.2rem 0;color:#111;opacity:.45}
.energy-scale li[aria-current=true]{opacity:1;outline:2px solid #111;outline-offset:1px;position:relative;z-index:1}
`;

/** Colours of the efficiency classes, green to red (as the certificate prints them). */
const CLASS_COLOURS = [
  "#00a651",
  "#4cb848",
  "#8cc63f",
  "#cadb2a",
  "#fff200",
  "#fdb913",
  "#f37021",
  "#ed1c24",
  "#be1e2d",
];

/** What the listing page shows besides the twelve fields: the photos in order and the details. */
export async function listingExtras(
  deps: Pick<AppDeps, "db">,
  listingId: string,
): Promise<{ photos: PhotoView[]; details: ListingDetails }> {
  const [photos, details] = await Promise.all([
    publishedPhotos(deps, [listingId]),
    publicDetails(deps.db, listingId),
  ]);
  return { photos: photos.get(listingId.toLowerCase()) ?? [], details };
}

/** "Erdgeschoss", "3. Obergeschoss", "1. Untergeschoss" (English "ground floor", "floor 3", "basement level 1"). */
export function floorText(l: Lang, floor: number): string {
  if (floor === 0) return lt(l, "groundFloor");
  const key = floor > 0 ? "upperFloor" : "basement";
  return l === "en" ? `${lt(l, key)} ${Math.abs(floor)}` : `${Math.abs(floor)}${lt(l, key)}`;
}

/** The details below the listing's facts: more facts, the description, the energy certificate. */
export function ListingMore(p: { l: Lang; listing: Listing; details: ListingDetails }) {
  const { l, details: d } = p;
  return (
    <>
      <MoreFacts l={l} d={d} />
      {d.public_description && (
        <section class="description" aria-labelledby="h-beschreibung">
          <h2 id="h-beschreibung">{lt(l, "description")}</h2>
          {paragraphs(d.public_description).map((para) => (
            <p>
              {para.map((line, i) =>
                i === 0 ? line : (
                  <>
                    <br />
                    {line}
                  </>
                )
              )}
            </p>
          ))}
        </section>
      )}
      <Energy
        l={l}
        d={d}
        residential={p.listing.property_type === "apartment" || p.listing.property_type === "house"}
      />
    </>
  );
}

/** The text's paragraphs (split at blank lines), each as its lines. */
function paragraphs(text: string): string[][] {
  return text.split(/\r?\n\s*\r?\n/).map((para) => para.split(/\r?\n/).map((s) => s.trim()))
    .filter((lines) => lines.some((s) => s !== ""));
}

function MoreFacts(p: { l: Lang; d: ListingDetails }) {
  const { l, d } = p;
  const month = (v: number | null) => v === null ? null : `${euroCents(v, l)}${lt(l, "perMonth")}`;
  const rows: Array<[string, string, string | null]> = [
    ["f-warm-rent", lt(l, "warmRent"), month(d.warm_rent)],
    ["f-service-charges", lt(l, "serviceCharges"), month(d.service_charges)],
    ["f-deposit", lt(l, "deposit"), d.deposit === null ? null : euroCents(d.deposit, l)],
    ["f-floor", lt(l, "floor"), d.floor === null ? null : floorText(l, d.floor)],
    ["f-year", lt(l, "constructionYear"), d.construction_year === null ? null : String(d.construction_year)],
    ["f-available", lt(l, "availableFrom"), d.available_from],
  ];
  const given = rows.filter((r): r is [string, string, string] => r[2] !== null);
  if (given.length === 0) return null;
  return (
    <dl class="facts" aria-label={lt(l, "moreFacts")}>
      {given.map(([id, label, value]) => (
        <>
          <dt>{label}</dt>
          <dd id={id}>{value}</dd>
        </>
      ))}
    </dl>
  );
}

function Energy(p: { l: Lang; d: ListingDetails; residential: boolean }) {
  const { l, d } = p;
  const any = d.energy_certificate_type !== null || d.energy_carrier !== null;
  if (!any && !p.residential) return null;
  return (
    <section aria-labelledby="h-energie" id="energie">
      <h2 id="h-energie">{lt(l, "energy")}</h2>
      {!any ? <p id="no-energy">{lt(l, "noEnergy")}</p> : (
        <>
          {d.energy_class && <ClassScale l={l} current={d.energy_class} />}
          <dl class="facts">
            {d.energy_certificate_type && (
              <>
                <dt>{lt(l, "energyType")}</dt>
                <dd id="e-type">{lt(l, d.energy_certificate_type)}</dd>
              </>
            )}
            {d.energy_value !== null && (
              <>
                <dt>
                  {lt(
                    l,
                    d.energy_certificate_type === "verbrauch" ? "energyValueVerbrauch" : "energyValueBedarf",
                  )}
                </dt>
                <dd id="e-value">{decimal(d.energy_value, l)} kWh/(m²·a)</dd>
              </>
            )}
            {d.energy_class && (
              <>
                <dt>{lt(l, "energyClass")}</dt>
                <dd id="e-class">{d.energy_class}</dd>
              </>
            )}
            {d.energy_carrier && (
              <>
                <dt>{lt(l, "energyCarrier")}</dt>
                <dd id="e-carrier">{d.energy_carrier}</dd>
              </>
            )}
            {d.construction_year !== null && (
              <>
                <dt>{lt(l, "constructionYear")}</dt>
                <dd>{d.construction_year}</dd>
              </>
            )}
            {d.energy_certificate_valid_until && (
              <>
                <dt>{lt(l, "validUntil")}</dt>
                <dd id="e-valid">{longDate(l, d.energy_certificate_valid_until)}</dd>
              </>
            )}
          </dl>
        </>
      )}
    </section>
  );
}

/** The A+ … H scale with the listing's class marked (the class is also written out in the list). */
function ClassScale(p: { l: Lang; current: string }) {
  return (
    <ol class="energy-scale" aria-hidden="true">
      {ENERGY_CLASSES.map((c, i) => (
        <li style={`background:${CLASS_COLOURS[i]}`} aria-current={c === p.current ? "true" : undefined}>
          {c}
        </li>
      ))}
    </ol>
  );
}
