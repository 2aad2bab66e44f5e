/**
 * The whole OAuth flow with real MCP clients against a running server: discovery → registration → PKCE
 * authorize → sign-in and consent through the real pages → token → tool call → silent refresh. A provider ends
 * on the provider server, a seeker on the seeker server; with `@modelcontextprotocol/client` 2.4 pinned to
 * 2026-07-28 and in legacy mode, and with `@modelcontextprotocol/sdk` 1.32.
 */
import assert from "node:assert/strict";
import { Client, StreamableHTTPClientTransport, UnauthorizedError } from "@modelcontextprotocol/client";
// @ts-types="@modelcontextprotocol/sdk/dist/esm/client/index.d.ts"
import { Client as V1Client } from "@modelcontextprotocol/sdk/client/index.js";
// @ts-types="@modelcontextprotocol/sdk/dist/esm/client/streamableHttp.d.ts"
import { StreamableHTTPClientTransport as V1Transport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
// @ts-types="@modelcontextprotocol/sdk/dist/esm/client/auth.d.ts"
import { UnauthorizedError as V1Unauthorized } from "@modelcontextprotocol/sdk/client/auth.js";
import { type OAuthWorld, oauthWorld, ScriptedOAuthProvider } from "./oauth_support.ts";

type Kind = "v2-modern" | "v2-legacy" | "v1";

interface Connected {
  serverName: string | undefined;
  // deno-lint-ignore no-explicit-any
  callTool(name: string, args: Record<string, unknown>): Promise<any>;
  close(): Promise<void>;
}

/** Connects with OAuth: the first attempt is refused (401), the provider authorizes, the second succeeds. */
async function connect(kind: Kind, w: OAuthWorld, p: ScriptedOAuthProvider): Promise<Connected> {
  const url = new URL(w.resource);
  if (kind === "v1") {
    // deno-lint-ignore no-explicit-any
    const make = () => new V1Transport(url, { authProvider: p as any });
    const client = new V1Client({ name: "oauth-test-v1", version: "1.0.0" });
    const first = make();
    try {
      await client.connect(first);
    } catch (e) {
      if (!(e instanceof V1Unauthorized)) throw e;
      await first.finishAuth(p.code!);
      await client.connect(make());
    }
    return {
      serverName: client.getServerVersion()?.name,
      callTool: (name, args) => client.callTool({ name, arguments: args }),
      close: () => client.close(),
    };
  }
  // deno-lint-ignore no-explicit-any
  const make = () => new StreamableHTTPClientTransport(url, { authProvider: p as any });
  const opts = kind === "v2-modern" ? { versionNegotiation: { mode: { pin: "2026-07-28" } } } : {};
  let client = new Client({ name: "oauth-test-v2", version: "1.0.0" }, opts);
  const first = make();
  try {
    await client.connect(first);
  } catch (e) {
    if (!(e instanceof UnauthorizedError)) throw e;
    await first.finishAuth(p.code!, p.iss);
    client = new Client({ name: "oauth-test-v2", version: "1.0.0" }, opts);
    await client.connect(make());
  }
  assert.equal(client.getProtocolEra(), kind === "v2-modern" ? "modern" : "legacy");
  return {
    serverName: client.getServerVersion()?.name,
    callTool: (name, args) => client.callTool({ name, arguments: args }),
    close: () => client.close(),
  };
}

for (const kind of ["v2-modern", "v2-legacy", "v1"] as const) {
  Deno.test(`OAuth end to end with ${kind}: provider → provider server, seeker → seeker server, silent refresh`, async () => {
    const w = await oauthWorld();
    try {
      for (const who of ["provider", "seeker"] as const) {
        const person = w[who];
        const p = new ScriptedOAuthProvider(w, person.email, "lesen suchen offline_access");
        const c = await connect(kind, w, p);
        try {
          assert.equal(p.authorizations, 1, "one authorization through the pages");
          assert.equal(p.iss, `${w.origin}/api/auth`, "RFC 9207 iss in the redirect");
          assert.equal(c.serverName, who === "provider" ? "immobilien-anbieter" : "immobilien-suche");
          const stored = p.stored as { access_token: string; refresh_token?: string; scope?: string };
          assert.ok(stored.refresh_token, "offline_access gives a refresh token");
          const claims = JSON.parse(
            atob(stored.access_token.split(".")[1]!.replaceAll("-", "+").replaceAll("_", "/")),
          );
          assert.equal(claims.aud, w.resource);
          assert.equal(claims.scope.split(" ").includes(who === "provider" ? "lesen" : "suchen"), true);
          assert.equal(claims.scope.split(" ").includes(who === "provider" ? "suchen" : "lesen"), false);
          assert.ok(claims.exp - claims.iat <= 600 && claims.exp - claims.iat >= 540, "about 10 minutes");
          const r1 = await c.callTool("get_property", { id: w.listingId });
          assert.equal(r1.isError ?? false, false);
          assert.equal(r1.structuredContent.id, w.listingId);

          // Silent refresh: the access token stops working; the client refreshes without a new sign-in.
          p.stored = { ...stored, access_token: `${stored.access_token.slice(0, -4)}AAAA` };
          const r2 = await c.callTool("get_property", { id: w.listingId });
          assert.equal(r2.structuredContent.id, w.listingId);
          assert.equal(p.authorizations, 1, "no second sign-in");
          const now = p.stored as { access_token: string; refresh_token: string };
          assert.notEqual(now.access_token, stored.access_token);
          assert.notEqual(now.refresh_token, stored.refresh_token, "refresh tokens rotate");
        } finally {
          await c.close();
        }
      }
    } finally {
      await w.close();
    }
  });
}
