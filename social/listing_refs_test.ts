import assert from "node:assert/strict";
import { linkedListingIds, referenceCandidates } from "./listing_refs.ts";

const ID = "0b9e4b8e-6a0e-4c55-9d0e-0f6f1c2a3b4c";

Deno.test("linkedListingIds: listing-view and REST links, in order, lower-case, without repeats", () => {
  const text = `a https://x.example/objekte/${ID.toUpperCase()}?x=1 b /api/public/properties/${ID} ` +
    `c https://x.example/objekte/${ID}-more https://x.example/objekte/list`;
  assert.deepEqual(linkedListingIds(text), [ID]);
  assert.deepEqual(linkedListingIds("nichts"), []);
});

Deno.test("referenceCandidates: after a marker, glued to one, or words with letters and digits", () => {
  assert.deepEqual(referenceCandidates("Infos zu Ref. AB-123 bitte"), ["AB-123"]);
  assert.deepEqual(referenceCandidates("(Ref.AB-123)."), ["AB-123"]);
  assert.deepEqual(referenceCandidates("Objekt-Nr.: 42, Referenz: HAUS"), ["42", "HAUS"]);
  assert.deepEqual(referenceCandidates("3 Zimmer, 2 Bäder, #W12 frei?"), ["W12"]);
  assert.deepEqual(referenceCandidates("https://x.example/objekte/abc1"), []);
});
