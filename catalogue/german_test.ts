import assert from "node:assert/strict";
import {
  askedPrice,
  decimal,
  euro,
  euroCents,
  euroPerSqm,
  filtersText,
  formDecimal,
  numberOfInput,
  readFormNumber,
} from "./german.ts";

/** `s` with its no-break spaces written as plain spaces, for readable expectations. */
const plain = (s: string) => s.replaceAll("\u00a0", " ");

Deno.test("euro: whole euros, rounded half away from zero, a no-break space before €", () => {
  assert.equal(euro(1234.5), "1.235\u00a0€");
  const cases: Array<[number, string]> = [
    [0, "0 €"],
    [-0, "0 €"],
    [-0.4, "0 €"],
    [0.5, "1 €"],
    [485_000, "485.000 €"],
    [-1234.5, "-1.235 €"],
    [1_000_000_000_000, "1.000.000.000.000 €"],
  ];
  for (const [v, want] of cases) assert.equal(plain(euro(v)), want, String(v));
  assert.equal(euro(1234.5, "en"), "€1,235");
});

Deno.test("euroCents: to the cent, cents shown only when they are not zero", () => {
  const cases: Array<[number, string]> = [
    [0, "0 €"],
    [800, "800 €"],
    [1234.5, "1.234,50 €"],
    [812.499, "812,50 €"],
    [0.004, "0 €"],
    [0.01, "0,01 €"],
    [-1234.5, "-1.234,50 €"],
    [-0.001, "0 €"],
    [99.999, "100 €"],
    [123_456_789.12, "123.456.789,12 €"],
  ];
  for (const [v, want] of cases) assert.equal(plain(euroCents(v)), want, String(v));
  assert.equal(euroCents(1234.5, "en"), "€1,234.50");
  assert.equal(euroCents(-1234.5, "en"), "-€1,234.50");
});

Deno.test("euroPerSqm and decimal", () => {
  assert.equal(plain(euroPerSqm(12.5)), "12,50 €/m²");
  assert.equal(plain(euroPerSqm(450)), "450 €/m²");
  assert.equal(euroPerSqm(12.5, "en"), "€12.50/m²");
  assert.equal(decimal(2.5), "2,5");
  assert.equal(decimal(1234.567), "1.234,57");
  assert.equal(decimal(0), "0");
  assert.equal(decimal(-0.001), "0");
  assert.equal(decimal(-3.25), "-3,25");
  assert.equal(decimal(1234.567, "en"), "1,234.57");
});

Deno.test("unknown values (null, undefined, NaN, ±Infinity) give an empty text", () => {
  for (const v of [null, undefined, NaN, Infinity, -Infinity]) {
    for (const f of [euro, euroCents, euroPerSqm, decimal]) assert.equal(f(v), "", `${f.name}(${v})`);
    assert.equal(askedPrice(v, "buy"), "");
  }
});

Deno.test("askedPrice: whole euros for a purchase, to the cent for a rent or an unknown kind", () => {
  assert.equal(plain(askedPrice(350_000.4, "buy")), "350.000 €");
  assert.equal(plain(askedPrice(812.5, "rent")), "812,50 €");
  assert.equal(plain(askedPrice(800, "rent")), "800 €");
  assert.equal(plain(askedPrice(1234.5, null)), "1.234,50 €");
  assert.equal(askedPrice(812.5, "rent", "en"), "€812.50");
});

Deno.test("filtersText: filter bounds to the cent, rooms and areas as decimals", () => {
  assert.equal(filtersText({}), "keine Filter");
  assert.equal(
    plain(filtersText({
      city: "Köln",
      transaction_type: "rent",
      property_type: "apartment",
      min_price: 500,
      max_price: 812.5,
      min_rooms: 2.5,
      min_sqm: 1200,
    })),
    "Köln, Miete, Wohnung, ab 500 €, bis 812,50 €, ab 2,5 Zimmer, ab 1.200 m²",
  );
});

Deno.test("readFormNumber: German and English input by one rule, with the plain text the filters read", () => {
  const read: Array<[string, number, string]> = [
    ["500000", 500000, "500000"],
    ["500.000", 500000, "500000"],
    ["500.000,50", 500000.5, "500000.50"],
    ["500,000.50", 500000.5, "500000.50"],
    ["1.000.000", 1000000, "1000000"],
    ["1,000,000", 1000000, "1000000"],
    ["2,5", 2.5, "2.5"],
    ["1.5", 1.5, "1.5"],
    ["812,50", 812.5, "812.50"],
    ["2,500", 2500, "2500"],
    ["1.500", 1500, "1500"],
    ["0", 0, "0"],
    [" 450 000 € ", 450000, "450000"],
    ["450\u00a0000", 450000, "450000"],
    ["1234,123456", 1234.123456, "1234.123456"],
    ["12.3456", 12.3456, "12.3456"],
  ];
  for (const [input, value, text] of read) assert.deepEqual(readFormNumber(input), { value, text }, input);
  const refused = [
    "",
    "abc",
    "-5",
    "1e5",
    "2,",
    ",5",
    ".5",
    "1.2.3",
    "1.00.000",
    "1234.567,5",
    "1,5.000",
    "5..0",
    "1,2345678",
    "500.000.5",
    "0x10",
  ];
  for (const input of refused) assert.equal(readFormNumber(input), undefined, input);
});

Deno.test("numberOfInput: empty is null, amounts by the German rule, coordinates with one decimal separator", () => {
  assert.equal(numberOfInput(""), null);
  assert.equal(numberOfInput(" 365.000 "), 365000);
  assert.equal(numberOfInput("72,5"), 72.5);
  assert.equal(Number.isNaN(numberOfInput("zehn")), true);
  assert.equal(numberOfInput("48.137", true), 48.137);
  assert.equal(numberOfInput("48,137", true), 48.137);
  assert.equal(Number.isNaN(numberOfInput("48.1.3", true)), true);
});

Deno.test("formDecimal: what a form shows back is read back as the same number, German and English", () => {
  const cases: Array<[number, string]> = [
    [365_000, "365.000"],
    [82.5, "82,5"],
    [1050, "1.050"],
    [2.125, "2,1250"],
    [0.125, "0,1250"],
    [1234.567, "1.234,567"],
    [812.5, "812,5"],
    [3, "3"],
  ];
  for (const [v, want] of cases) {
    assert.equal(formDecimal(v), want, String(v));
    assert.equal(numberOfInput(formDecimal(v)), v, `de ${v}`);
    assert.equal(numberOfInput(formDecimal(v, "en")), v, `en ${v}`);
  }
});
