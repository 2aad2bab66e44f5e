/**
 * The seeker server's catalogue tools through real MCP clients of all three kinds: `search_properties` and
 * `get_location_baseline` answer exactly what GET /api/public/properties and POST
 * /api/public/valuation/location-baseline answer for the same query; bad arguments are `invalid_arguments`, the
 * rule min_price ≤ max_price is `invalid_request` like REST.
 */
import assert from "node:assert/strict";
import { seedSample } from "../catalogue/seed.ts";
import { insertListings, type NewListing } from "../db/listings.ts";
import { loadValuationFixtures } from "./brw_support.ts";
import { request } from "./helpers.ts";
import { CLIENT_KINDS, connectClient, mcpWorld } from "./mcp_helpers.ts";

const w = await mcpWorld();
await seedSample(w.tdb.db, { count: 150, seed: 7 });

function comparable(per: number, p: Partial<NewListing> = {}): NewListing {
  return {
    status: "published",
    reference: null,
    title: "Vergleichsobjekt",
    description: null,
    city: "Leipzig",
    postal_code: "04103",
    property_type: "apartment",
    transaction_type: "buy",
    asked_price: per * 80,
    total_rooms: 3,
    square_meters: 80,
    latitude: null,
    longitude: null,
    beispiel: false,
    published_at: new Date(w.t.now() - 86_400_000),
    ...p,
  };
}
await insertListings(w.tdb.db, w.officeId, [
  ...[2000, 2500, 2600, 2700, 2800, 2900, 3000, 3100].map((per) => comparable(per)),
  ...[10, 11, 12, 13, 14, 15].map((per) => comparable(per, { transaction_type: "rent" })),
]);
await loadValuationFixtures(w.tdb.db, [["bb_potsdam_2024_epsg25833.csv", "BB"]], {
  source: "ERFUNDENE TESTDATEN",
  licence: "test",
});

const SEARCHES: Array<Record<string, string | number>> = [
  {},
  { city: "köln" },
  { city: "Muenchen", transaction_type: "buy" },
  { transaction_type: "rent", property_type: "apartment", min_rooms: 2, page: 2, page_size: 5 },
  { min_price: 100000, max_price: 500000, min_sqm: 50, page_size: 60 },
  { property_type: "land", page: 1000 },
  { city: "Leipzig", min_price: 0 },
];

const BASELINES: Array<{ body: Record<string, unknown>; source: string }> = [
  { body: { plz: "04103", property_type: "apartment" }, source: "comparables" },
  { body: { city: "Leipzig", art: "miete" }, source: "comparables" },
  { body: { lat: 52.39985581, lng: 13.05097061, property_type: "apartment" }, source: "bodenrichtwert" },
  { body: { plz: "80331" }, source: "none" },
  { body: {}, source: "none" },
  { body: { plz: "04109", property_type: "house", art: "kauf" }, source: "none" },
];

async function restSearch(q: Record<string, string | number>): Promise<unknown> {
  const qs = new URLSearchParams(Object.entries(q).map(([k, v]) => [k, String(v)]));
  const res = await request(w.t.app, `/api/public/properties?${qs}`);
  assert.equal(res.status, 200, JSON.stringify(q));
  return await res.json();
}

