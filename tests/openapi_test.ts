/**
 * The OpenAPI document is valid OpenAPI 3.1 (checked by an independent validator package), documents every public
 * endpoint with each response, and live responses of every endpoint validate against its schemas.
 */
import assert from "node:assert/strict";
import { Validator } from "@seriousme/openapi-schema-validator";
import { Ajv2020 } from "ajv/dist/2020.js";
import addFormats from "ajv-formats";
import { seedSample } from "../catalogue/seed.ts";
import { closeAfterAll, openTestDb, request, testApp } from "./helpers.ts";

Deno.test.sanitizer({ ops: true, resources: true });

const tdb = await openTestDb();
await seedSample(tdb.db, { count: 30 });
const t = await testApp(tdb.db);
const { app } = t;
const limited = await testApp(tdb.db, { RATE_LIMIT: "on" });
closeAfterAll(t, limited, tdb);
// deno-lint-ignore no-explicit-any
const doc: any = await (await request(app, "/api/public/openapi.json")).json();

Deno.test("the document is valid OpenAPI 3.1.1 with info.version 2026.09", async () => {
  assert.equal(doc.openapi, "3.1.1");
  assert.equal(doc.info.version, "2026.09");
  const res = await new Validator().validate(structuredClone(doc));
  assert.equal(res.valid, true, JSON.stringify(res.errors));
});

Deno.test("every public endpoint is documented with its operation id and responses", () => {
  const list = doc.paths["/api/public/properties"]?.get;
  const one = doc.paths["/api/public/properties/{id}"]?.get;
  assert.equal(list.operationId, "immobilienSuchen");
  assert.equal(one.operationId, "immobilieHolen");
  assert.deepEqual(Object.keys(list.responses).sort(), ["200", "400", "413", "429"]);
  assert.deepEqual(Object.keys(one.responses).sort(), ["200", "404", "413", "429"]);
  const names = list.parameters.map((p: { name: string }) => p.name).sort();
  assert.deepEqual(names, [
    "city",
    "max_price",
    "min_price",
    "min_rooms",
    "min_sqm",
    "page",
    "page_size",
    "property_type",
    "sort",
    "transaction_type",
  ]);
  // sort: the documented extension of this service (issue 31 item 7), defaulting to today's order.
  const sort = list.parameters.find((p: { name: string }) => p.name === "sort");
  assert.equal(sort.required ?? false, false);
  assert.equal(sort.schema.default, "newest");
  assert.deepEqual(sort.schema.enum, [
    "newest",
    "price_asc",
    "price_desc",
    "area_desc",
    "area_asc",
    "price_per_sqm_asc",
  ]);
  assert.match(sort.description ?? sort.schema.description, /Extension of this service/);
  const baseline = doc.paths["/api/public/valuation/location-baseline"]?.post;
  assert.equal(baseline.operationId, "bodenwertSchaetzen");
  assert.deepEqual(Object.keys(baseline.responses).sort(), ["200", "400", "413", "415", "429"]);
  const pageSize = list.parameters.find((p: { name: string }) => p.name === "page_size").schema;
  assert.deepEqual([pageSize.type, pageSize.minimum, pageSize.maximum, pageSize.default], [
    "integer",
    1,
    60,
    24,
  ]);
});

const ajv = new Ajv2020({ strict: false, allErrors: true });
(addFormats as unknown as (a: Ajv2020) => void)(ajv);
ajv.addSchema(doc, "openapi.json");

function pointer(...parts: string[]): string {
  return "openapi.json#/" + parts.map((p) => p.replaceAll("~", "~0").replaceAll("/", "~1")).join("/");
}

async function conforms(path: string, template: string, res: Response, method = "get") {
  const op = doc.paths[template][method];
  assert.ok(op.responses[String(res.status)], `${res.status} of ${path} is documented`);
  const ref = pointer(
    "paths",
    template,
    method,
    "responses",
    String(res.status),
    "content",
    "application/json",
    "schema",
  );
  const validate = ajv.getSchema(ref) ?? ajv.compile({ $ref: ref });
  const body = await res.json();
  assert.ok(validate(body), `${path} → ${res.status}: ${JSON.stringify(validate.errors)}`);
  return body;
}

