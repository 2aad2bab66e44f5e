/**
 * The OAuth 2.1 authorization server's public HTTP surface: discovery metadata (RFC 8414, RFC 9728), client
 * registration (RFC 7591), authorize, token, revocation (RFC 7009), JWKS and the e-mail verification link.
 * Only these better-auth endpoints are reachable from outside; sign-in, sign-up and consent go through the
 * server-rendered pages, which call better-auth on the server and enforce our rules first. Around better-auth:
 * authorize always redirects, the token and revocation endpoints revoke what better-auth cannot
 * (`auth/revocation.ts`), the metadata says what we serve (`auth/metadata.ts`), and its error page is ours.
 */
import { Hono } from "hono";
import { AUTH_BASE_PATH, LOGIN_PAGE, VERIFIED_CALLBACK, verifiedCallback } from "../auth/auth_settings.ts";
import type { AuthHandle } from "../auth/auth_handle.ts";
import { authorizationServerMetadata, protectedResourceMetadata } from "../auth/metadata.ts";
import {
  afterRevocation,
  afterTokenRequest,
  malformedRevocation,
  oauthParams,
  revocationRequest,
} from "../auth/revocation.ts";
import { oauthErrorResponse } from "../pages/oauth_error_page.tsx";
import { clientAddress } from "./client_address.ts";
import { mediaTypeIs } from "./media_type.ts";
import type { AppDeps } from "../deps.ts";
import type { AppEnv } from "./env.ts";
import { writeLimit } from "./rate_limit.ts";

/** better-auth paths (below AUTH_BASE_PATH) callers may reach directly, with their methods. */
const PUBLIC_AUTH_PATHS: Record<string, string[]> = {
  "/oauth2/authorize": ["GET"],
  "/oauth2/token": ["POST"],
  "/oauth2/register": ["POST"],
  "/oauth2/revoke": ["POST"],
  "/jwks": ["GET"],
  "/verify-email": ["GET"],
  "/.well-known/oauth-authorization-server": ["GET"],
};

/** Caching of the discovery documents (better-auth's value). */
const METADATA_CACHE = "public, max-age=15, stale-while-revalidate=15, stale-if-error=86400";

type Ctx = { req: { raw: Request } } & Parameters<typeof clientAddress>[0];

/** Sends a request to better-auth with the client address it may read, as this instance's adapter. */
function sender(deps: AppDeps, auth: AuthHandle) {
  return (req: Request, c: Parameters<typeof clientAddress>[0]) =>
    auth.run((a) => a.handler(withClientIp(req, clientAddress(c, deps.config.trustProxy))));
}

/** better-auth's RFC 8414 document, corrected (`auth/metadata.ts`). */
function authServerMetadata(deps: AppDeps, auth: AuthHandle) {
  const send = sender(deps, auth);
  return async (c: Ctx) => {
    const res = await send(rewrite(c.req.raw, `${AUTH_BASE_PATH}/.well-known/oauth-authorization-server`), c);
    if (res.status !== 200) return res;
    const headers = new Headers(res.headers);
    headers.delete("content-length");
    return Response.json(authorizationServerMetadata(await res.json()), { headers });
  };
}

/** The discovery documents (RFC 8414, RFC 9728), mounted at `/.well-known`. */
export function discoveryRoutes(deps: AppDeps, auth: AuthHandle): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  app.get(`/oauth-authorization-server${AUTH_BASE_PATH}`, authServerMetadata(deps, auth));
  const prm = () =>
    Response.json(protectedResourceMetadata(deps.config), { headers: { "cache-control": METADATA_CACHE } });
  app.get("/oauth-protected-resource", prm);
  app.get("/oauth-protected-resource/mcp", prm);
  return app;
}

/**
 * The authorization server, mounted at {@linkcode AUTH_BASE_PATH}: forwards the allowed requests to better-auth
 * (other paths 404, other methods 405); its POSTs count in the write bucket.
 */
