import assert from "node:assert/strict";
import { prng, sampleListing } from "./sample.ts";
import { insertListings } from "../db/listings.ts";
import { ensureOffice } from "../db/offices.ts";
import { openTestDb } from "../tests/helpers.ts";
import { linkedListingIds, namedListing, referenceCandidates } from "./named_listing.ts";

const ID = "0b9e4b8e-6a0e-4c55-9d0e-0f6f1c2a3b4c";

Deno.test("linkedListingIds: listing-view, REST and /properties links, in order, lower-case, no repeats", () => {
  const text = `a https://x.example/objekte/${ID.toUpperCase()}?x=1 b /api/public/properties/${ID} ` +
    `c https://x.example/objekte/${ID}-more https://x.example/objekte/list`;
  assert.deepEqual(linkedListingIds(text), [ID]);
  const other = "1b9e4b8e-6a0e-4c55-9d0e-0f6f1c2a3b4c";
  assert.deepEqual(linkedListingIds(`https://y.example/properties/${other} und /objekte/${ID}`), [other, ID]);
  assert.deepEqual(linkedListingIds(`meineobjekte/${ID}`), [], "the path segment must be objekte itself");
  assert.deepEqual(linkedListingIds("nichts"), []);
});

Deno.test("referenceCandidates: after a marker, glued to one, or words with letters and digits", () => {
  assert.deepEqual(referenceCandidates("Infos zu Ref. AB-123 bitte"), ["AB-123"]);
  assert.deepEqual(referenceCandidates("(Ref.AB-123)."), ["AB-123"]);
  assert.deepEqual(referenceCandidates("Objekt-Nr.: 42, Referenz: HAUS"), ["42", "HAUS"]);
  assert.deepEqual(referenceCandidates("3 Zimmer, 2 Bäder, #W12 frei?"), ["W12"]);
  assert.deepEqual(referenceCandidates("Objekt KÖ-7 in Köln"), ["KÖ-7"], "letters of any script");
  assert.deepEqual(referenceCandidates("Das Haus 4711 ist schön"), [], "no marker, no letter with digit");
  assert.deepEqual(referenceCandidates("https://x.example/objekte/abc1"), []);
});

Deno.test("namedListing: exactly one listing of the office, any status; several or none name none", async () => {
  const tdb = await openTestDb();
  try {
    const db = tdb.db;
    const office = await ensureOffice(db, "Büro Verweise");
    const other = await ensureOffice(db, "Anderes Büro");
    const row = (i: number, reference: string, status: "published" | "withdrawn" | "draft") => ({
      ...sampleListing(i, prng(i), Date.now()),
      beispiel: false,
      reference,
      status,
      published_at: status === "draft" ? null : new Date(),
    });
    const [pub, gone, draft] = await insertListings(db, office, [
      row(1, "WHG-0815", "published"),
      row(2, "HAUS-42", "withdrawn"),
      row(3, "ENT-1", "draft"),
    ]) as [string, string, string];
    const [foreign] = await insertListings(db, other, [row(4, "FREMD-1", "published")]) as [string];
    const named = (...parts: string[]) => namedListing(db.kysely, office, parts);

    assert.equal(await named("Anfrage zu whg-0815"), pub, "reference ignoring case");
    assert.equal(await named(`Gesehen: https://x.example/objekte/${gone.toUpperCase()}`), gone, "withdrawn");
    assert.equal(await named("Ref. ENT-1"), draft, "a draft counts too");
    assert.equal(await named("WHG-0815 oder HAUS-42?"), null, "two listings: none");
    assert.equal(await named(`/objekte/${pub} /objekte/${gone}`), null, "two links: none");
    assert.equal(
      await named(`/objekte/${pub}, ähnlich wie HAUS-42`),
      pub,
      "a link decides before references",
    );
    assert.equal(await named("HAUS-42", "oder doch WHG-0815?"), gone, "the first part naming any decides");
    assert.equal(await named("Anfrage", "WHG-0815 bitte"), pub, "else the next part");
    assert.equal(await named("WHG-0815 oder HAUS-42?", "WHG-0815"), null, "an ambiguous first part decides");
    assert.equal(await named("WHG-08150 ist kein ganzes Wort"), null);
    assert.equal(await named(`FREMD-1 /objekte/${foreign}`), null, "another office's listings never count");
    assert.equal(await namedListing(db.kysely, other, ["FREMD-1"]), foreign);
    assert.equal(await named(""), null);
  } finally {
    await tdb.close();
  }
});
