/**
 * The finding extensions of the seeker's `search_properties` (issue 31) through real MCP clients: `sort` answers
 * the REST page with the same `sort`; `postal_code` and `radius_km` (around lat/lng or a city's listings) against
 * an oracle computed from the rows; a city that finds nothing suggests what it may mean; bad combinations are
 * `invalid_request` naming the field, an unknown sort `invalid_arguments`.
 */
import assert from "node:assert/strict";
import { sql } from "kysely";
import { seedSample } from "../catalogue/seed.ts";
import { insertListings } from "../db/listings.ts";
import { request } from "./helpers.ts";
import { connectClient, mcpWorld } from "./mcp_helpers.ts";

const w = await mcpWorld();
await seedSample(w.tdb.db, { count: 200, seed: 31 });
await insertListings(w.tdb.db, w.officeId, [{
  status: "published",
  reference: null,
  title: "Wohnung an der Oder",
  description: null,
  city: "Frankfurt (Oder)",
  postal_code: "15230",
  property_type: "apartment",
  transaction_type: "rent",
  asked_price: 650,
  total_rooms: 2,
  square_meters: 55,
  latitude: 52.34,
  longitude: 14.55,
  beispiel: false,
  published_at: new Date(),
}]);

interface Row {
  id: string;
  city: string;
  postal_code: string | null;
  latitude: number | null;
  longitude: number | null;
}
const rows = (await sql<Row>`select id, city, postal_code, latitude, longitude from listings
  where status = 'published'`.execute(w.tdb.db.kysely)).rows;

function km(a: { lat: number; lng: number }, b: { lat: number; lng: number }): number {
  const rad = Math.PI / 180;
  const h = Math.sin((b.lat - a.lat) * rad / 2) ** 2 +
    Math.cos(a.lat * rad) * Math.cos(b.lat * rad) * Math.sin((b.lng - a.lng) * rad / 2) ** 2;
  return 6371.0088 * 2 * Math.asin(Math.min(1, Math.sqrt(h)));
}

function within(centre: { lat: number; lng: number }, radius: number): Row[] {
  return rows.filter((r) =>
    r.latitude !== null && r.longitude !== null && km(centre, { lat: r.latitude, lng: r.longitude }) <= radius
  );
}

Deno.test("search_properties: sort, postcode, radius and place hints through real clients", async (t) => {
  try {
    for (const kind of ["v2-modern", "v1"] as const) {
      await t.step(kind, async (t) => {
        const client = await connectClient(kind, w.url, w.seeker.key);
        try {
          await t.step("sort is described and answers the REST page with the same sort", async () => {
            const { tools } = await client.listTools();
            const tool = tools.find((x) => x.name === "search_properties") as unknown as {
              description: string;
              inputSchema: { properties: Record<string, { enum?: string[] }> };
            };
            assert.deepEqual(tool.inputSchema.properties.sort?.enum, [
              "newest",
              "price_asc",
              "price_desc",
              "area_desc",
              "area_asc",
              "price_per_sqm_asc",
            ]);
            assert.match(tool.description, /radius_km/);
            for (const sort of ["price_asc", "price_desc", "area_desc", "price_per_sqm_asc", "newest"]) {
              const q = { sort, page: 2, page_size: 10, transaction_type: "buy" };
              const qs = new URLSearchParams(Object.entries(q).map(([k, v]) => [k, String(v)]));
              const rest = await (await request(w.t.app, `/api/public/properties?${qs}`)).json();
              const res = await client.callTool("search_properties", q);
              assert.notEqual(res.isError, true, sort);
              assert.deepEqual(res.structuredContent, rest, sort);
            }
          });

          await t.step("postal_code and radius_km: exactly the listings of the oracle", async () => {
            const code = rows.find((r) => r.city === "Berlin")!.postal_code!;
            const byCode = await client.callTool("search_properties", { postal_code: code, page_size: 60 });
            assert.equal(byCode.structuredContent.total, rows.filter((r) => r.postal_code === code).length);
            const centre = { lat: 52.52, lng: 13.405 };
            const res = await client.callTool("search_properties", {
              ...centre,
              radius_km: 5,
              page_size: 60,
            });
            const want = within(centre, 5);
            assert.ok(want.length > 0);
            assert.equal(res.structuredContent.total, want.length);
            const wantIds = new Set(want.map((r) => r.id));
            const got = res.structuredContent.items.map((i: { id: string }) => i.id);
            assert.equal(got.length, Math.min(60, want.length));
            assert.ok(got.every((id: string) => wantIds.has(id)), "every item is within the radius");
            for (const i of res.structuredContent.items) {
              assert.ok(km(centre, { lat: i.latitude, lng: i.longitude }) <= 5);
            }
            // around a city: the centre of its listings with coordinates
            const berlin = rows.filter((r) => r.city === "Berlin" && r.latitude !== null);
            const mid = {
              lat: berlin.reduce((a, r) => a + r.latitude!, 0) / berlin.length,
              lng: berlin.reduce((a, r) => a + r.longitude!, 0) / berlin.length,
            };
            const around = await client.callTool("search_properties", { city: "Berlin", radius_km: 8 });
            assert.equal(around.structuredContent.total, within(mid, 8).length);
          });

          await t.step("a city that finds nothing suggests what it may mean", async () => {
            const res = await client.callTool("search_properties", { city: "Frankfurt" });
            assert.equal(res.structuredContent.total, 0);
            const text: string = res.content[0].text;
            assert.match(
              text,
              /Meinten Sie: Frankfurt am Main \([0-9.]+ Objekte\), Frankfurt \(Oder\) \(1 Objekte\)\?/,
            );
            const typo = await client.callTool("search_properties", { city: "Hamburk" });
            assert.match(typo.content[0].text, /Meinten Sie: Hamburg \(/);
          });

          await t.step("bad combinations name the field; an unknown sort is invalid_arguments", async () => {
            const bad: Array<[Record<string, unknown>, string, RegExp]> = [
              [{ sort: "cheapest" }, "invalid_arguments", /sort/],
              [{ radius_km: 10 }, "invalid_request", /radius_km/],
              [{ lat: 52.5, radius_km: 10 }, "invalid_request", /lng/],
              [{ lat: 52.5, lng: 13.4 }, "invalid_request", /radius_km/],
              [{ radius_km: 201, lat: 52.5, lng: 13.4 }, "invalid_arguments", /radius_km/],
              [{ postal_code: "1234" }, "invalid_arguments", /postal_code/],
            ];
            for (const [args, code, names] of bad) {
              const res = await client.callTool("search_properties", args);
              assert.equal(res.isError, true, JSON.stringify(args));
              assert.deepEqual(JSON.parse(res.content[0].text), { error: code }, JSON.stringify(args));
              assert.match(res.content[1].text, names, JSON.stringify(args));
            }
          });
        } finally {
          await client.close();
        }
      });
    }
  } finally {
    await w.close();
  }
});
