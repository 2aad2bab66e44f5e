/**
 * What a portal shows of a listing beyond the twelve public fields (issue 31, docs/contract.md §4.14): the public
 * description, the energy certificate's data, Nebenkosten and Warmmiete, the deposit, the floor and when it is
 * available. The one place their rules live; the stock functions (`stock.ts`, the provider's MCP tools and the
 * workspace form), the OpenImmo import, the listing page and the seeker's `get_property` use it. The REST listing
 * objects stay the twelve fields of §2.1.
 *
 * Rules:
 * - Every detail is optional; `null` clears it, an absent one stays.
 * - `public_description`: plain text with paragraphs, 1–{@linkcode PUBLIC_DESCRIPTION_MAX} characters after
 *   trimming, no NUL; shown escaped.
 * - Energy certificate (Energieausweis): `energy_certificate_type` `bedarf` or `verbrauch`; `energy_value` the
 *   final energy demand or consumption in kWh/(m²·a), 0–{@linkcode ENERGY_VALUE_MAX}, one decimal kept;
 *   `energy_carrier` one line of at most 100 characters; `construction_year` 1000–2100; `energy_class` `A+` … `H`;
 *   `energy_certificate_valid_until` a date. A value or a class needs the certificate's type (it says whether the
 *   value is a demand or a consumption): without one, `invalid_request` naming `energy_certificate_type`.
 * - Costs in euro, 0–{@linkcode COST_MAX}: `service_charges` (Nebenkosten per month), `warm_rent` (Warmmiete per
 *   month: not below the net cold rent `asked_price` of a rental, else `invalid_request` naming `warm_rent`),
 *   `deposit` (Kaution).
 * - `floor` a whole number from −5 to 200 (0 the ground floor); `available_from` one line of at most 100
 *   characters ("sofort", "1. März 2027", "nach Vereinbarung").
 */
import { z } from "zod";
import {
  DETAIL_COLUMNS,
  ENERGY_CERTIFICATE_TYPES,
  ENERGY_CLASSES,
  type ListingDetailColumns,
  officeListingDetails,
  publishedListingDetails,
  writeListingDetails,
} from "../db/listing_details.ts";
import type { Db } from "../db/connection.ts";
import { AppError } from "../errors.ts";
import { isUuid } from "../ids.ts";
import { singleLineText } from "../text.ts";
import type { Kysely } from "kysely";
import type { Database } from "../db/schema.ts";

export { DETAIL_COLUMNS, ENERGY_CERTIFICATE_TYPES, ENERGY_CLASSES };

/** Longest public description, in characters after trimming. */
export const PUBLIC_DESCRIPTION_MAX = 20_000;
/** Largest energy value accepted, in kWh/(m²·a). */
export const ENERGY_VALUE_MAX = 5_000;
/** Largest cost accepted (Nebenkosten, Warmmiete, Kaution), in euro. */
export const COST_MAX = 10_000_000;

/**
 * The details the law requires in an advert when an energy certificate exists (GEG §87): its kind, the energy
 * value, the main energy carrier, and for residential buildings the year of construction and the efficiency class.
 */
export const GEG_ADVERT_FIELDS = [
  "energy_certificate_type",
  "energy_value",
  "energy_carrier",
  "construction_year",
  "energy_class",
] as const satisfies ReadonlyArray<keyof ListingDetailColumns>;

/** A listing's details; null where not given. */
export type ListingDetails = ListingDetailColumns;

const optional = <T extends z.ZodType>(s: T) => s.nullable().optional();
const cost = (what: string) =>
  optional(z.number().min(0).max(COST_MAX)).describe(`${what}, in euro; null clears it.`);

/** The detail fields as input of the stock functions (create and update): every one optional, `null` clears it. */
export const detailFieldsShape = {
  public_description: optional(
    z.string().trim().min(1).max(PUBLIC_DESCRIPTION_MAX)
      .refine((s) => !s.includes("\u0000"), "must not contain NUL")
      .refine((s) => s.isWellFormed(), "must be valid Unicode text"),
  ).describe(
    "Public description shown on the listing page: plain text, paragraphs separated by blank lines.",
  ),
  energy_certificate_type: optional(z.enum(ENERGY_CERTIFICATE_TYPES)).describe(
    "Kind of energy certificate: bedarf (Energiebedarfsausweis) or verbrauch (Energieverbrauchsausweis).",
  ),
  energy_value: optional(z.number().min(0).max(ENERGY_VALUE_MAX)).describe(
    "Final energy demand (bedarf) or consumption (verbrauch) in kWh/(m²·a); one decimal is kept.",
  ),
  energy_carrier: optional(singleLineText(100)).describe(
    "Main energy carrier of the heating (wesentlicher Energieträger), e.g. Gas, Fernwärme, Wärmepumpe.",
  ),
  construction_year: optional(z.number().int().min(1000).max(2100)).describe("Year of construction."),
  energy_class: optional(z.enum(ENERGY_CLASSES)).describe("Energy efficiency class, A+ (best) to H."),
  energy_certificate_valid_until: optional(z.iso.date()).describe(
    "Last day the energy certificate is valid (YYYY-MM-DD).",
  ),
  service_charges: cost("Nebenkosten (service charges) per month"),
  warm_rent: cost("Warmmiete (rent including heating and service charges) per month"),
  deposit: cost("Kaution (deposit)"),
  floor: optional(z.number().int().min(-5).max(200)).describe("Floor (Etage): 0 the ground floor."),
  available_from: optional(singleLineText(100)).describe(
    'When the property is available, e.g. "sofort", "1. März 2027", "nach Vereinbarung".',
  ),
};

