/**
 * OpenImmo `anhang` images become listing photos (zip made here with fflate; images made with sharp): TITELBILD
 * first, file order after, `anhangtitel` as alt text, Base64 `anhanginhalt` and files beside the XML; documents and
 * REMOTE links are named as unmapped; a bad image or a missing file makes its object invalid (the rest imports);
 * a re-import keeps the photos made from the same bytes (same addresses) and drops the others; an object without
 * images keeps the photos it has; a plain XML cannot carry files; a dry run stores nothing. Photos of an imported
 * and published listing are served, without the GPS position of the original.
 */
import assert from "node:assert/strict";
import { zipSync } from "fflate";
import { sql } from "kysely";
import { importOpenImmo, type ImportOptions } from "../catalogue/openimmo_import.ts";
import { ensureOffice } from "../db/offices.ts";
import { addPhotos, listingPhotos, preparePhotos } from "../photos/photos.ts";
import { act } from "../deps.ts";
import { closeAfterAll, officeWho, openTestDb, request, testApp } from "./helpers.ts";
import { contains, GPS_MARK, jpegWithMetadata, pngBombHeader, testImage } from "./photo_fixtures.ts";

const tdb = await openTestDb();
const t = await testApp(tdb.db);
closeAfterAll(t, tdb);
const db = tdb.db;
const office = await ensureOffice(db, "Importbüro Fotos");
const opts = (more: Partial<ImportOptions> = {}): ImportOptions => ({ publish: true, ...more });
/** Imports `file` into the office as its provider does on the import page. */
const importFile = (file: Uint8Array, o: ImportOptions) => importOpenImmo(t.deps, officeWho(office), file, o);

const utf8 = (s: string) => new TextEncoder().encode(s);

interface Anhang {
  gruppe?: string;
  location?: string;
  titel?: string;
  format?: string;
  pfad?: string;
  inhalt?: Uint8Array;
}

function anhang(a: Anhang): string {
  const attrs = [a.location && `location="${a.location}"`, a.gruppe && `gruppe="${a.gruppe}"`]
    .filter(Boolean).join(" ");
  const daten = a.inhalt ? `<anhanginhalt>${a.inhalt.toBase64()}</anhanginhalt>` : `<pfad>${a.pfad}</pfad>`;
  return `<anhang ${attrs}>${a.titel ? `<anhangtitel>${a.titel}</anhangtitel>` : ""}` +
    `<format>${a.format ?? "jpg"}</format><daten>${daten}</daten></anhang>`;
}

function immobilie(number: string, anhaenge: Anhang[] | null): string {
  return `<immobilie><objektkategorie><vermarktungsart KAUF="true"/><objektart><wohnung/></objektart>` +
    `</objektkategorie><geo><plz>10115</plz><ort>Berlin</ort></geo><preise><kaufpreis>350000</kaufpreis></preise>` +
    `<freitexte><objekttitel>Wohnung ${number}</objekttitel></freitexte>` +
    (anhaenge ? `<anhaenge>${anhaenge.map(anhang).join("")}</anhaenge>` : "") +
    `<verwaltung_techn><objektnr_extern>${number}</objektnr_extern></verwaltung_techn></immobilie>`;
}

function openimmo(objects: string[]): Uint8Array {
  return utf8(
    `<?xml version="1.0" encoding="UTF-8"?><openimmo><uebertragung art="ONLINE" umfang="TEIL" ` +
      `version="1.2.7"/><anbieter>${objects.join("")}</anbieter></openimmo>`,
  );
}

function zip(xml: Uint8Array, files: Record<string, Uint8Array>): Uint8Array {
  return zipSync({ "bestand.xml": xml, ...files });
}

async function listingOf(number: string): Promise<string | undefined> {
  const r = await sql<{ id: string }>`select id::text as id from listings
    where office_id = ${office} and external_number = ${number}`.execute(db.kysely);
  return r.rows[0]?.id;
}

const titel = await jpegWithMetadata(900, 600, 1);
const innen = await testImage(800, 600, "png", 41);
const grundriss = await testImage(700, 700, "webp", 42);
const extra = await testImage(640, 480, "jpeg", 43);
const aussen = await testImage(900, 600, "jpeg", 44);
const pdf = utf8("%PDF-1.4\n%%EOF\n");