export function authServerRoutes(deps: AppDeps, auth: AuthHandle): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  const send = sender(deps, auth);
  app.use("*", writeLimit(deps));
  app.get("/.well-known/oauth-authorization-server", authServerMetadata(deps, auth));
  // better-auth sends a person here when the app cannot be sent the error (unknown client, foreign redirect URI).
  app.get("/error", (c) => oauthErrorResponse(c.req.raw));
  app.get("/oauth2/authorize", (c) => send(asNavigation(c.req.raw), c));
  app.get("/verify-email", (c) => {
    const link = verifyLink(c.req.raw);
    return link ? send(link, c) : c.redirect(`${VERIFIED_CALLBACK}&error=INVALID_TOKEN`, 302);
  });
  app.post("/oauth2/token", async (c) => {
    const params = await oauthParams(c.req.raw);
    return await afterTokenRequest(deps, params, await send(c.req.raw, c));
  });
  app.post("/oauth2/revoke", async (c) => {
    const params = await oauthParams(c.req.raw);
    const form = mediaTypeIs(c.req.header("content-type"), "application/x-www-form-urlencoded");
    const malformed = form ? malformedRevocation(c.req.raw, params) : undefined;
    if (malformed) {
      return c.json({ error: "invalid_request", error_description: malformed }, 400, {
        "cache-control": "no-store",
      });
    }
    const res = await send(revocationRequest(c.req.raw, params), c);
    return await afterRevocation(deps, params, c.req.raw.headers, res);
  });
  app.all("/*", (c) => {
    const sub = c.req.path.slice(AUTH_BASE_PATH.length);
    const methods = PUBLIC_AUTH_PATHS[sub];
    if (!methods) return c.json({ error: "not_found" }, 404);
    if (!methods.includes(c.req.method)) {
      c.header("Allow", methods.join(", "));
      return c.json({ error: "method_not_allowed" }, 405);
    }
    return send(c.req.raw, c);
  });
  return app;
}

/**
 * An authorization request as a browser navigation: better-auth answers `200 {redirect, url}` instead of the
 * redirect when the request looks like a fetch (`Sec-Fetch-Mode: cors`, or JSON accepted); RFC 6749 §4.1 wants
 * a redirect for every authorization request.
 */
function asNavigation(req: Request): Request {
  if (!req.headers.has("sec-fetch-mode") && !(req.headers.get("accept") ?? "").includes("json")) return req;
  const headers = new Headers(req.headers);
  headers.delete("sec-fetch-mode");
  headers.set("accept", "text/html");
  return new Request(req, { headers });
}

/**
 * A confirmation link as better-auth should see it: always with our landing page as `callbackURL` (the only one
 * our mails carry; only the page to return to after signing in, `weiter`, is kept from the link, and the landing
 * page checks it again), so that better-auth answers an invalid or expired token with a redirect to the page that
 * says so, not with JSON, and never sends anyone off the site; undefined when the link has no token at all (cut
 * off by a mail program), which gets the same page.
 */
function verifyLink(req: Request): Request | undefined {
  const url = new URL(req.url);
  if (!url.searchParams.get("token")) return undefined;
  url.searchParams.set(
    "callbackURL",
    verifiedCallback(returnOf(url.searchParams.get("callbackURL"), url.origin)),
  );
  return new Request(url, req);
}

/** The `weiter` of a link's `callbackURL` when that is our landing page; undefined for anything else. */
function returnOf(callback: string | null, origin: string): string | undefined {
  if (!callback || !URL.canParse(callback, origin)) return undefined;
  const u = new URL(callback, origin);
  return u.origin === origin && u.pathname === LOGIN_PAGE
    ? u.searchParams.get("weiter") ?? undefined
    : undefined;
}

function rewrite(req: Request, path: string): Request {
  const url = new URL(req.url);
  if (url.pathname === path) return req;
  url.pathname = path;
  return new Request(url, req);
}

/** Passes the client address to better-auth in the one header it is told to read (never a caller's own). */
export function withClientIp(req: Request, ip: string | undefined): Request {
  const headers = new Headers(req.headers);
  headers.delete("x-immo-client-ip");
  if (ip) headers.set("x-immo-client-ip", ip);
  return new Request(req, { headers });
}
