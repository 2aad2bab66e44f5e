/**
 * Composes the service: {@linkcode composeDeps} builds the complete dependencies from the handles `main.ts`, tests
 * and benchmarks open; {@linkcode createApp} builds middleware, REST routes, OpenAPI document, health check, MCP
 * endpoint and pages over them. Neither opens anything itself, and nothing changes the dependencies afterwards.
 */
import { createEventRuntime } from "./events/runtime.ts";
import { JobEngine } from "./jobs/engine.ts";
import type { Config } from "./config.ts";
import type { Db } from "./db/connection.ts";
import { kvPseudonyms } from "./db/kv_keys.ts";
import { TokenBuckets } from "./db/token_bucket.ts";
import type { Logger } from "./log.ts";
import type { AuthHandle } from "./auth/auth_handle.ts";
import { OpenAPIHono } from "@hono/zod-openapi";
import { secureHeaders } from "hono/secure-headers";
import type { MiddlewareHandler } from "hono";
import { CATALOGUE_PREFIX, catalogueRoutes } from "./routes/catalogue.ts";
import { MCP_PATH, mcpRoutes } from "./mcp/routes.ts";
import type { AppDeps, Reactions } from "./deps.ts";
import type { AppEnv } from "./routes/env.ts";
import { healthRoutes } from "./routes/health.ts";
import {
  bodyLimit,
  logServerErrors,
  MAX_BODY_BYTES,
  methodNotAllowed,
  notFound,
  onError,
  publicCors,
  requestId,
} from "./routes/middleware.ts";
import { validationHook } from "./routes/openapi_common.ts";
import { writeLimit } from "./routes/rate_limit.ts";
import { VALUATION_PREFIX, valuationRoutes } from "./routes/valuation.ts";
import { AUTH_BASE_PATH } from "./auth/auth_settings.ts";
import { lazyAuth } from "./auth/auth_handle.ts";
import { createAuthRuntime } from "./auth/runtime.ts";
import { authServerRoutes, discoveryRoutes } from "./routes/oauth.ts";
import { pageRoutes } from "./pages/routes.tsx";
import { wantsHtmlPage } from "./pages/common.ts";
import { notFoundHtml } from "./pages/not_found_page.tsx";
import { photoUploadBodyRule } from "./pages/workspace_photos.tsx";
import { SOCIAL_WEBHOOK_PATH, socialRoutes } from "./routes/social.ts";
import { INTAKE_PREFIX, intakeRoutes } from "./routes/intake.ts";
import { PHOTO_PATH, photoRoutes } from "./routes/photos.ts";

/** Path of the OpenAPI document (open to every origin, like the rest of /api/public). */
export const OPENAPI_PATH = "/api/public/openapi.json";

/** The paths open to every origin (CORS): the public catalogue, the location baseline and the OpenAPI document. */
const PUBLIC_API_PATHS = "/api/public/*";

/** Version of the REST description (docs/contract.md §10). */
export const API_VERSION = "2026.09";

/** What `main.ts` (or a test, a benchmark) opened: {@linkcode composeDeps} builds the rest over it. */
export interface Handles {
  /** The configuration, complete (its `authSecret` resolved). */
  config: Config;
  db: Db;
  kv: Deno.Kv;
  log: Logger;
  /** What reacts to domain happenings (the service's agent, `agent/hooks.ts`). */
  reactions: Reactions;
  /** The clock of domain rules and token buckets; the system clock when absent (tests move theirs). */
  clock?: () => number;
  /** better-auth made already (tests); otherwise it is made on first use. */
  auth?: AuthHandle;
}

/**
 * The app's complete dependencies over `h`: its job engine, event runtime (due times of retries go to the job
 * engine), authentication runtime, token buckets (KV keys pseudonymised with the auth secret) and better-auth.
 * Throws when the configuration has no auth secret (`main.ts` resolves one first).
 */
