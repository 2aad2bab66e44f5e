/** Unit tests of the text rules: kind of document, energy certificate and brochure values, German numbers. */
import assert from "node:assert/strict";
import { brochure, classifyText, energyCertificate, normaliseText, parseGermanNumber } from "./extract.ts";

Deno.test("extract: German numbers, classification, energy certificates and brochures", async (t) => {
  await t.step("German numbers", () => {
    assert.equal(parseGermanNumber("112,5"), 112.5);
    assert.equal(parseGermanNumber("350.000"), 350_000);
    assert.equal(parseGermanNumber("1.250,50"), 1250.5);
    assert.equal(parseGermanNumber("98.5"), 98.5);
    assert.equal(parseGermanNumber("84"), 84);
    assert.equal(parseGermanNumber("12a"), undefined);
    assert.equal(parseGermanNumber("1.2.3"), undefined);
  });

  await t.step("classification: certificate title first, then brochure marks, then the word", () => {
    assert.equal(classifyText("ENERGIEAUSWEIS für Wohngebäude\nGültig bis 01.01.2030"), "energy_certificate");
    assert.equal(classifyText("Energieausweis für Nichtwohngebäude"), "energy_certificate");
    assert.equal(classifyText("Exposé\nEnergieausweis: Verbrauchsausweis"), "brochure");
    assert.equal(classifyText("Wohnfläche 80 m²\n3 Zimmer"), "brochure");
    assert.equal(
      classifyText("Energieverbrauchsausweis\nEndenergieverbrauch 90 kWh/(m²·a)"),
      "energy_certificate",
    );
    assert.equal(classifyText("Rechnung Nr. 42 über Malerarbeiten"), "other");
  });

  await t.step("energy certificate (demand), values split over lines", () => {
    const text = normaliseText([
      "ENERGIEAUSWEIS  für Wohngebäude",
      "Gültig bis:  31.12.2034",
      "Baujahr Gebäude 1998",
      "Baujahr Wärmeerzeuger 2012",
      "Wesentliche Energieträger für Heizung und Warmwasser: Fernwärme",
      "Endenergiebedarf dieses Gebäudes",
      "112,5 kWh/(m²·a)",
      "Primärenergiebedarf 68,0 kWh/(m²·a)",
      "Energieeffizienzklasse des Gebäudes: D",
    ].join("\n"));
    assert.deepEqual(energyCertificate(text), {
      ausweisart: "bedarf",
      energieeffizienzklasse: "D",
      endenergie_kwh_m2a: 112.5,
      energietraeger: "Fernwärme",
      baujahr: 1998,
      gueltig_bis: "2034-12-31",
    });
  });

  await t.step("energy certificate (consumption), class A+, carriers by name", () => {
    const text = "Energieausweis für Wohngebäude\nVerbrauchsausweis\nEndenergieverbrauch dieses Gebäudes " +
      "[Pflichtangabe in Immobilienanzeigen] 24 kWh/m²a\nEffizienzklasse A+\nEnergieträger: Luft-Wasser-" +
      "Wärmepumpe (Strom)\nBaujahr: 2021\ngültig bis 1.7.2031";
    assert.deepEqual(energyCertificate(text), {
      ausweisart: "verbrauch",
      energieeffizienzklasse: "A+",
      endenergie_kwh_m2a: 24,
      energietraeger: "Wärmepumpe",
      baujahr: 2021,
      gueltig_bis: "2031-07-01",
    });
    const carrier = (s: string) => energyCertificate(`Wesentliche Energieträger: ${s}`).energietraeger;
    assert.equal(carrier("Erdgas E"), "Gas");
    assert.equal(carrier("Heizöl EL"), "Öl");
    assert.equal(carrier("Öl"), "Öl");
    assert.equal(carrier("Holzpellets"), "Holz/Pellets");
    assert.equal(carrier("Strom-Mix"), "Strom");
    assert.equal(carrier("Heizöl, Holz"), "Öl");
    assert.equal(carrier("Biomethan"), "Biomethan");
    assert.equal(
      energyCertificate("Wesentliche Energieträger\nFernwärme aus KWK").energietraeger,
      "Fernwärme",
    );
  });

  await t.step("energy certificate: what is not stated or not valid is omitted", () => {
    assert.deepEqual(energyCertificate("Energieausweis für Wohngebäude"), {});
    assert.deepEqual(
      energyCertificate("Energieausweis für Wohngebäude\ngültig bis 31.02.2030\nEffizienzklasse des Hauses"),
      {},
    );
    assert.deepEqual(energyCertificate("Energieeffizienzklasse: J"), {});
  });

  await t.step("brochure: rooms, living area, price", () => {
    const text = "Exposé\nHelle 3,5-Zimmer-Wohnung\nWohnfläche: ca. 84,5 m²\nSchlafzimmer: 2\n" +
      "Quadratmeterpreis: 4.142 €/m²\nKaufpreis: 350.000 €";
    assert.deepEqual(brochure(text), { zimmer: 3.5, wohnflaeche_m2: 84.5, preis_eur: 350_000 });
    assert.deepEqual(brochure("Zimmer: 4\n120 qm Wohnfläche\nKaltmiete EUR 1.250,50"), {
      zimmer: 4,
      wohnflaeche_m2: 120,
      preis_eur: 1250.5,
    });
    assert.deepEqual(brochure("Exposé\nZimmer\nPreis auf Anfrage"), {});
    assert.deepEqual(brochure("Schlafzimmer: 2\nPreis: 12 €/m²"), {});
  });
});
