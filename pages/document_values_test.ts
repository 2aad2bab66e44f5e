import assert from "node:assert/strict";
import { brochure, energyCertificate } from "../documents/extract.ts";
import { documentValue } from "./document_values.ts";

const CERTIFICATE = [
  "ENERGIEAUSWEIS  für Wohngebäude",
  "Gültig bis:  31.12.2034",
  "Baujahr Gebäude 1998",
  "Wesentliche Energieträger für Heizung und Warmwasser: Fernwärme",
  "Endenergiebedarf dieses Gebäudes",
  "112,5 kWh/(m²·a)",
  "Energieeffizienzklasse des Gebäudes: D",
].join("\n");
const BROCHURE = "Exposé\nHelle 3,5-Zimmer-Wohnung\nWohnfläche: ca. 84,5 m²\nKaufpreis: 1.250.000 €";

/** What the page shows for each value read from `angaben`, as label → text. */
const shown = (angaben: Record<string, string | number>, l: "de" | "en" = "de") =>
  Object.fromEntries(
    Object.entries(angaben).map(([k, v]) => {
      const d = documentValue(l, k, v);
      return [d.label, d.text.replaceAll("\u00a0", " ")];
    }),
  );

Deno.test("values read from documents: German labels, German numbers, no raw keys", () => {
  assert.deepEqual(shown(brochure(BROCHURE)), {
    "Zimmer": "3,5",
    "Wohnfläche": "84,5 m²",
    "Preis": "1.250.000 €",
  });
  assert.deepEqual(shown(energyCertificate(CERTIFICATE)), {
    "Art des Energieausweises": "Bedarfsausweis",
    "Energieeffizienzklasse": "D",
    "Endenergie": "112,5 kWh/(m²·a)",
    "Wesentlicher Energieträger": "Fernwärme",
    "Baujahr": "1998",
    "Gültig bis": "31.12.2034",
  });
  assert.deepEqual(shown(brochure(BROCHURE), "en"), {
    "Rooms": "3.5",
    "Living area": "84.5 m²",
    "Price": "€1,250,000",
  });
  // A key the table does not know yet is shown as it is rather than hidden.
  assert.deepEqual(documentValue("de", "neu_x", 2), { label: "neu_x", text: "2" });
});