export function composeDeps(h: Handles): AppDeps {
  const secret = h.config.authSecret;
  if (!secret) throw new Error("composeDeps needs config.authSecret (main.ts resolves it)");
  const jobs = new JobEngine(h.log);
  const clock = h.clock;
  return {
    ...h,
    buckets: new TokenBuckets(h.kv, { pseudonym: kvPseudonyms(secret), ...(clock ? { now: clock } : {}) }),
    auth: h.auth ?? lazyAuth(h),
    authRuntime: createAuthRuntime(h),
    events: createEventRuntime(h, jobs),
    jobs,
  };
}

/**
 * Builds the HTTP application from its dependencies. Every request gets an id, security headers and the body
 * limit, and `/api/public` its CORS headers; each sub-app is mounted at its own prefix and brings its own middleware (CORS, token buckets); unknown
 * paths answer 404 and unserved methods 405, both counting in the write bucket for writes.
 */
export function createApp(deps: AppDeps): OpenAPIHono<AppEnv> {
  const app = new OpenAPIHono<AppEnv>({ defaultHook: validationHook });
  app.onError(onError(deps.log));
  app.use("*", requestId());
  app.use("*", logServerErrors(deps.log));
  // An answer that sets a security header itself keeps it: the HTML pages send `Referrer-Policy: same-origin`
  // (pages/common.ts), everything else gets hono's `no-referrer`.
  app.use("*", secureHeaders({ crossOriginResourcePolicy: "cross-origin", overwrite: false }));
  // Before the body limit, so that its 413 (and every other answer under /api/public) is readable by a browser
  // app; a preflight is answered here, without reading a body.
  app.use(PUBLIC_API_PATHS, publicCors());
  app.use("*", bodyLimit(MAX_BODY_BYTES, [photoUploadBodyRule]));

  app.route(CATALOGUE_PREFIX, catalogueRoutes(deps));
  app.route(VALUATION_PREFIX, valuationRoutes(deps));
  app.route("/healthz", healthRoutes(deps));
  app.route(MCP_PATH, mcpRoutes(deps));
  app.route(SOCIAL_WEBHOOK_PATH, socialRoutes(deps));
  app.route(INTAKE_PREFIX, intakeRoutes(deps));
  app.route(PHOTO_PATH, photoRoutes(deps));
  app.route("/.well-known", discoveryRoutes(deps, deps.auth));
  app.route(AUTH_BASE_PATH, authServerRoutes(deps, deps.auth));
  app.route("/", pageRoutes(deps, deps.auth));
  app.doc31(OPENAPI_PATH, {
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
  const writes = writeLimit(deps);
  addMethodNotAllowed(app, writes);
  // Unknown paths: 404, a write counted in the write bucket first. A person's browser gets the HTML 404 page;
  // API paths and clients that prefer JSON (or do not accept HTML) get {"error":"not_found"}.
  app.notFound(async (c) => {
    await writes(c, () => Promise.resolve());
    if (wantsHtmlPage(c)) return await notFoundHtml(c);
    return await notFound(c);
  });
  return app;
}

/**
 * For every path the app serves, answers each method it does not serve (PUT, TRACE, PROPFIND, …) with 405 and an
 * `Allow` header: the path's methods, HEAD with GET, OPTIONS where CORS answers preflights.
 */
function addMethodNotAllowed(app: OpenAPIHono<AppEnv>, writes: MiddlewareHandler<AppEnv>): void {
  const byPath = new Map<string, Set<string>>();
  for (const r of app.routes) {
    // ALL routes answer every method themselves; wildcard paths are middleware patterns, not served paths.
    if (r.method === "ALL" || r.path.includes("*")) continue;
    const set = byPath.get(r.path) ?? new Set<string>();
    set.add(r.method);
    if (r.method === "GET") set.add("HEAD");
    if (r.path.startsWith("/api/public/")) set.add("OPTIONS");
    byPath.set(r.path, set);
  }
  for (const [path, methods] of byPath) app.all(path, writes, methodNotAllowed([...methods]));
}
