/**
 * The listing details of OpenImmo objects without a database: every mapped element (energy certificate of both
 * kinds, costs, floor, availability, description), carrier codes in words, German dates, and the reasons of
 * invalid details.
 */
import assert from "node:assert/strict";
import { readOpenImmo } from "./openimmo.ts";
import { mapDetails } from "./openimmo_details.ts";
import { NO_DETAILS } from "./listing_details.ts";

const enc = new TextEncoder();

/** The first object of a document whose `<immobilie>` holds `inner`. */
async function object(inner: string) {
  const xml = `<?xml version="1.0" encoding="UTF-8"?><openimmo><anbieter><immobilie>` +
    `<verwaltung_techn><objektnr_extern>D-1</objektnr_extern></verwaltung_techn>${inner}` +
    `</immobilie></anbieter></openimmo>`;
  return (await readOpenImmo(enc.encode(xml))).objects[0]!;
}

const RENT = { transaction_type: "rent", asked_price: 900 };

Deno.test("OpenImmo details: every element mapped, nothing left unmapped", async () => {
  const o = await object(
    "<preise><kaltmiete>900</kaltmiete><nebenkosten>180,50</nebenkosten><warmmiete>1.080,50</warmmiete>" +
      "<kaution>2700</kaution></preise><geo><plz>10115</plz><etage>3</etage></geo>" +
      "<freitexte><objektbeschreibung>Erster Absatz.\n\nZweiter Absatz.</objektbeschreibung></freitexte>" +
      "<verwaltung_objekt><verfuegbar_ab>nach   Vereinbarung</verfuegbar_ab></verwaltung_objekt>" +
      "<zustand_angaben><energiepass><epart>VERBRAUCH</epart><energieverbrauchkennwert>112,4" +
      "</energieverbrauchkennwert><primaerenergietraeger>FERNWAERME</primaerenergietraeger>" +
      "<baujahr>1998</baujahr><wertklasse>d</wertklasse><gueltig_bis>01.05.2031</gueltig_bis>" +
      "</energiepass></zustand_angaben>",
  );
  assert.deepEqual(o.unmapped, []);
  assert.deepEqual(mapDetails(o.node, RENT), {
    details: {
      public_description: "Erster Absatz.\n\nZweiter Absatz.",
      energy_certificate_type: "verbrauch",
      energy_value: 112.4,
      energy_carrier: "Fernwärme",
      construction_year: 1998,
      energy_class: "D",
      energy_certificate_valid_until: "2031-05-01",
      service_charges: 180.5,
      warm_rent: 1080.5,
      deposit: 2700,
      floor: 3,
      available_from: "nach Vereinbarung",
    },
  });
});

Deno.test("OpenImmo details: a demand certificate, the building's year, an object without details", async () => {
  const o = await object(
    "<zustand_angaben><baujahr>1972</baujahr><energiepass><epart>BEDARF</epart>" +
      "<endenergiebedarf>88.06</endenergiebedarf><primaerenergietraeger>Erdgas leicht</primaerenergietraeger>" +
      "<wertklasse>A+</wertklasse><gueltig_bis>2030-12-31</gueltig_bis></energiepass></zustand_angaben>",
  );
  const r = mapDetails(o.node, { transaction_type: "buy", asked_price: 300000 });
  assert.ok("details" in r);
  assert.equal(r.details.energy_certificate_type, "bedarf");
  assert.equal(r.details.energy_value, 88.1, "one decimal kept");
  assert.equal(r.details.energy_carrier, "Erdgas leicht", "a text that is no code stays as written");
  assert.equal(r.details.construction_year, 1972);
  assert.equal(r.details.energy_class, "A+");
  assert.equal(r.details.energy_certificate_valid_until, "2030-12-31");
  assert.deepEqual(mapDetails((await object("")).node, RENT), { details: NO_DETAILS });
  const none = await object(
    "<zustand_angaben><energiepass><epart>OHNE_ENERGIEPASS</epart></energiepass>" +
      "</zustand_angaben>",
  );
  assert.deepEqual(mapDetails(none.node, RENT), { details: NO_DETAILS });
});

Deno.test("OpenImmo details: invalid values make the object invalid with a reason naming the element", async () => {
  const cases: Array<[string, RegExp]> = [
    ["<preise><kaution>drei Monatsmieten</kaution></preise>", /^kaution: .* is not a number/],
    ["<geo><etage>2,5</etage></geo>", /^etage: /],
    [
      "<zustand_angaben><energiepass><epart>BEDARF</epart><wertklasse>Z</wertklasse></energiepass>" +
      "</zustand_angaben>",
      /^energiepass\/wertklasse: /,
    ],
    [
      "<zustand_angaben><energiepass><endenergiebedarf>120</endenergiebedarf></energiepass>" +
      "</zustand_angaben>",
      /^energiepass\/epart: an energy value or class needs/,
    ],
    ["<preise><warmmiete>700</warmmiete></preise>", /^warmmiete: the Warmmiete is at least/],
    [
      "<zustand_angaben><energiepass><epart>BEDARF</epart><gueltig_bis>bald</gueltig_bis></energiepass>" +
      "</zustand_angaben>",
      /^energiepass\/gueltig_bis: /,
    ],
  ];
  for (const [inner, reason] of cases) {
    const r = mapDetails((await object(inner)).node, RENT);
    assert.ok("invalid" in r, inner);
    assert.match(r.invalid, reason, inner);
  }
});