Deno.test("anhang images become photos; bad images make only their object invalid", async () => {
  const xml = openimmo([
    immobilie("FOTO-1", [
      { gruppe: "INNENANSICHTEN", titel: "Wohnzimmer", pfad: "bilder/innen.png", format: "png" },
      { gruppe: "TITELBILD", location: "EXTERN", titel: "Hausansicht", pfad: "bilder/titel.jpg" },
      { gruppe: "GRUNDRISS", titel: "Grundriss", inhalt: grundriss, format: "webp" },
      { gruppe: "DOKUMENTE", titel: "Exposé", pfad: "expose.pdf", format: "pdf" },
      { gruppe: "BILD", location: "REMOTE", pfad: "https://example.org/bild.jpg" },
    ]),
    immobilie("FOTO-2", [{ gruppe: "BILD", pfad: "bombe.png", format: "png" }]),
    immobilie("FOTO-3", [{ gruppe: "BILD", pfad: "fehlt.jpg" }]),
    immobilie("FOTO-4", [{ gruppe: "BILD", pfad: "text.jpg" }]),
    immobilie("FOTO-5", null),
  ]);
  const file = zip(xml, {
    "bilder/titel.jpg": titel,
    "bilder/innen.png": innen,
    "expose.pdf": pdf,
    "bombe.png": pngBombHeader(25_000, 25_000),
    "text.jpg": utf8("<html>kein Bild</html>"),
  });

  const dry = await importFile(file, opts({ dryRun: true }));
  assert.equal(dry.committed, false);
  assert.equal(await listingOf("FOTO-1"), undefined);
  const none = await sql<{ n: number }>`select count(*)::int as n from photos`.execute(db.kysely);
  assert.equal(none.rows[0]!.n, 0, "a dry run stores no photo");

  const s = await importFile(file, opts());
  assert.equal(s.committed, true);
  assert.equal(s.created, 2);
  assert.equal(s.photos, 3);
  assert.deepEqual(s.invalid.map((i) => [i.objektnr_extern, i.reason]), [
    ["FOTO-2", "anhang 1 (bombe.png): too_many_pixels"],
    ["FOTO-3", "anhang 1 (fehlt.jpg): the file is not in the zip"],
    ["FOTO-4", "anhang 1 (text.jpg): unsupported_type"],
  ]);
  assert.equal(await listingOf("FOTO-2"), undefined);
  const unmapped = s.unmapped.map((u) => u.element);
  assert.ok(unmapped.includes("anhaenge/anhang (gruppe DOKUMENTE)"), unmapped.join(", "));
  assert.ok(unmapped.includes("anhaenge/anhang (REMOTE: links are not fetched)"), unmapped.join(", "));

  const id = (await listingOf("FOTO-1"))!;
  const photos = await listingPhotos(t.deps, office, id);
  assert.deepEqual(photos.map((p) => [p.position, p.titelbild, p.alt_text, p.breite, p.hoehe]), [
    [0, true, "Hausansicht", 900, 600],
    [1, false, "Wohnzimmer", 800, 600],
    [2, false, "Grundriss", 700, 700],
  ]);
  assert.deepEqual(await listingPhotos(t.deps, office, (await listingOf("FOTO-5"))!), []);

  // Published by the import: the title image is served, without the original's GPS position.
  const res = await request(t.app, photos[0]!.varianten[0]!.url);
  assert.equal(res.status, 200);
  assert.ok(!contains(new Uint8Array(await res.arrayBuffer()), GPS_MARK));
});

Deno.test("a re-import keeps photos of the same bytes, drops the others, and leaves image-less objects alone", async () => {
  const first = openimmo([
    immobilie("RE-1", [
      { gruppe: "TITELBILD", titel: "Außen", pfad: "a.jpg" },
      { gruppe: "BILD", titel: "Innen", pfad: "b.png", format: "png" },
    ]),
    immobilie("RE-2", null),
  ]);
  const files = { "a.jpg": aussen, "b.png": innen, "c.jpg": extra };
  await importFile(zip(first, files), opts());
  const id = (await listingOf("RE-1"))!;
  const before = await listingPhotos(t.deps, office, id);
  assert.equal(before.length, 2);

  // The same file again: nothing changes.
  const same = await importFile(zip(first, files), opts());
  assert.deepEqual([same.unchanged, same.updated], [2, 0]);
  assert.deepEqual(await listingPhotos(t.deps, office, id), before);

  // A hand-made photo on the object without images stays.
  const other = (await listingOf("RE-2"))!;
  const ready = await preparePhotos([{ bytes: extra, altText: "von Hand" }]);
  await act(t.deps, officeWho(office), (a) => addPhotos(a, other, ready));

  // The inner view is the title image now, the outside view is gone, a new one is added.
  const second = openimmo([
    immobilie("RE-1", [
      { gruppe: "TITELBILD", titel: "Innen neu", pfad: "b.png", format: "png" },
      { gruppe: "BILD", pfad: "c.jpg" },
    ]),
    immobilie("RE-2", null),
  ]);
  const s = await importFile(zip(second, files), opts());
  assert.deepEqual(s.listings.map((l) => [l.objektnr_extern, l.result]), [["RE-1", "updated"], [
    "RE-2",
    "unchanged",
  ]]);
  const after = await listingPhotos(t.deps, office, id);
  assert.deepEqual(after.map((p) => [p.position, p.alt_text]), [[0, "Innen neu"], [1, null]]);
  assert.equal(after[0]!.foto_id, before[1]!.foto_id, "the same bytes keep their photo");
  assert.deepEqual(after[0]!.varianten, before[1]!.varianten, "and their addresses");
  // The dropped photo's bytes belong to no other listing: its address is gone (b.png's stays: FOTO-1 has it).
  assert.equal((await request(t.app, before[0]!.varianten[0]!.url)).status, 404, "the dropped photo is gone");
  assert.deepEqual((await listingPhotos(t.deps, office, other)).map((p) => p.alt_text), ["von Hand"]);

  // A plain XML names files it cannot carry: the object imports, its photos stay, the summary says why.
  const plain = await importFile(second, opts());
  assert.deepEqual(plain.invalid, []);
  assert.ok(plain.unmapped.some((u) => u.element === "anhaenge/anhang (file not uploaded: send the zip)"));
  assert.deepEqual(await listingPhotos(t.deps, office, id), after);
});
