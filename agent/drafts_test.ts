import assert from "node:assert/strict";
import { type DraftFacts, factsSentence, priceText } from "./drafts.ts";

const facts: DraftFacts = {
  name: null,
  officeName: "Büro",
  title: null,
  city: "Köln",
  postalCode: "50823",
  transactionType: "rent",
  askedPrice: 1234.5,
  totalRooms: 2.5,
  squareMeters: 61.25,
};

Deno.test("priceText: whole euros for a purchase, to the cent for a rent or a price of unknown kind", () => {
  assert.equal(priceText({ askedPrice: 350_000.4, transactionType: "buy" }), "Kaufpreis 350.000\u00a0€");
  assert.equal(
    priceText({ askedPrice: 1234.5, transactionType: "rent" }),
    "Kaltmiete 1.234,50\u00a0€ monatlich",
  );
  assert.equal(priceText({ askedPrice: 800, transactionType: "rent" }), "Kaltmiete 800\u00a0€ monatlich");
  assert.equal(priceText({ askedPrice: 99.9, transactionType: null }), "Preis 99,90\u00a0€");
  assert.equal(priceText({ askedPrice: 0, transactionType: "buy" }), "Kaufpreis 0\u00a0€");
  assert.equal(priceText({ askedPrice: null, transactionType: "buy" }), "");
});

Deno.test("factsSentence: rooms and area as decimals, the price, the place", () => {
  assert.equal(
    factsSentence(facts),
    "Eckdaten: 2,5 Zimmer, 61,25 m² Wohnfläche, Kaltmiete 1.234,50\u00a0€ monatlich, Lage 50823 Köln.",
  );
  assert.equal(
    factsSentence({
      ...facts,
      totalRooms: null,
      squareMeters: null,
      askedPrice: null,
      city: null,
      postalCode: null,
    }),
    "",
  );
});
