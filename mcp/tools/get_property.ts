/** MCP tool `get_property`: one public listing (docs/contract.md §2.4), on both servers. */
import { z } from "zod";
import { type Listing, listingSchema } from "../../catalogue/listing.ts";
import { getPublicListing } from "../../catalogue/search.ts";
import { askedPrice, decimal, kindDealPlace } from "../../catalogue/german.ts";
import type { AppDeps } from "../../deps.ts";
import { addTool, READ_ONLY, type ToolTarget } from "./define.ts";

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
    description: "Liefert ein veröffentlichtes Objekt des Katalogs mit seinen öffentlichen Feldern. " +
      "Returns one published listing of the catalogue with its public fields (docs/contract.md §2.4); an unknown or " +
      "withdrawn id answers not_found.",
    input: z.object({ id: z.string().max(100).describe("Listing id (UUID).") }),
    output: listingSchema,
    annotations: READ_ONLY,
  }, async ({ id }) => {
    const listing = await getPublicListing(deps.db, id);
    return { data: listing, text: listingText(listing) };
  });
}