Deno.test("live responses of every endpoint validate against the document", async () => {
  const L = "/api/public/properties";
  const I = "/api/public/properties/{id}";
  const page = await conforms(L, L, await request(app, L));
  await conforms(L, L, await request(app, `${L}?city=Berlin&transaction_type=buy&min_price=1&page_size=60`));
  await conforms(L, L, await request(app, `${L}?page=99`));
  await conforms(L, L, await request(app, `${L}?page_size=99`));
  await conforms(L, L, await request(app, L, { method: "GET", headers: { "content-length": "9999999" } }));
  await conforms(I, I, await request(app, `${L}/${page.items[0].id}`));
  await conforms(I, I, await request(app, `${L}/${crypto.randomUUID()}`));
  await conforms(I, I, await request(app, `${L}/x`));
  for (let i = 0; i < 10; i++) await (await request(limited.app, L, {}, "192.0.2.44")).body?.cancel();
  await conforms(L, L, await request(limited.app, L, {}, "192.0.2.44"));
  await conforms(I, I, await request(limited.app, `${L}/${page.items[0].id}`, {}, "192.0.2.44"));
});

Deno.test("live responses of the location baseline validate, and its request schema accepts what it serves", async () => {
  const B = "/api/public/valuation/location-baseline";
  const post = (body: string, type = "application/json", a = app) =>
    request(a, B, { method: "POST", body, headers: { "content-type": type } }, "192.0.2.45");
  await conforms(B, B, await post("{}"), "post");
  await conforms(
    B,
    B,
    await post(JSON.stringify({ plz: "80331", property_type: "house", art: "miete" })),
    "post",
  );
  await conforms(B, B, await post(JSON.stringify({ plz: "1" })), "post");
  await conforms(B, B, await post("{"), "post");
  await conforms(B, B, await post("{}", "text/plain"), "post");
  await conforms(B, B, await post("x".repeat(600 * 1024)), "post");
  for (let i = 0; i < 15; i++) await (await post("{}", "application/json", limited.app)).body?.cancel();
  await conforms(B, B, await post("{}", "application/json", limited.app), "post");
  const schemaRef = pointer("paths", B, "post", "requestBody", "content", "application/json", "schema");
  const validate = ajv.getSchema(schemaRef) ?? ajv.compile({ $ref: schemaRef });
  assert.ok(
    validate({ plz: "14467", city: "Potsdam", lat: 52.4, lng: 13.05, property_type: "land", art: "kauf" }),
  );
  assert.ok(!validate({ plz: "1446" }), "the documented pattern refuses what the server refuses");
  assert.ok(!validate({ unknown: 1 }), "unknown fields are documented as refused");
});

Deno.test("CORS is open for every public endpoint and the document, without credentials", async () => {
  const id = (await (await request(app, "/api/public/properties?page_size=1")).json()).items[0]?.id ?? "x";
  const paths: Array<[string, string]> = [
    ["/api/public/properties", "GET"],
    [`/api/public/properties/${id}`, "GET"],
    ["/api/public/valuation/location-baseline", "POST"],
    ["/api/public/openapi.json", "GET"],
  ];
  for (const [path, method] of paths) {
    const res = await request(app, path, {
      method,
      headers: { origin: "https://example.org", "content-type": "application/json" },
      ...(method === "POST" ? { body: "{}" } : {}),
    });
    assert.equal(res.headers.get("access-control-allow-origin"), "*", path);
    assert.equal(res.headers.get("access-control-allow-credentials"), null, path);
    await res.body?.cancel();
    const pre = await request(app, path, {
      method: "OPTIONS",
      headers: { origin: "https://example.org", "access-control-request-method": method },
    });
    assert.equal(pre.status, 204, path);
    assert.equal(pre.headers.get("access-control-allow-origin"), "*", path);
    await pre.body?.cancel();
  }
});
