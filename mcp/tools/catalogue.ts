/**
 * MCP tools of the seeker server over the public catalogue and valuation: `search_properties` (docs/contract.md §2.3) and
 * `get_location_baseline` (docs/contract.md §3). They answer exactly what the REST endpoints answer for the same query.
 *
 * Errors: a field out of bounds, of the wrong type or unknown answers `invalid_arguments` (the input schema); the
 * rule between fields min_price ≤ max_price answers `invalid_request`, like REST (`catalogue/filters.ts`).
 */
import { z } from "zod";
import { filterFields } from "../../catalogue/filters.ts";
import { type Listing, type Page, pageSchema, pagingFields } from "../../catalogue/listing.ts";
import { searchListings } from "../../catalogue/search.ts";
import {
  exactPlaceFilter,
  placeHints,
  type PlaceOption,
  RADIUS_KM_MAX,
} from "../../catalogue/place_search.ts";
import { sortSchema } from "../../catalogue/sort.ts";
import { askedPrice, decimal, kindDealPlace } from "../../catalogue/german.ts";
import type { AppDeps } from "../../deps.ts";
import { type BaselineResult, baselineResultSchema, locationBaselineOf } from "../../valuation/baseline.ts";
import type { Attribution } from "../../valuation/brw_sources.ts";
import { baselineInputSchema } from "../../valuation/input.ts";
import { bt, gfzText, perSqmText } from "../../valuation/baseline_words.ts";
import { addTool, READ_ONLY, type ToolTarget } from "./define.ts";

/** One German line for a public listing: title, kind, place, facts and id. */
export function listingLine(l: Listing): string {
  const { kind, deal, place } = kindDealPlace(l);
  const price = askedPrice(l.asked_price, l.transaction_type);
  const facts = [
    price && `${price}${l.transaction_type === "rent" ? " kalt/Monat" : ""}`,
    l.total_rooms !== null && `${decimal(l.total_rooms)} Zi.`,
    l.square_meters !== null && `${decimal(l.square_meters)} m²`,
  ].filter((f) => typeof f === "string" && f !== "");
  const head = l.title ? `${l.title}: ` : "";
  const sample = l.beispiel ? " [Beispielobjekt, kein echtes Angebot]" : "";
  return `- ${head}${kind}${deal}${place ? ` in ${place}` : ""}${
    facts.length ? `, ${facts.join(", ")}` : ""
  }` +
    `${sample} (ID ${l.id})`;
}

/** A German summary of a page ("N Objekte gefunden, Seite p von q.") plus one line per listing. */
export function pageText(
  p: Pick<Page, "items" | "total" | "page" | "page_size">,
  what = "Objekte gefunden",
): string {
  const pages = Math.max(1, Math.ceil(p.total / p.page_size));
  const head = `${p.total} ${what}, Seite ${p.page} von ${pages} (${p.page_size} je Seite).`;
  if (p.items.length === 0) return p.total === 0 ? `${head} Keine Treffer.` : `${head} Diese Seite ist leer.`;
  return [head, ...p.items.map(listingLine)].join("\n");
}

const searchInput = z.strictObject({
  ...pagingFields,
  ...filterFields,
  sort: sortSchema.optional(),
  postal_code: z.string().regex(/^[0-9]{5}$/, "must be five digits").optional()
    .describe("Postcode (five digits): only listings with this postcode."),
  radius_km: z.number().gt(0).max(RADIUS_KM_MAX).optional().describe(
    `Radius in km (up to ${RADIUS_KM_MAX}) around lat/lng, or else around the centre of the listings of city or ` +
      "postal_code; replaces the city and postcode filters and keeps only listings with coordinates.",
  ),
  lat: z.number().min(-90).max(90).optional().describe(
    "Latitude of the radius centre (WGS 84); needs lng and radius_km.",
  ),
  lng: z.number().min(-180).max(180).optional().describe(
    "Longitude of the radius centre (WGS 84); needs lat and radius_km.",
  ),
});

/** "Meinten Sie: Frankfurt am Main (120 Objekte), Frankfurt (Oder) (3 Objekte)?" or "" without hints. */
export function hintText(hints: PlaceOption[]): string {
  if (hints.length === 0) return "";
  return ` Meinten Sie: ${hints.map((h) => `${h.city} (${decimal(h.count)} Objekte)`).join(", ")}?`;
}

/**
 * German sentences saying the baseline value, what it is per m² of and where it comes from, in the words of the
 * listing page (valuation/baseline_words.ts): an official land value per m² of land (not a flat's price per m² of
 * floor space) with its floor-area ratio in words, reference date, source and licence ("Datenquelle: …,
 * dl-de/by-2-0", as the licence requires); a comparable value per m² (and month for a rent); no value in one
 * sentence.
 */
