import assert from "node:assert/strict";
import type { Listing } from "../catalogue/listing.ts";
import { baselineInputSchema, listingBaselineRequest } from "./input.ts";

Deno.test("baseline input: art defaults to kauf; the city rule of the catalogue; unknown fields refused", () => {
  assert.deepEqual(baselineInputSchema.parse({}), { art: "kauf" });
  assert.deepEqual(baselineInputSchema.parse({ city: " Potsdam ", plz: "14467" }), {
    city: "Potsdam",
    plz: "14467",
    art: "kauf",
  });
  const problem = (v: unknown) => {
    const r = baselineInputSchema.safeParse(v);
    return r.success ? "ok" : `${r.error.issues[0]!.path.join(".")}: ${r.error.issues[0]!.message}`;
  };
  assert.equal(problem({ city: "Pots\ud800dam" }), "city: must be valid Unicode text");
  assert.equal(problem({ city: "Pots\u0085dam" }), "city: must not contain control characters");
  assert.equal(problem({ city: "x".repeat(101) }), "city: must be at most 100 characters");
  assert.equal(problem({ plz: "1446" }), "plz: must be five digits");
  assert.match(problem({ postal_code: "14467" }), /postal_code/);
});

Deno.test("listingBaselineRequest: the listing's place where it passes the rules, art from the deal", () => {
  const listing: Listing = {
    id: crypto.randomUUID(),
    title: null,
    city: " Potsdam ",
    postal_code: "14467",
    property_type: "house",
    transaction_type: "rent",
    asked_price: null,
    total_rooms: null,
    square_meters: null,
    latitude: 52.39,
    longitude: 13.06,
    beispiel: false,
  };
  assert.deepEqual(listingBaselineRequest(listing), {
    plz: "14467",
    city: "Potsdam",
    lat: 52.39,
    lng: 13.06,
    property_type: "house",
    art: "miete",
  });
  assert.deepEqual(
    listingBaselineRequest({
      ...listing,
      city: "Pots\u0007dam",
      postal_code: "1446",
      longitude: null,
      property_type: null,
      transaction_type: "buy",
    }),
    {
      plz: undefined,
      city: undefined,
      lat: undefined,
      lng: undefined,
      property_type: undefined,
      art: "kauf",
    },
  );
  assert.equal(listingBaselineRequest({ ...listing, transaction_type: null }), undefined);
});
