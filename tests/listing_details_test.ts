/**
 * A listing's details (docs/contract.md §4.14) through real MCP clients and the database: the provider writes
 * them with create_property and update_property (null clears one, the row goes when all are empty), the rules
 * that join fields answer invalid_request naming the field and write nothing, the seeker's get_property shows
 * them while the listing is published, the REST listing keeps exactly its twelve fields, and import_openimmo maps
 * the energy certificate, costs, floor, availability and description. Runs on PGlite or DATABASE_URL.
 */
import assert from "node:assert/strict";
import { sql } from "kysely";
import { LISTING_FIELDS } from "../catalogue/listing.ts";
import { closeAfterAll, request } from "./helpers.ts";
import { connectClient, type ConnectedClient, mcpWorld } from "./mcp_helpers.ts";

const w = await mcpWorld();
const db = w.tdb.db;
closeAfterAll(w);
const provider = await connectClient("v2-modern", w.url, w.provider.key);
const seeker = await connectClient("v2-modern", w.url, w.seeker.key);
closeAfterAll(provider, seeker);

// deno-lint-ignore no-explicit-any
type Json = any;

async function ok(c: ConnectedClient, name: string, args: Record<string, unknown>): Promise<Json> {
  const res = await c.callTool(name, args);
  assert.notEqual(res.isError, true, `${name}: ${JSON.stringify(res.content)}`);
  return res.structuredContent;
}

/** The error code and the hint of a failed call. */
async function fails(c: ConnectedClient, name: string, args: Record<string, unknown>): Promise<Json> {
  const res = await c.callTool(name, args);
  assert.equal(res.isError, true, `${name} should fail`);
  return { ...JSON.parse(res.content[0].text), detail: res.content[1]?.text };
}

async function detailRows(id: string): Promise<number> {
  const r = await sql<{ n: number }>`select count(*)::int as n from listing_details where listing_id = ${id}`
    .execute(db.kysely);
  return r.rows[0]!.n;
}

const DETAILS = {
  public_description: "Helle Wohnung mit Balkon.\n\nDie Küche ist neu.",
  energy_certificate_type: "verbrauch",
  energy_value: 98.76,
  energy_carrier: "Fernwärme",
  construction_year: 1965,
  energy_class: "C",
  energy_certificate_valid_until: "2032-06-30",
  service_charges: 210,
  warm_rent: 1160,
  deposit: 2850,
  floor: 2,
  available_from: "1. März 2027",
};

Deno.test("details: written, read, cleared, checked, shown publicly only while published", async (t) => {
  let id = "";
  await t.step("create_property takes every detail and answers them", async () => {
    const made = await ok(provider, "create_property", {
      title: "Altbau mit Details",
      city: "Leipzig",
      property_type: "apartment",
      transaction_type: "rent",
      asked_price: 950,
      ...DETAILS,
    });
    id = made.id;
    assert.deepEqual(
      Object.fromEntries(Object.keys(DETAILS).map((k) => [k, made[k]])),
      { ...DETAILS, energy_value: 98.8 },
    );
    const got = await ok(provider, "get_property", { id });
    assert.equal(got.warm_rent, 1160);
    assert.equal(got.energy_certificate_valid_until, "2032-06-30");
    const text = ((await provider.callTool("get_property", { id })).content[0].text as string).replace(
      /\s/g,
      " ",
    );
    assert.match(text, /Warmmiete: 1\.160 €\/Monat/);
    assert.match(text, /Verbrauchsausweis, 98,8 kWh\/\(m²·a\), Klasse C, Fernwärme/);
    assert.match(text, /Nebenkosten: 210 €\/Monat Kaution: 2\.850 € Etage: 2 /);
  });

  await t.step("rules joining fields: invalid_request naming the field, nothing written", async () => {
    const before = await ok(provider, "get_property", { id });
    const cases: Array<[Record<string, unknown>, string, string]> = [
      [{ energy_certificate_type: null }, "energy_certificate_type", "invalid_request"],
      [{ warm_rent: 900 }, "warm_rent", "invalid_request"],
      [{ asked_price: 1200 }, "warm_rent", "invalid_request"],
      [{ energy_class: "Z" }, "energy_class", "invalid_arguments"],
      [{ floor: 2.5 }, "floor", "invalid_arguments"],
      [
        { energy_certificate_valid_until: "31.12.2030" },
        "energy_certificate_valid_until",
        "invalid_arguments",
      ],
      [{ available_from: "ab\nsofort" }, "available_from", "invalid_arguments"],
    ];
    for (const [change, field, code] of cases) {
      const e = await fails(provider, "update_property", { id, ...change });
      assert.equal(e.error, code, JSON.stringify(change));
      assert.match(e.detail ?? "", new RegExp(field), JSON.stringify([change, e]));
    }
    assert.deepEqual(await ok(provider, "get_property", { id }), before);
  });

  await t.step("published: the seeker's get_property shows them, REST keeps its twelve fields", async () => {
    await ok(provider, "publish_property", { id });
    const seen = await ok(seeker, "get_property", { id });
    assert.equal(seen.public_description, DETAILS.public_description);
    assert.equal(seen.energy_class, "C");
    assert.equal(seen.deposit, 2850);
    assert.equal(seen.reference, undefined, "no internal field");
    const res = await request(w.t.app, `/api/public/properties/${id}`);
    assert.equal(res.status, 200);
    assert.deepEqual(Object.keys(await res.json()), LISTING_FIELDS);
    const page = await (await request(w.t.app, "/api/public/properties?city=Leipzig")).json();
    for (const item of page.items) assert.deepEqual(Object.keys(item), LISTING_FIELDS);
  });

  await t.step("null clears a detail; with none left the row is gone", async () => {
    const cleared = await ok(provider, "update_property", { id, energy_value: null, energy_class: null });
    assert.equal(cleared.energy_value, null);
    assert.equal(cleared.energy_certificate_type, "verbrauch", "the others stay");
    const none = Object.fromEntries(Object.keys(DETAILS).map((k) => [k, null]));
    await ok(provider, "update_property", { id, ...none });
    assert.equal(await detailRows(id), 0);
  });

  await t.step("withdrawn: the seeker no longer gets it", async () => {
    await ok(provider, "update_property", { id, deposit: 1000 });
    await ok(provider, "withdraw_property", { id });
    assert.equal((await fails(seeker, "get_property", { id })).error, "not_found");
    assert.equal((await request(w.t.app, `/api/public/properties/${id}`)).status, 404);
  });
});