export function baselineText(r: BaselineResult, attribution?: Attribution, rent = false): string {
  const region = r.region_label ? ` – ${r.region_label}` : "";
  if (r.source === "bodenrichtwert" && r.base_eur_sqm !== null) {
    const facts = [
      `${bt("de", "brwLabel")} ${perSqmText("de", r.base_eur_sqm, "brwUnit")}${region}.`,
      bt("de", "brwExplain"),
      r.gfz !== null ? gfzText("de", r.gfz) : null,
      r.stichtag ? `Stichtag ${r.stichtag}.` : null,
      `${bt("de", "brwSource")}.`,
      attribution
        ? `${attribution.text}${attribution.sourceUrl ? ` (${attribution.sourceUrl})` : ""}.`
        : null,
    ];
    return facts.filter((f): f is string => f !== null).join(" ");
  }
  if (r.source === "comparables" && r.base_eur_sqm !== null) {
    const unit = rent ? "cmpUnitRent" : "cmpUnitBuy";
    return `${bt("de", "cmpLabel")} ${perSqmText("de", r.base_eur_sqm, unit)}${region}. ${
      bt("de", "cmpExplain")
    }`;
  }
  return rent
    ? `Kein Richtwert: ${bt("de", "rentNone")}`
    : `Kein Richtwert verfügbar (Quelle: keine)${region}.`;
}

/** Registers `search_properties` and `get_location_baseline` on the seeker server. */
export function registerSeekerCatalogueTools(server: ToolTarget, deps: AppDeps): void {
  addTool(server, deps, {
    name: "search_properties",
    title: "Objekte suchen / Search listings",
    description: [
      "Durchsucht den öffentlichen Katalog dieses Dienstes (nur Objekte, die Anbieter selbst eingestellt haben), " +
      "neueste zuerst (sort: price_asc, price_desc, area_desc, area_asc, price_per_sqm_asc). Alle Filter sind " +
      "optional und werden mit UND verknüpft; city ignoriert Groß-/Kleinschreibung und Umlaut-Schreibweise; " +
      "postal_code (5 Ziffern); radius_km um lat/lng oder um city/postal_code. Findet city nichts, nennt der Text " +
      'Vorschläge ("Meinten Sie …?"). Liefert eine Seite {items, total, page, page_size}; total ist exakt. ' +
      "Einzelheiten eines Objekts mit get_property.",
      "Searches the public catalogue of this service (only listings providers entered themselves), newest first " +
      "(publication time, then id). Every filter is optional; they combine with AND. Same filters, bounds and " +
      "answer as GET /api/public/properties: page >= 1 (default 1), page_size 1–60 (default 24), city, " +
      "transaction_type (buy|rent), property_type (apartment|house|land|commercial), min_price, max_price, " +
      "min_rooms, min_sqm (>= 0). Extensions of this tool: sort (newest default, price_asc, price_desc, area_desc, " +
      "area_asc, price_per_sqm_asc; ties broken by id), postal_code (five digits), radius_km (0 < km <= " +
      `${RADIUS_KM_MAX}) around lat/lng, or else around the centre of the listings of city or postal_code ` +
      "(then only listings with coordinates within that great-circle distance count, whatever their city). " +
      'When city finds nothing, the text suggests the places it may mean ("Frankfurt" → "Frankfurt am Main", ' +
      '"Frankfurt (Oder)"). Returns {items, total, page, page_size}; pages past the last one have empty items. ' +
      "Errors: a value out of bounds, an unknown sort or an unknown field → invalid_arguments; min_price > " +
      "max_price, lat without lng, lat/lng without radius_km, radius_km without a place → invalid_request naming " +
      "the field. Listings with beispiel = true are invented samples.",
    ].join("\n\n"),
    input: searchInput,
    output: pageSchema,
    annotations: READ_ONLY,
  }, async (args) => {
    const { postal_code, radius_km, lat, lng, ...rest } = args;
    const place = await exactPlaceFilter(deps.db, { city: rest.city, postal_code, radius_km, lat, lng });
    const page = await searchListings(deps.db, { ...rest, ...place });
    const hints = page.total === 0 && rest.city !== undefined && radius_km === undefined
      ? await placeHints(deps.db, rest.city)
      : [];
    return { data: page, text: pageText(page) + hintText(hints) };
  });

  addTool(server, deps, {
    name: "get_location_baseline",
    title: "Bodenwert-Richtwert / Location baseline",
    description: [
      "Liefert einen Richtwert in Euro je m² für einen Ort (PLZ, Ort oder Koordinaten) und woher er stammt: " +
      "amtlicher Bodenrichtwert, Vergleichsobjekte aus dem eigenen Bestand oder keine Grundlage.",
      "Returns a euro-per-m² guide value for a place and its source, exactly like POST " +
      "/api/public/valuation/location-baseline: {base_eur_sqm, source (bodenrichtwert|comparables|none), " +
      "region_label, brw, gfz, stichtag}. No field is required; naming no place answers source none. Coordinates " +
      "inside Germany win over plz/city. Order: states that do not release land values (Baden-Württemberg, " +
      "Saarland, Schleswig-Holstein, Bayern) → none; official land value (art kauf only; euro per m² of land); " +
      "trimmed median of the service's own published comparable listings; otherwise none (base_eur_sqm null). " +
      'An official land value\'s text names its source and licence ("Datenquelle: …, dl-de/by-2-0"); show it ' +
      "with the value. Use it to judge whether an asked price is plausible. Errors: plz not five digits, lat/lng out of range, " +
      "unknown property_type or field → invalid_arguments.",
    ].join("\n\n"),
    input: baselineInputSchema,
    output: baselineResultSchema,
    annotations: READ_ONLY,
  }, async (args) => {
    const answer = await locationBaselineOf(deps.db, args);
    return {
      data: answer.result,
      text: baselineText(answer.result, answer.attribution, args.art === "miete"),
    };
  });
}
