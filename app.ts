/**
 * Composes the service: middleware, REST routes, OpenAPI document and health check.
 * `createApp` opens nothing itself; `main.ts`, tests and benchmarks pass in the handles.
 */
import { createEventRuntime } from "./events/runtime.ts";
import { OpenAPIHono } from "@hono/zod-openapi";
import { cors } from "hono/cors";
import { secureHeaders } from "hono/secure-headers";
import { catalogueRoutes } from "./routes/catalogue.ts";
import { mcpRoutes } from "./mcp/routes.ts";
import type { AppDeps, AppEnv } from "./routes/env.ts";
import { healthRoutes } from "./routes/health.ts";
import {
  bodyLimit,
  logServerErrors,
  methodNotAllowed,
  notFound,
  onError,
  requestId,
} from "./routes/middleware.ts";
import { validationHook } from "./routes/openapi_common.ts";
import { rateLimit, writeLimit } from "./routes/rate_limit.ts";
import { BASELINE_PATH, valuationRoutes } from "./routes/valuation.ts";
import { createAuth } from "./auth/better_auth.ts";
import { oauthRoutes } from "./routes/oauth.ts";
import { pageRoutes } from "./pages/routes.tsx";
import { socialRoutes } from "./routes/social.ts";
import { intakeRoutes } from "./routes/intake.ts";

/** Paths below this prefix are open to every origin (CORS), so they also answer OPTIONS preflights. */
const CORS_PREFIX = "/api/public/";

/** Version of the REST description (spec §9). */
export const API_VERSION = "2026.09";

/** Builds the HTTP application from its dependencies. */
export function createApp(deps: AppDeps): OpenAPIHono<AppEnv> {
  deps.events ??= createEventRuntime(deps);
  const app = new OpenAPIHono<AppEnv>({ defaultHook: validationHook });
  app.onError(onError(deps.log));
  app.notFound(notFound);
  app.use("*", requestId());
  app.use("*", logServerErrors(deps.log));
  app.use("*", secureHeaders({ crossOriginResourcePolicy: "cross-origin" }));
  // CORS answers preflights itself, before the general body limit below: they get the limit first.
  app.on("OPTIONS", `${CORS_PREFIX}*`, bodyLimit());
  app.use(`${CORS_PREFIX}*`, cors({ origin: "*", allowMethods: ["GET", "POST", "OPTIONS"], maxAge: 86400 }));
  app.use("*", bodyLimit());
  app.use("*", writeLimit(deps, [BASELINE_PATH]));
  // The pattern also matches the path without a suffix; writes to these paths count in the write bucket only.
  app.on(["GET", "HEAD"], "/api/public/properties/*", rateLimit(deps, "catalogue"));
  app.post(BASELINE_PATH, rateLimit(deps, "valuation"));

  app.route("/", catalogueRoutes(deps));
  app.route("/", valuationRoutes(deps));
  app.route("/", healthRoutes(deps));
  app.route("/", mcpRoutes(deps));
  app.route("/", socialRoutes(deps));
  app.route("/", intakeRoutes(deps));
  const auth = deps.auth ?? createAuth(deps);
  app.route("/", oauthRoutes(deps, auth));
  app.route("/", pageRoutes(deps, auth));
  app.doc31("/api/public/openapi.json", {
    openapi: "3.1.1",
    info: {
      title: "Öffentlicher Immobilienkatalog",
      version: API_VERSION,
      description:
        "Read-only public catalogue of listings that providers entered themselves, and the location " +
        "baseline. No sign-in. Every route is rate limited per caller (per IP address, IPv6 per /64); " +
        'over the limit the answer is 429 `{error: "rate_limited"}` without Retry-After. Request bodies ' +
        'over 512 KB (524,288 bytes) answer 413 `{error: "payload_too_large"}`.',
    },
    servers: [{ url: deps.config.baseUrl }],
  });
  addMethodNotAllowed(app);
  return app;
}

/**
 * For every path the app serves, answers each method it does not serve (PUT, TRACE, PROPFIND, …) with 405 and an
 * `Allow` header: the path's methods, HEAD with GET, OPTIONS where CORS answers preflights.
 */
function addMethodNotAllowed(app: OpenAPIHono<AppEnv>): void {
  const byPath = new Map<string, Set<string>>();
  for (const r of app.routes) {
    // ALL routes answer every method themselves; wildcard paths are middleware patterns, not served paths.
    if (r.method === "ALL" || r.path.includes("*")) continue;
    const set = byPath.get(r.path) ?? new Set<string>();
    set.add(r.method);
    if (r.method === "GET") set.add("HEAD");
    if (r.path.startsWith(CORS_PREFIX)) set.add("OPTIONS");
    byPath.set(r.path, set);
  }
  for (const [path, methods] of byPath) app.all(path, methodNotAllowed([...methods]));
}
