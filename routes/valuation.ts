/** REST adapter of POST /api/public/valuation/location-baseline (operation bodenwertSchaetzen). */
import { createRoute, OpenAPIHono } from "@hono/zod-openapi";
import type { MiddlewareHandler } from "hono";
import { AppError } from "../errors.ts";
import { baselineResultSchema, locationBaseline } from "../valuation/baseline.ts";
import { baselineInputSchema } from "../valuation/input.ts";
import type { AppDeps } from "../deps.ts";
import type { AppEnv } from "./env.ts";
import { rateLimit } from "./rate_limit.ts";
import { isJsonMediaType } from "./media_type.ts";
import { errorResponses, parseJsonBody, validationHook } from "./openapi_common.ts";

/** Where {@linkcode valuationRoutes} is mounted. */
export const VALUATION_PREFIX = "/api/public/valuation";
/** Path of the location-baseline endpoint. */
export const BASELINE_PATH = `${VALUATION_PREFIX}/location-baseline`;

// `.meta({ id })` names the component like `.openapi(name)` (shared schemas may predate zod-openapi's `.openapi`).
const bodySchema = baselineInputSchema.meta({ id: "LocationBaselineRequest" });
const resultSchema = baselineResultSchema.meta({ id: "LocationBaseline" });

const route = createRoute({
  method: "post",
  path: "/location-baseline",
  operationId: "bodenwertSchaetzen",
  summary: "Location baseline: euro per m² and where it comes from",
  description: [
    "No field is required; a request naming no place answers 200 with source none.",
    "Place: coordinates inside Germany decide the state and win over plz/city; a PLZ spanning two states is",
    "decided by the city, else by the coordinates, else the answer is none with a region_label saying why.",
    "Source order: (1) Baden-Württemberg, Saarland, Schleswig-Holstein and Bayern do not release their land values",
    "for reuse: source none, region_label naming the state. (2) Official land value (art kauf only): with",
    "coordinates, the zone containing the point (matching use first: residential for apartment/house, commercial",
    "for commercial, building land for land; then building land before other development states; then the latest",
    "Stichtag); without coordinates, the median of the municipality's matching zones at the latest Stichtag, with",
    "region_label naming the municipality. base_eur_sqm is then the land value (euro per m² of land).",
    "(3) Comparables: asked_price / square_meters of the service's own published, non-sample listings of the same",
    "transaction (kauf = buy, miete = rent) and property type (none given: apartments and houses), in the PLZ,",
    "else the city; 10 % trimmed per tail, median, at least 5 values after trimming. (4) Otherwise none.",
    "Unknown fields, wrong types and values out of bounds answer 400 invalid_request; a body that is not JSON",
    "answers 400 invalid_json; a body with another content type 415. Own token bucket: 3/s, burst 15.",
  ].join(" "),
  request: {
    body: { content: { "application/json": { schema: bodySchema } }, required: false },
  },
  responses: {
    200: { description: "The baseline.", content: { "application/json": { schema: resultSchema } } },
    ...errorResponses(400, 413, 415, 429),
  },
});

/**
 * Reads the body once, before validation: none (no body, no content type) counts as `{}`; a type that is not JSON
 * (see `isJsonMediaType`) answers 415, a body that does not parse 400 `invalid_json`. zod-openapi's own check
 * knows fewer spellings of JSON than RFC 9110 and RFC 6839 allow (it refuses `application/json ; charset=utf-8`
 * and `application/vnd.v2+json`), so it is handed the parsed value under the plain type `application/json`.
 */
function jsonBody(): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const type = c.req.header("content-type");
    const bytes = new Uint8Array(await c.req.arrayBuffer());
    if (bytes.length === 0 && !type) return await next();
    if (!isJsonMediaType(type)) throw new AppError("unsupported_media_type");
    const value = parseJsonBody(bytes);
    const headers = new Headers(c.req.raw.headers);
    headers.set("content-type", "application/json");
    c.req.raw = new Request(c.req.raw, { headers, body: bytes });
    c.req.bodyCache.json = Promise.resolve(value);
    await next();
  };
}

/** The valuation sub-app, mounted at {@linkcode VALUATION_PREFIX} (open to every origin: see `app.ts`). */
export function valuationRoutes(deps: AppDeps): OpenAPIHono<AppEnv> {
  const app = new OpenAPIHono<AppEnv>({ defaultHook: validationHook });
  // Its own token bucket only (3/s, burst 15), not the write bucket.
  app.post(route.path, rateLimit(deps, "valuation"), jsonBody());
  app.openapi(route, async (c) => {
    const body = c.req.valid("json") ?? { art: "kauf" as const };
    return c.json(await locationBaseline(deps.db, { ...body, art: body.art ?? "kauf" }), 200);
  });
  return app;
}
