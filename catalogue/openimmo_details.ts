/**
 * The listing details of an OpenImmo `<immobilie>` (issue 31, docs/contract.md §4.12): the public description,
 * the costs of a rental, the floor, when it is available and the energy certificate, checked by the rules of
 * `listing_details.ts`. Pure: no database, no clock.
 *
 * | Element                                              | Detail                           |
 * | ---------------------------------------------------- | -------------------------------- |
 * | `freitexte/objektbeschreibung`                       | `public_description`             |
 * | `preise/nebenkosten`, `warmmiete`, `kaution`          | `service_charges`, `warm_rent`, `deposit` |
 * | `geo/etage`                                          | `floor`                          |
 * | `verwaltung_objekt/verfuegbar_ab`                    | `available_from` (cut to 100)    |
 * | `zustand_angaben/energiepass/epart`                  | `energy_certificate_type`        |
 * | `…/endenergiebedarf` (bedarf), `…/energieverbrauchkennwert` (verbrauch) | `energy_value` |
 * | `…/primaerenergietraeger`                            | `energy_carrier`                 |
 * | `…/baujahr` (else `zustand_angaben/baujahr`)         | `construction_year`              |
 * | `…/wertklasse`                                       | `energy_class`                   |
 * | `…/gueltig_bis` (YYYY-MM-DD or DD.MM.YYYY)           | `energy_certificate_valid_until` |
 */
import { z } from "zod";
import { child, InvalidValue, numberIn, textOf, type XmlNode } from "./openimmo.ts";
import {
  checkDetails,
  detailFieldsShape,
  ENERGY_CLASSES,
  type ListingDetails,
  NO_DETAILS,
} from "./listing_details.ts";
import { AppError } from "../errors.ts";
import { truncate } from "../text.ts";

/** Common energy carrier codes of provider software, in words; other texts are kept as written. */
const CARRIERS: Record<string, string> = {
  OEL: "Öl",
  GAS: "Gas",
  ERDGAS: "Erdgas",
  STROM: "Strom",
  FERNWAERME: "Fernwärme",
  NAHWAERME: "Nahwärme",
  HOLZ: "Holz",
  PELLET: "Holzpellets",
  ERDWAERME: "Erdwärme",
  LUFTWP: "Luft-Wärmepumpe",
  SOLAR: "Solar",
  FLUESSIGGAS: "Flüssiggas",
  KOHLE: "Kohle",
};

const detailsSchema = z.strictObject(detailFieldsShape);

/**
 * The details of `node` for a listing of `transaction_type` asking `asked_price`, or the reason the object is
 * invalid (e.g. `kaution: "viel" is not a number`).
 */
export function mapDetails(
  node: XmlNode,
  listing: { transaction_type: string | null; asked_price: number | null },
): { details: ListingDetails } | { invalid: string } {
  try {
    const raw = readDetails(node);
    const parsed = detailsSchema.safeParse(raw);
    if (!parsed.success) {
      return {
        invalid: parsed.error.issues.map((i) => `${elementOf(String(i.path[0]))}: ${i.message}`).join("; "),
      };
    }
    const details = { ...NO_DETAILS, ...parsed.data } as ListingDetails;
    if (details.energy_value !== null) details.energy_value = Math.round(details.energy_value * 10) / 10;
    checkDetails(details, listing);
    return { details };
  } catch (e) {
    if (e instanceof InvalidValue) return { invalid: e.message };
    if (e instanceof AppError) return { invalid: `${elementOf(e.facts.field ?? "")}: ${e.facts.hint ?? ""}` };
    throw e;
  }
}

function readDetails(node: XmlNode): Record<string, unknown> {
  const preise = child(node, "preise");
  const zustand = child(node, "zustand_angaben");
  const pass = child(zustand, "energiepass");
  const type = certificateType(textOf(child(pass, "epart")));
  const value = type === "verbrauch"
    ? numberIn(pass, "energieverbrauchkennwert")
    : numberIn(pass, "endenergiebedarf") ?? numberIn(pass, "energieverbrauchkennwert");
  const year = numberIn(pass, "baujahr") ?? numberIn(zustand, "baujahr");
  const carrier = textOf(child(pass, "primaerenergietraeger"));
  const klass = textOf(child(pass, "wertklasse"))?.toUpperCase().replace(/\s/g, "");
  const available = textOf(child(child(node, "verwaltung_objekt"), "verfuegbar_ab"));
  return {
    public_description: textOf(child(child(node, "freitexte"), "objektbeschreibung")) ?? null,
    energy_certificate_type: type,
    energy_value: value ?? null,
    energy_carrier: carrier ? CARRIERS[carrier.toUpperCase()] ?? carrier : null,
    construction_year: year ?? null,
    energy_class: klass === undefined ? null : ENERGY_CLASSES.find((c) => c === klass) ?? klass,
    energy_certificate_valid_until: dateOf(textOf(child(pass, "gueltig_bis"))),
    service_charges: numberIn(preise, "nebenkosten") ?? null,
    warm_rent: numberIn(preise, "warmmiete") ?? null,
    deposit: numberIn(preise, "kaution") ?? null,
    floor: numberIn(child(node, "geo"), "etage") ?? null,
    available_from: available ? truncate(available.replace(/\s+/g, " "), 100) : null,
  };
}

/** `epart` as a certificate type; "OHNE_ENERGIEPASS", "NICHT_NOETIG" and the like mean none. */
function certificateType(epart: string | undefined): ListingDetails["energy_certificate_type"] {
  const e = epart?.toUpperCase();
  return e === "BEDARF" ? "bedarf" : e === "VERBRAUCH" ? "verbrauch" : null;
}

/** A date written `YYYY-MM-DD` or `DD.MM.YYYY` as `YYYY-MM-DD` (other text is passed on and refused). */
function dateOf(t: string | undefined): string | null {
  if (t === undefined) return null;
  const german = /^(\d{1,2})\.(\d{1,2})\.(\d{4})$/.exec(t);
  if (german) return `${german[3]}-${german[2]!.padStart(2, "0")}-${german[1]!.padStart(2, "0")}`;
  return t.slice(0, 10);
}

/** The OpenImmo element of a detail, for the reasons of invalid objects. */
function elementOf(field: string): string {
  const names: Record<string, string> = {
    public_description: "objektbeschreibung",
    energy_certificate_type: "energiepass/epart",
    energy_value: "energiepass/endenergiebedarf",
    energy_carrier: "energiepass/primaerenergietraeger",
    construction_year: "baujahr",
    energy_class: "energiepass/wertklasse",
    energy_certificate_valid_until: "energiepass/gueltig_bis",
    service_charges: "nebenkosten",
    warm_rent: "warmmiete",
    deposit: "kaution",
    floor: "etage",
    available_from: "verfuegbar_ab",
  };
  return names[field] ?? field;
}
