/**
 * MCP tool `get_property` of the seeker server: one public listing (docs/contract.md §2.4) with its details
 * (§4.14: public description, energy certificate, costs, floor, availability).
 */
import { z } from "zod";
import { type Listing, listingSchema } from "../../catalogue/listing.ts";
import { getPublicListingWithDetails } from "../../catalogue/search.ts";
import { askedPrice, decimal, euroCents, kindDealPlace } from "../../catalogue/german.ts";
import type { AppDeps } from "../../deps.ts";
import { type ListingDetails, listingDetailsSchema } from "../../catalogue/listing_details.ts";
import { addTool, READ_ONLY, type ToolTarget } from "./define.ts";

/** The German lines of a listing's details (none for details not given). */
export function detailsText(d: ListingDetails): string[] {
  const money = (v: number | null) => euroCents(v);
  const energy = d.energy_certificate_type && [
    `Energieausweis: ${d.energy_certificate_type === "bedarf" ? "Bedarfsausweis" : "Verbrauchsausweis"}`,
    d.energy_value !== null ? `${decimal(d.energy_value)} kWh/(m²·a)` : null,
    d.energy_class && `Klasse ${d.energy_class}`,
    d.energy_carrier,
    d.energy_certificate_valid_until && `gültig bis ${d.energy_certificate_valid_until}`,
  ].filter(Boolean).join(", ");
  return [
    d.warm_rent !== null ? `Warmmiete: ${money(d.warm_rent)}/Monat` : null,
    d.service_charges !== null ? `Nebenkosten: ${money(d.service_charges)}/Monat` : null,
    d.deposit !== null ? `Kaution: ${money(d.deposit)}` : null,
    d.floor !== null ? `Etage: ${d.floor === 0 ? "Erdgeschoss" : d.floor}` : null,
    d.construction_year !== null ? `Baujahr: ${d.construction_year}` : null,
    d.available_from !== null ? `Verfügbar ab: ${d.available_from}` : null,
    energy || null,
    d.public_description,
  ].filter((s): s is string => typeof s === "string" && s !== "");
}

/** A short German text rendering of a public listing. */
export function listingText(l: Listing): string {
  const { kind, deal, place } = kindDealPlace(l);
  const price = askedPrice(l.asked_price, l.transaction_type);
  const facts = [
    l.total_rooms !== null && `${decimal(l.total_rooms)} Zimmer`,
    l.square_meters !== null && `${decimal(l.square_meters)} m²`,
    price && `${price}${l.transaction_type === "rent" ? " Kaltmiete/Monat" : ""}`,
  ].filter((f) => typeof f === "string" && f !== "");
  return [
    l.title ?? `${kind}${deal}`,
    `${kind}${deal}${place ? ` in ${place}` : ""}${facts.length ? `: ${facts.join(", ")}` : ""}.`,
    l.beispiel ? "Beispielobjekt: erfundenes Anschauungsbeispiel, kein echtes Angebot." : null,
    `ID: ${l.id}`,
  ].filter((s): s is string => s !== null).join("\n");
}

/** Registers the public `get_property` (seeker server); an unknown or malformed id answers `not_found`. */
export function registerGetProperty(target: ToolTarget, deps: AppDeps): void {
  addTool(target, deps, {
    name: "get_property",
    title: "Objekt abrufen / Get listing",
    description: "Liefert ein veröffentlichtes Objekt des Katalogs mit seinen öffentlichen Feldern, der " +
      "Beschreibung, den Daten des Energieausweises, Nebenkosten, Warmmiete, Kaution, Etage und Verfügbarkeit. " +
      "Returns one published listing of the catalogue with its public fields (docs/contract.md §2.4) and its " +
      "details (description, energy certificate, costs, floor, availability; null where not given); an unknown " +
      "or withdrawn id answers not_found.",
    input: z.object({ id: z.string().max(100).describe("Listing id (UUID).") }),
    output: listingSchema.extend(listingDetailsSchema.shape),
    annotations: READ_ONLY,
  }, async ({ id }) => {
    const listing = await getPublicListingWithDetails(deps.db, id);
    return { data: listing, text: [listingText(listing), ...detailsText(listing)].join("\n") };
  });
}
