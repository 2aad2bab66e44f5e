/**
 * Reading OpenImmo files without a database: encodings (declaration, BOM, undeclared Latin-1), the mapping of each
 * field of our own fixtures, German and plain decimals, invalid objects, unmapped elements, broken files, and zips
 * (one XML among images, none, two, too many entries, too large, lying about their size).
 */
import assert from "node:assert/strict";
import { zipSync } from "fflate";
import { AppError } from "../errors.ts";
import { parseDecimal, readOpenImmo, XML_BYTES_MAX, ZIP_ENTRIES_MAX } from "./openimmo.ts";

const FIXTURES = new URL("../tests/fixtures/openimmo/", import.meta.url);
const fixture = (name: string) => Deno.readFileSync(new URL(name, FIXTURES));
const enc = new TextEncoder();

/** Asserts that reading `bytes` fails as a broken file whose reason matches `reason`. */
async function assertBroken(bytes: Uint8Array, reason: RegExp): Promise<void> {
  await assert.rejects(readOpenImmo(bytes), (e: unknown) => {
    assert.ok(e instanceof AppError, String(e));
    assert.equal(e.code, "invalid_request");
    assert.match(e.detail ?? "", reason);
    return true;
  });
}

/** A minimal document with one object whose inner XML is `inner`. */
function doc(inner: string, decl = '<?xml version="1.0" encoding="UTF-8"?>'): string {
  return `${decl}<openimmo><anbieter><immobilie>${inner}</immobilie></anbieter></openimmo>`;
}