/** A listing's details as callers see them: every field present, null where not given. */
export const listingDetailsSchema = z.object({
  public_description: z.string().nullable(),
  energy_certificate_type: z.enum(ENERGY_CERTIFICATE_TYPES).nullable(),
  energy_value: z.number().nullable().describe("kWh/(m²·a)"),
  energy_carrier: z.string().nullable(),
  construction_year: z.number().int().nullable(),
  energy_class: z.enum(ENERGY_CLASSES).nullable(),
  energy_certificate_valid_until: z.string().nullable().describe("YYYY-MM-DD"),
  service_charges: z.number().nullable().describe("euro per month"),
  warm_rent: z.number().nullable().describe("euro per month"),
  deposit: z.number().nullable().describe("euro"),
  floor: z.number().int().nullable(),
  available_from: z.string().nullable(),
});

/** No details at all. */
export const NO_DETAILS: ListingDetails = Object.freeze(
  Object.fromEntries(DETAIL_COLUMNS.map((k) => [k, null])) as unknown as ListingDetails,
);

/** The details given in `fields` (absent ones left out), the energy value rounded to one decimal. */
export function detailChange(
  fields: Partial<Record<keyof ListingDetails, unknown>>,
): Partial<ListingDetails> {
  const out: Partial<Record<keyof ListingDetails, unknown>> = {};
  for (const k of DETAIL_COLUMNS) if (fields[k] !== undefined) out[k] = fields[k];
  if (typeof out.energy_value === "number") out.energy_value = Math.round(out.energy_value * 10) / 10;
  return out as Partial<ListingDetails>;
}

/** Whether any detail is given. */
export function hasDetails(d: ListingDetails): boolean {
  return DETAIL_COLUMNS.some((k) => d[k] !== null);
}

/**
 * Checks the rules that join several fields on the listing as it would be (`d` its details, `listing` its
 * transaction type and asked price): throws `invalid_request` naming the field to fix.
 */
export function checkDetails(
  d: ListingDetails,
  listing: { transaction_type: string | null; asked_price: number | null },
): void {
  if ((d.energy_value !== null || d.energy_class !== null) && d.energy_certificate_type === null) {
    throw new AppError("invalid_request", {
      field: "energy_certificate_type",
      reason: "missing",
      hint: "an energy value or class needs the certificate's type (bedarf or verbrauch)",
    });
  }
  const cold = listing.transaction_type === "rent" ? listing.asked_price : null;
  if (d.warm_rent !== null && cold !== null && d.warm_rent < cold) {
    throw new AppError("invalid_request", {
      field: "warm_rent",
      reason: "out_of_range",
      hint: "the Warmmiete is at least the net cold rent (asked_price)",
    });
  }
}

/** The details of the office's listing `listingId` (NO_DETAILS when it has none). */
export async function officeDetails(
  q: Kysely<Database>,
  officeId: string,
  listingId: string,
): Promise<ListingDetails> {
  return await officeListingDetails(q, officeId, listingId) ?? NO_DETAILS;
}

/** The details of the published listing `id` (NO_DETAILS when it has none, is not published or is malformed). */
export async function publicDetails(db: Db, id: string): Promise<ListingDetails> {
  if (!isUuid(id)) return NO_DETAILS;
  return await publishedListingDetails(db.kysely, id.toLowerCase()) ?? NO_DETAILS;
}

/**
 * Writes `change` to listing `listingId` in transaction `tx` after checking it with {@linkcode checkDetails}
 * against `current` and `listing` as they will be; answers the details afterwards. The caller holds the listing.
 */
export async function saveDetails(
  tx: Kysely<Database>,
  listingId: string,
  change: Partial<ListingDetails>,
  current: ListingDetails,
  listing: { transaction_type: string | null; asked_price: number | null },
): Promise<ListingDetails> {
  const next = { ...current, ...change };
  checkDetails(next, listing);
  await writeListingDetails(tx, listingId, change);
  return next;
}
