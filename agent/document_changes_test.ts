/** Unit tests of which listing fields a document proposes to change. */
import assert from "node:assert/strict";
import { documentChanges, fieldValue } from "./document_changes.ts";
import { fillTemplate } from "./drafts.ts";

const listing = { total_rooms: 3, square_meters: null, asked_price: 350_000 };

Deno.test("document changes: only differing or filling values of mapped fields", () => {
  assert.deepEqual(documentChanges("brochure", { zimmer: 3, preis_eur: 350_000 }, listing), {});
  assert.deepEqual(documentChanges("brochure", { wohnflaeche_m2: "84,5" }, listing), {
    square_meters: { alt: null, neu: 84.5 },
  });
  assert.deepEqual(
    documentChanges("energy_certificate", { zimmer: 5, energieeffizienzklasse: "B" }, listing),
    {},
  );
  assert.deepEqual(
    documentChanges("brochure", { zimmer: -1, preis_eur: "viel", baujahr: 1990 }, listing),
    {},
  );
  assert.equal(fieldValue("total_rooms", 3.45), 3.5, "rounded to the column's one decimal");
  assert.equal(fieldValue("total_rooms", 1e9), undefined, "beyond the stock's limit");
  assert.equal(fieldValue("asked_price", Number.NaN), undefined);
});

Deno.test("templates: known placeholders filled, unknown kept, blank lines tidied", () => {
  assert.equal(fillTemplate("A {name} {x}\n\n\n\nB", { name: "N" }), "A N {x}\n\nB");
});