Deno.test("OpenImmo files are read and mapped field by field", async (t) => {
  await t.step("ISO-8859-1 file: umlauts decoded, every mapped field", async () => {
    const bytes = fixture("bestand_latin1.xml");
    assert.ok(bytes.includes(0xfc), "the fixture holds a Latin-1 ü byte");
    const f = await readOpenImmo(bytes);
    assert.equal(f.encoding, "iso-8859-1");
    assert.equal(f.container, "xml");
    assert.deepEqual(f.objects.map((o) => [o.number, o.action, o.invalid]), [
      ["OI-1001", "upsert", undefined],
      ["OI-1002", "upsert", undefined],
      ["OI-1003", "upsert", undefined],
      ["OI-1004", "upsert", undefined],
    ]);
    assert.deepEqual(f.objects[0]!.fields, {
      reference: "MÜ-17",
      title: "Helle Wohnung über den Dächern der Altstadt",
      description: "Ruhige Lage, große Küche, Südbalkon.",
      city: "München",
      postal_code: "80331",
      property_type: "apartment",
      transaction_type: "buy",
      asked_price: 485000,
      total_rooms: 3,
      square_meters: 72.5,
      latitude: 48.1374,
      longitude: 11.5755,
    });
    assert.deepEqual(f.objects[1]!.fields, {
      reference: null,
      title: "Reihenhaus mit Garten in Köln-Sülz",
      description: null,
      city: "Köln",
      postal_code: "50667",
      property_type: "house",
      transaction_type: "rent",
      asked_price: 1234.5,
      total_rooms: 4.5,
      square_meters: 118.25,
      latitude: null,
      longitude: null,
    });
    const land = f.objects[2]!.fields!;
    assert.deepEqual([land.property_type, land.transaction_type, land.asked_price, land.square_meters], [
      "land",
      "buy",
      199000,
      612,
    ]);
    const office = f.objects[3]!.fields!;
    assert.deepEqual(
      [office.property_type, office.transaction_type, office.asked_price, office.square_meters, office.city],
      ["commercial", "rent", 2450, 140, "Hamburg"],
    );
  });

  await t.step("unmapped elements are named once per subtree", async () => {
    const [first, second] = (await readOpenImmo(fixture("bestand_latin1.xml"))).objects;
    assert.deepEqual(first!.unmapped.sort(), [
      "ausstattung",
      "geo/strasse",
      "kontaktperson",
      "objektkategorie/nutzungsart",
      "preise/hausgeld",
      "verwaltung_techn/openimmo_obid",
    ]);
    assert.deepEqual(second!.unmapped, []);
  });

  await t.step("UTF-8 file; objects without optional elements map to null", async () => {
    const f = await readOpenImmo(fixture("bestand_utf8.xml"));
    assert.equal(f.encoding, "utf-8");
    assert.equal(f.objects[0]!.fields!.title, "Stadtvilla „Elbblick“ – saniert");
    assert.equal(f.objects[0]!.fields!.postal_code, "01067");
    assert.deepEqual(f.objects[1]!.fields, {
      reference: null,
      title: null,
      description: null,
      city: "Leipzig",
      postal_code: null,
      property_type: "apartment",
      transaction_type: null,
      asked_price: null,
      total_rooms: null,
      square_meters: null,
      latitude: null,
      longitude: null,
    });
  });

  await t.step("a BOM wins over the declaration; undeclared Latin-1 is refused", async () => {
    const text = doc(
      "<geo><ort>Görlitz</ort></geo><verwaltung_techn><objektnr_extern>B</objektnr_extern>" +
        "</verwaltung_techn>",
      '<?xml version="1.0" encoding="ISO-8859-1"?>',
    );
    const withBom = new Uint8Array([0xef, 0xbb, 0xbf, ...enc.encode(text)]);
    const f = await readOpenImmo(withBom);
    assert.equal(f.encoding, "utf-8");
    assert.equal(f.objects[0]!.fields!.city, "Görlitz");
    const latin = Uint8Array.from(
      doc("<geo><ort>Görlitz</ort></geo>", '<?xml version="1.0"?>'),
      (c) => c.charCodeAt(0),
    );
    await assertBroken(latin, /not valid utf-8/);
    await assertBroken(
      enc.encode(doc("", '<?xml version="1.0" encoding="x-klingon"?>')),
      /unsupported encoding/,
    );
  });

  await t.step("invalid objects carry their number and reason", async () => {
    const f = await readOpenImmo(fixture("bestand_ungueltig.xml"));
    const reasons = f.objects.map((o) => [o.number, o.invalid ?? null]);
    assert.deepEqual(reasons[0], [null, "objektnr_extern is missing"]);
    assert.equal(reasons[1]![0], "BAD-PRICE");
    assert.match(reasons[1]![1]!, /^kaufpreis\/kaltmiete: /);
    assert.equal(reasons[2]![0], "BAD-ROOMS");
    assert.match(reasons[2]![1]!, /^anzahl_zimmer: /);
    assert.deepEqual(reasons[3], ["BAD-KIND", 'objektart: unknown or unsupported kind "parken"']);
    assert.deepEqual(reasons[4], ["BAD-TEXT", 'kaufpreis: "viel Geld" is not a number']);
    assert.deepEqual(reasons[5], ["BAD-REF", null], "a reference clash is found by the import, not here");
    assert.deepEqual(f.objects[6]!.action, "delete");
    assert.deepEqual(reasons[7], ["OI-3001", null]);
  });

  await t.step("more invalid values: postal code, both marketing kinds, two kinds, coordinates", async () => {
    const vt = "<verwaltung_techn><objektnr_extern>N</objektnr_extern></verwaltung_techn>";
    const one = async (inner: string) =>
      (await readOpenImmo(enc.encode(doc(inner + vt)))).objects[0]!.invalid;
    assert.match((await one("<geo><plz>123</plz></geo>"))!, /^plz: /);
    assert.equal(
      await one('<objektkategorie><vermarktungsart KAUF="true" MIETE_PACHT="true"/></objektkategorie>'),
      "vermarktungsart: both KAUF and MIETE_PACHT are set",
    );
    assert.match(
      (await one("<objektkategorie><objektart><haus/><wohnung/></objektart></objektkategorie>"))!,
      /two|more/,
    );
    assert.match(
      (await one('<geo><geokoordinaten breitengrad="91" laengengrad="10"/></geo>'))!,
      /breitengrad/,
    );
    assert.match(
      (await one(`<freitexte><objekttitel>${"x".repeat(301)}</objekttitel></freitexte>`))!,
      /^objekttitel: /,
    );
    assert.equal(await one("<preise><kaufpreis>1</kaufpreis></preise>"), undefined);
  });

  await t.step(
    "single-line fields: line breaks of the XML become spaces, other control characters are invalid",
    async () => {
      const vt = "<verwaltung_techn><objektnr_extern>N</objektnr_extern></verwaltung_techn>";
      const read = async (inner: string) => (await readOpenImmo(enc.encode(doc(inner + vt)))).objects[0]!;
      const wrapped = await read(
        "<freitexte><objekttitel>Altbau\r\n    am\tDomplatz</objekttitel>" +
          "<objektbeschreibung>Zeile eins\nZeile zwei</objektbeschreibung></freitexte>" +
          "<geo><ort>Bad\n Kissingen</ort></geo>",
      );
      assert.equal(wrapped.invalid, undefined);
      assert.equal(wrapped.fields?.title, "Altbau am Domplatz");
      assert.equal(wrapped.fields?.city, "Bad Kissingen");
      assert.equal(wrapped.fields?.description, "Zeile eins\nZeile zwei", "the description keeps its lines");
      assert.equal(
        (await read("<freitexte><objekttitel>Altbau\u0085am Domplatz</objekttitel></freitexte>")).invalid,
        "objekttitel: must not contain control characters",
      );
    },
  );

  await t.step("German and plain decimals", () => {
    const cases: Array<[string, number | undefined]> = [
      ["1.234,50", 1234.5],
      ["1234,5", 1234.5],
      ["1234.50", 1234.5],
      ["1.234.567", 1234567],
      ["250.000", 250],
      [" 72 ", 72],
      ["-5", -5],
      ["1,234.5", undefined],
      ["12.34,5", undefined],
      ["abc", undefined],
      ["", undefined],
      ["1e5", undefined],
    ];
    for (const [raw, want] of cases) assert.equal(parseDecimal(raw), want, raw);
  });

  await t.step("broken files: empty, malformed, not OpenImmo", async () => {
    await assertBroken(new Uint8Array(), /empty/);
    await assertBroken(fixture("kaputt.xml"), /malformed XML at line \d+/);
    await assertBroken(
      enc.encode("<openimmo_feedback><objekt/></openimmo_feedback>"),
      /not an OpenImmo document/,
    );
    await assertBroken(enc.encode("just text"), /malformed|not an OpenImmo/);
  });

  await t.step("a zip: the one XML is read, images ignored", async () => {
    const zip = zipSync({
      "bilder/foto1.jpg": new Uint8Array([0xff, 0xd8, 0xff, 0xe0, 1, 2, 3]),
      "export/bestand.xml": fixture("bestand_latin1.xml"),
    });
    const f = await readOpenImmo(zip);
    assert.equal(f.container, "zip");
    assert.equal(f.entry, "export/bestand.xml");
    assert.equal(f.objects[0]!.fields!.city, "München");
  });

  await t.step(
    "zips refused: no XML, two XML, broken, too many entries, too large, lying about the size",
    async () => {
      await assertBroken(zipSync({ "a.jpg": new Uint8Array([1]) }), /no XML file/);
      const x = fixture("bestand_utf8.xml");
      await assertBroken(zipSync({ "a.xml": x, "b.XML": x }), /more than one XML/);
      await assertBroken(zipSync({ "a.xml": x }).subarray(0, 60), /not a readable zip/);
      const many: Record<string, Uint8Array> = {};
      for (let i = 0; i <= ZIP_ENTRIES_MAX; i++) many[`f${i}.jpg`] = new Uint8Array();
      await assertBroken(zipSync(many, { level: 0 }), /more than 10000 entries/);
      const bomb = zipSync({ "bomb.xml": new Uint8Array(XML_BYTES_MAX + 1) }, { level: 9 });
      assert.ok(bomb.length < 200_000, `the bomb is small (${bomb.length} bytes)`);
      await assertBroken(bomb, /larger than 50 MB uncompressed/);
      // Declares 100 bytes but inflates to much more: only 100 bytes come out, which is no complete document.
      const padded = enc.encode(doc(" ".repeat(100_000)));
      const liar = zipSync({ "liar.xml": padded }, { level: 9 });
      setDeclaredSize(liar, 100);
      await assertBroken(liar, /malformed XML/);
    },
  );
});

/** Sets the uncompressed size of the first entry in both its local header and the central directory. */
function setDeclaredSize(zip: Uint8Array, size: number): void {
  const view = new DataView(zip.buffer, zip.byteOffset, zip.byteLength);
  view.setUint32(22, size, true);
  for (let i = zip.length - 22; i >= 0; i--) {
    if (view.getUint32(i, true) === 0x02014b50) {
      view.setUint32(i + 24, size, true);
      return;
    }
  }
  throw new Error("no central directory entry");
}
