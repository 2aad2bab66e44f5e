/** REST adapter of the public catalogue: GET /api/public/properties and GET /api/public/properties/{id}. */
import { createRoute, OpenAPIHono, z } from "@hono/zod-openapi";
import { FILTER_NUMBER_MAX, filterTextFields } from "../catalogue/filters.ts";
import {
  type ListingFilter,
  listingSchema,
  PAGE_MAX,
  PAGE_SIZE_DEFAULT,
  PAGE_SIZE_MAX,
  pageSchema,
} from "../catalogue/listing.ts";
import { getPublicListing, searchListings } from "../catalogue/search.ts";
import { SORT_DEFAULT, SORT_DESCRIPTION, sortSchema } from "../catalogue/sort.ts";
import type { AppDeps } from "../deps.ts";
import type { AppEnv } from "./env.ts";
import { rateLimit } from "./rate_limit.ts";
import { errorResponses, strictQuery, validationHook } from "./openapi_common.ts";

function intParam(name: string, min: number, max: number, dflt: number) {
  return z.string().regex(/^[0-9]{1,10}$/, `must be a whole number from ${min} to ${max}`)
    .transform(Number)
    .pipe(z.number().min(min, `must be at least ${min}`).max(max, `must be at most ${max}`))
    .optional()
    .openapi({
      param: { name, in: "query" },
      type: "integer",
      minimum: min,
      maximum: max,
      default: dflt,
    });
}

/**
 * A numeric filter of `filterTextFields`, documented as the number it stands for. The shared schemas get their
 * OpenAPI metadata through `.meta()`: they may be built before zod-openapi adds `.openapi()` to zod's schemas.
 */
function numParam(name: "min_price" | "max_price" | "min_rooms" | "min_sqm") {
  return filterTextFields[name].meta({
    param: { name, in: "query" },
    type: "number",
    minimum: 0,
    maximum: FILTER_NUMBER_MAX,
    description: filterTextFields[name].description,
  });
}

const f = filterTextFields;
const querySchema = z.object({
  page: intParam("page", 1, PAGE_MAX, 1),
  page_size: intParam("page_size", 1, PAGE_SIZE_MAX, PAGE_SIZE_DEFAULT),
  city: f.city.meta({ param: { name: "city", in: "query" }, example: "München" }),
  transaction_type: f.transaction_type.meta({ param: { name: "transaction_type", in: "query" } }),
  property_type: f.property_type.meta({ param: { name: "property_type", in: "query" } }),
  min_price: numParam("min_price"),
  max_price: numParam("max_price"),
  min_rooms: numParam("min_rooms"),
  min_sqm: numParam("min_sqm"),
  sort: sortSchema.optional().meta({
    param: { name: "sort", in: "query" },
    default: SORT_DEFAULT,
    description: `Extension of this service (not in the contract's list of parameters). ${SORT_DESCRIPTION}`,
  }),
});

const idParams = z.object({
  id: z.string().openapi({
    param: { name: "id", in: "path" },
    format: "uuid",
    description: "Listing id. A malformed id answers 404 like an unknown one.",
  }),
});

const searchRoute = createRoute({
  method: "get",
  path: "/",
  operationId: "immobilienSuchen",
  summary: "Search the public catalogue",
  description: [
    "Pages through published listings, newest first (publication time, then id, both descending) unless the",
    "optional `sort` (an extension of this service) names another order.",
    "Every filter is optional and they combine with AND. `total` is exact.",
    "Unknown or repeated query parameters and values out of bounds answer 400 `invalid_request` with a `detail`.",
    "Pages past the last one answer 200 with empty `items`.",
    "Shares one token bucket (2/s, burst 10) with GET /api/public/properties/{id}.",
  ].join(" "),
  request: { query: querySchema },
  responses: {
    200: { description: "A page of listings.", content: { "application/json": { schema: pageSchema } } },
    ...errorResponses(400, 413, 429),
  },
});

const getRoute = createRoute({
  method: "get",
  path: "/{id}",
  operationId: "immobilieHolen",
  summary: "One public listing",
  description:
    "All public fields of one published listing (null where unknown); never the provider or contact.",
  request: { params: idParams },
  responses: {
    200: { description: "The listing.", content: { "application/json": { schema: listingSchema } } },
    ...errorResponses(404, 413, 429),
  },
});

/** Where {@linkcode catalogueRoutes} is mounted. */
export const CATALOGUE_PREFIX = "/api/public/properties";

/**
 * The catalogue sub-app, mounted at {@linkcode CATALOGUE_PREFIX} (open to every origin: `app.ts` answers CORS for
 * all of `/api/public`): both reads in one token bucket (2/s, burst 10; other methods are 405 and count in the
 * write bucket).
 */
export function catalogueRoutes(deps: AppDeps): OpenAPIHono<AppEnv> {
  const app = new OpenAPIHono<AppEnv>({ defaultHook: validationHook });
  app.on(["GET", "HEAD"], "*", rateLimit(deps, "catalogue"));
  app.use(searchRoute.path, strictQuery(Object.keys(querySchema.shape)));
  app.openapi(searchRoute, async (c) => {
    const q = c.req.valid("query");
    const filter: ListingFilter = { ...q, page: q.page ?? 1, page_size: q.page_size ?? PAGE_SIZE_DEFAULT };
    return c.json(await searchListings(deps.db, filter), 200);
  });
  app.openapi(getRoute, async (c) => c.json(await getPublicListing(deps.db, c.req.valid("param").id), 200));
  return app;
}
