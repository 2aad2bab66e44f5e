/** POST /api/public/valuation/location-baseline: malformed bodies get documented 4xx errors, never a 5xx. */
import assert from "node:assert/strict";
import { closeAfterAll, openTestDb, request, testApp } from "./helpers.ts";

Deno.test.sanitizer({ ops: true, resources: true });

const tdb = await openTestDb();
const t = await testApp(tdb.db);
const { app } = t;
closeAfterAll(t, tdb);
const PATH = "/api/public/valuation/location-baseline";
const JSON_TYPE = { "content-type": "application/json" };

interface Case {
  body: BodyInit | null;
  headers?: Record<string, string>;
  status: number;
  error: string;
  detail?: RegExp;
}

const json = (value: unknown, detail?: RegExp): Case => ({
  body: JSON.stringify(value),
  status: 400,
  error: "invalid_request",
  ...(detail ? { detail } : {}),
});
const raw = (text: string): Case => ({ body: text, status: 400, error: "invalid_json" });

const CASES: Case[] = [
  raw("{"),
  raw("{plz: '12345'}"),
  raw("{'plz': '12345'}"),
  raw('{"plz": "12345",}'),
  raw("NaN"),
  raw('{"lat": NaN}'),
  raw('{"lat": Infinity}'),
  raw("undefined"),
  raw(""),
  raw("\u0000"),
  json([], /request|expected object/i),
  json("Potsdam", /expected object/i),
  json(null, /expected object/i),
  json(42, /expected object/i),
  json(true, /expected object/i),
  json({ plz: 12345 }, /^plz: /),
  json({ plz: "1234" }, /^plz: must be five digits/),
  json({ plz: "123456" }, /^plz: /),
  json({ plz: "abcde" }, /^plz: /),
  json({ plz: " 12345" }, /^plz: /),
  json({ plz: "12345\n" }, /^plz: /),
  json({ plz: "１２３４５" }, /^plz: /),
  json({ plz: null }, /^plz: /),
  json({ city: "" }, /^city: /),
  json({ city: "   " }, /^city: /),
  json({ city: "x".repeat(101) }, /^city: /),
  json({ city: "x".repeat(10 * 1024) }, /^city: /),
  json({ city: "Pots\u0000dam" }, /^city: /),
  json({ city: "Pots\u0085dam" }, /^city: must not contain control characters/),
  json({ city: "Pots\ud800dam" }, /^city: must be valid Unicode text/),
  json({ city: ["Potsdam"] }, /^city: /),
  json({ city: { name: "Potsdam" } }, /^city: /),
  json({ lat: "52.39" }, /^lat: /),
  json({ lat: 91 }, /^lat: /),
  json({ lat: -90.0001 }, /^lat: /),
  json({ lng: 180.5 }, /^lng: /),
  json({ lng: -181 }, /^lng: /),
  json({ lat: 1e308 * 10 }, /^lat: /),
  json({ lng: true }, /^lng: /),
  json({ property_type: "flat" }, /^property_type: /),
  json({ property_type: "Apartment" }, /^property_type: /),
  json({ property_type: "" }, /^property_type: /),
  json({ art: "buy" }, /^art: /),
  json({ art: "KAUF" }, /^art: /),
  json({ art: null }, /^art: /),
  json({ postal_code: "14467" }, /postal_code/),
  json({ plz: "14467", extra: 1 }, /extra/),
  json({ "__proto__": { "plz": "x" }, plz: "1" }, /plz/),
  json({ city: "'; DROP TABLE brw_zones; --", plz: "1; DROP" }, /^plz: /),
  { body: '{"lat": 1e400}', headers: JSON_TYPE, status: 400, error: "invalid_request", detail: /^lat: / },
  {
    body: "[".repeat(100_000) + "]".repeat(100_000),
    headers: JSON_TYPE,
    status: 400,
    error: "invalid_request",
  },
  {
    body: '{"plz": "14467"}',
    headers: { "content-type": "text/plain" },
    status: 415,
    error: "unsupported_media_type",
  },
  {
    body: "plz=14467",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    status: 415,
    error: "unsupported_media_type",
  },
  { body: '{"plz": "14467"}', headers: {}, status: 415, error: "unsupported_media_type" },
  { body: "x".repeat(600 * 1024), headers: JSON_TYPE, status: 413, error: "payload_too_large" },
];

Deno.test(`${CASES.length} malformed bodies answer documented 4xx errors, never a 5xx`, async () => {
  assert.ok(CASES.length >= 30);
  for (const c of CASES) {
    const headers = c.headers ?? JSON_TYPE;
    const res = await request(app, PATH, { method: "POST", body: c.body, headers });
    const label = String(c.body).slice(0, 60);
    assert.equal(res.status, c.status, label);
    const body = await res.json();
    assert.equal(body.error, c.error, label);
    if (c.detail) assert.match(body.detail, c.detail, label);
  }
});

Deno.test("no field is required: {} and an empty body without content type answer 200 with source none", async () => {
  for (const init of [{ body: "{}", headers: JSON_TYPE }, { body: null, headers: {} }]) {
    const res = await request(app, PATH, { method: "POST", ...init });
    assert.equal(res.status, 200);
    const body = await res.json();
    assert.equal(body.source, "none");
    assert.equal(body.base_eur_sqm, null);
  }
});

Deno.test("GET and other methods on the endpoint answer 405", async () => {
  for (const method of ["GET", "PUT", "DELETE"]) {
    const res = await request(app, PATH, { method });
    assert.equal(res.status, 405, method);
    assert.deepEqual(await res.json(), { error: "method_not_allowed" });
  }
});