Deno.test("details: import_openimmo maps them and clears what the file leaves out", async () => {
  const xml = (extra: string) =>
    `<?xml version="1.0" encoding="UTF-8"?><openimmo><anbieter><immobilie>` +
    `<objektkategorie><vermarktungsart KAUF="false" MIETE_PACHT="true"/><objektart><wohnung/></objektart>` +
    `</objektkategorie><geo><plz>04109</plz><ort>Leipzig</ort><etage>4</etage></geo>` +
    `<preise><kaltmiete>700</kaltmiete>${extra}</preise>` +
    `<freitexte><objekttitel>Import mit Details</objekttitel></freitexte>` +
    `<zustand_angaben><energiepass><epart>BEDARF</epart><endenergiebedarf>75,5</endenergiebedarf>` +
    `<primaerenergietraeger>GAS</primaerenergietraeger><baujahr>2001</baujahr><wertklasse>B</wertklasse>` +
    `</energiepass></zustand_angaben>` +
    `<verwaltung_techn><objektnr_extern>DET-1</objektnr_extern></verwaltung_techn></immobilie></anbieter>` +
    `</openimmo>`;
  const b64 = (s: string) => btoa(String.fromCharCode(...new TextEncoder().encode(s)));
  const first = await ok(provider, "import_openimmo", {
    inhalt: b64(xml("<nebenkosten>150</nebenkosten><warmmiete>850</warmmiete>")),
  });
  assert.equal(first.created, 1);
  const id = first.listings[0].id;
  const got = await ok(provider, "get_property", { id });
  assert.deepEqual(
    [got.floor, got.service_charges, got.warm_rent, got.energy_value, got.energy_carrier, got.energy_class],
    [4, 150, 850, 75.5, "Gas", "B"],
  );
  const same = await ok(provider, "import_openimmo", {
    inhalt: b64(xml("<nebenkosten>150</nebenkosten><warmmiete>850</warmmiete>")),
  });
  assert.equal(same.unchanged, 1, "the same file changes nothing");
  const less = await ok(provider, "import_openimmo", { inhalt: b64(xml("<nebenkosten>160</nebenkosten>")) });
  assert.equal(less.updated, 1, "a changed detail updates the listing");
  const after = await ok(provider, "get_property", { id });
  assert.equal(after.service_charges, 160);
  assert.equal(after.warm_rent, null, "left out of the file: cleared");
  const bad = await ok(provider, "import_openimmo", { inhalt: b64(xml("<warmmiete>500</warmmiete>")) });
  assert.equal(bad.invalid.length, 1);
  assert.match(bad.invalid[0].reason, /^warmmiete: /);
});
