/**
 * The OAuth 2.1 authorization server's public HTTP surface: discovery metadata (RFC 8414, RFC 9728), client
 * registration (RFC 7591), authorize, token, revocation (RFC 7009), JWKS and the e-mail verification link.
 * Only these better-auth endpoints are reachable from outside; sign-in, sign-up and consent go through the
 * server-rendered pages, which call better-auth on the server and enforce our rules first.
 */
import { Hono } from "hono";
import { type Auth, AUTH_BASE_PATH, withOwnAdapter } from "../auth/better_auth.ts";
import { clientAddress } from "./client_address.ts";
import type { AppDeps, AppEnv } from "./env.ts";

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

/** The OAuth sub-app: forwards the allowed requests to better-auth. */
export function oauthRoutes(deps: AppDeps, auth: Auth): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  const forward = (path: string) => (c: { req: { raw: Request } } & Parameters<typeof clientAddress>[0]) =>
    withOwnAdapter(
      auth,
      () => auth.handler(withClientIp(rewrite(c.req.raw, path), clientAddress(c, deps.config.trustProxy))),
    );
  const asMetadata = `/.well-known/oauth-authorization-server${AUTH_BASE_PATH}`;
  app.get(asMetadata, (c) => forward(`${AUTH_BASE_PATH}/.well-known/oauth-authorization-server`)(c));
  app.get(
    "/.well-known/oauth-protected-resource",
    (c) => forward("/.well-known/oauth-protected-resource")(c),
  );
  app.get(
    "/.well-known/oauth-protected-resource/mcp",
    (c) => forward("/.well-known/oauth-protected-resource")(c),
  );
  app.all(`${AUTH_BASE_PATH}/*`, (c) => {
    const sub = c.req.path.slice(AUTH_BASE_PATH.length);
    const methods = PUBLIC_AUTH_PATHS[sub];
    if (!methods) return c.json({ error: "not_found" }, 404);
    if (!methods.includes(c.req.method)) {
      c.header("Allow", methods.join(", "));
      return c.json({ error: "method_not_allowed" }, 405);
    }
    return forward(c.req.path)(c);
  });
  return app;
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