async function restBaseline(body: Record<string, unknown>): Promise<unknown> {
  const res = await request(w.t.app, "/api/public/valuation/location-baseline", {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  assert.equal(res.status, 200, JSON.stringify(body));
  return await res.json();
}

Deno.test("seeker catalogue tools equal REST in every client kind", async (t) => {
  try {
    for (const kind of CLIENT_KINDS) {
      await t.step(kind, async (t) => {
        const client = await connectClient(kind, w.url, w.seeker.key);
        try {
          await t.step("both tools are listed read-only with an output schema", async () => {
            const { tools } = await client.listTools();
            for (const name of ["search_properties", "get_location_baseline"]) {
              const tool = tools.find((x) => x.name === name);
              assert.ok(tool, name);
              assert.equal(tool.annotations?.readOnlyHint, true);
              assert.equal(tool.annotations?.destructiveHint, false);
              assert.ok(tool.outputSchema, name);
            }
          });

          await t.step("search_properties answers the REST page", async () => {
            for (const q of SEARCHES) {
              const rest = await restSearch(q) as { total: number; items: Array<{ id: string }> };
              const res = await client.callTool("search_properties", q);
              assert.notEqual(res.isError, true, JSON.stringify(q));
              assert.deepEqual(res.structuredContent, rest, JSON.stringify(q));
              const text: string = res.content[0].text;
              assert.match(text, new RegExp(`^${rest.total} Objekte gefunden`));
              for (const item of rest.items) assert.ok(text.includes(item.id), `line for ${item.id}`);
              assert.equal(text.split("\n").length, 1 + rest.items.length);
            }
            // the filters really filter: every REST item of a filtered query is in the city asked for
            const koeln = await restSearch({ city: "köln" }) as {
              total: number;
              items: Array<{ city: string }>;
            };
            assert.ok(koeln.total > 0);
            assert.ok(koeln.items.every((i) => i.city === "Köln"));
          });

          await t.step("get_location_baseline answers the REST result", async () => {
            for (const { body, source } of BASELINES) {
              const rest = await restBaseline(body) as { source: string; base_eur_sqm: number | null };
              assert.equal(rest.source, source, JSON.stringify(body));
              const res = await client.callTool("get_location_baseline", body);
              assert.notEqual(res.isError, true, JSON.stringify(body));
              assert.deepEqual(res.structuredContent, rest, JSON.stringify(body));
              const text: string = res.content[0].text;
              if (source === "bodenrichtwert") {
                assert.match(text, /Bodenrichtwert/);
                assert.ok(text.includes("Datenquelle: ERFUNDENE TESTDATEN, test."), text);
              } else assert.ok(!text.includes("Datenquelle"), text);
              if (source === "comparables") assert.match(text, /Vergleich/);
              if (source === "none") assert.match(text, /Kein Richtwert/);
              if (rest.base_eur_sqm !== null) {
                // Euro per m² to the cent, cents only when not zero (catalogue/german.ts).
                const cents = Math.round(rest.base_eur_sqm * 100);
                const de = new Intl.NumberFormat("de-DE", { minimumFractionDigits: cents % 100 ? 2 : 0 });
                const unit = source === "bodenrichtwert" ? "je m² Grundstücksfläche" : "je m² Fläche";
                assert.ok(text.includes(`wert ${de.format(cents / 100)}\u00a0€ ${unit}`), text);
              }
            }
          });

          await t.step(
            "bad arguments → invalid_arguments; min_price > max_price → invalid_request",
            async () => {
              const bad: Array<[string, Record<string, unknown>, string]> = [
                ["search_properties", { page_size: 61 }, "invalid_arguments"],
                ["search_properties", { page: 0 }, "invalid_arguments"],
                ["search_properties", { property_type: "castle" }, "invalid_arguments"],
                ["search_properties", { min_rooms: -1 }, "invalid_arguments"],
                ["search_properties", { city: "" }, "invalid_arguments"],
                ["search_properties", { city: "Köln\u0085" }, "invalid_arguments"],
                ["search_properties", { city: "K\ud800ln" }, "invalid_arguments"],
                ["search_properties", { colour: "red" }, "invalid_arguments"],
                ["search_properties", { min_price: 500, max_price: 100 }, "invalid_request"],
                ["get_location_baseline", { plz: "1234" }, "invalid_arguments"],
                ["get_location_baseline", { plz: "80331", property_type: "castle" }, "invalid_arguments"],
                ["get_location_baseline", { lat: 91, lng: 10 }, "invalid_arguments"],
                ["get_location_baseline", { art: "pacht" }, "invalid_arguments"],
                ["get_location_baseline", { city: "Pots\ud800dam" }, "invalid_arguments"],
                ["get_location_baseline", { city: "x".repeat(101) }, "invalid_arguments"],
              ];
              for (const [tool, args, code] of bad) {
                const res = await client.callTool(tool, args);
                assert.equal(res.isError, true, `${tool} ${JSON.stringify(args)}`);
                assert.deepEqual(
                  JSON.parse(res.content[0].text),
                  { error: code },
                  `${tool} ${JSON.stringify(args)}`,
                );
              }
              const rest = await request(w.t.app, "/api/public/properties?min_price=500&max_price=100");
              assert.equal(rest.status, 400);
              assert.equal((await rest.json()).error, "invalid_request");
            },
          );
        } finally {
          await client.close();
        }
      });
    }
  } finally {
    await w.close();
  }
});
