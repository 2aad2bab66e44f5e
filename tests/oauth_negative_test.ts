/**
 * The authorization server and the MCP resource refuse what they must: PKCE missing or plain, wrong verifier
 * (400 invalid_grant), code replay (which also revokes what the code gave), foreign resource, unregistered
 * redirect URI and unknown client (our error page, 400, in the browser's language), unknown scope, a seeker
 * asking for `lesen`, expired, tampered, key-bound and foreign-audience tokens, refresh after disconnect, a
 * removed provider's token, revocation, CSRF; authorize redirects even when asked like a fetch; and the
 * discovery documents say what we serve (revocation and the other ones: `oauth_revocation_test.ts`).
 */
import assert from "node:assert/strict";
// @ts-types="@modelcontextprotocol/sdk/dist/esm/client/auth.d.ts"
import { auth as v1Auth } from "@modelcontextprotocol/sdk/client/auth.js";
import { sql } from "kysely";
import { disconnectApp } from "../auth/connections.ts";
import { endMembership, startMembership } from "../db/accounts.ts";
import { JarBrowser } from "./browser_jar.ts";
import {
  authorize,
  authorizeUrl,
  mcpCall,
  type OAuthWorld,
  oauthWorld,
  opens,
  pkce,
  REDIRECT_URI,
  register,
  revoke,
  ScriptedOAuthProvider,
  signInAndConsent,
  token,
  tokenMinter,
  tokensFor,
} from "./oauth_support.ts";
import { act } from "../deps.ts";
import { seekerWho } from "./helpers.ts";

async function withWorld(fn: (w: OAuthWorld, clientId: string) => Promise<void>): Promise<void> {
  const w = await oauthWorld();
  try {
    await fn(w, await register(w.origin));
  } finally {
    await w.close();
  }
}

/** The error of an authorize attempt: an error redirect to the app, or the status of an error page. */
async function authorizeError(w: OAuthWorld, clientId: string, p: Record<string, string | undefined>) {
  const b = new JarBrowser(w.origin);
  const step = await signInAndConsent(b, await b.open(authorizeUrl(w, clientId, p)), w.seeker.email);
  if (step.kind === "left") return new URL(step.location).searchParams.get("error") ?? "no_error";
  return `page ${step.status}`;
}

/** The page a browser (preferring `lang`) ends on for an authorize request that cannot go back to the app. */
async function errorPage(w: OAuthWorld, url: string, lang?: string) {
  const step = await new JarBrowser(w.origin, lang).open(url);
  if (step.kind !== "page") throw new Error(`left for ${step.location}`);
  return step;
}

Deno.test("OAuth negative cases", async (t) => {
  await withWorld(async (w, clientId) => {
    const { challenge } = await pkce();

    await t.step("1 authorize without PKCE is refused", async () => {
      assert.equal(
        await authorizeError(w, clientId, { code_challenge_method: undefined }),
        "invalid_request",
      );
    });
    await t.step("2 PKCE method plain is refused", async () => {
      const e = await authorizeError(w, clientId, {
        code_challenge: "x".repeat(43),
        code_challenge_method: "plain",
      });
      assert.equal(e, "invalid_request");
    });
    await t.step("3 a foreign resource is refused", async () => {
      const e = await authorizeError(w, clientId, {
        code_challenge: challenge,
        resource: "https://evil.example/mcp",
      });
      assert.equal(e, "invalid_target");
    });
    await t.step("4 an unregistered redirect URI gets our error page (400), never a redirect", async () => {
      const url = authorizeUrl(w, clientId, {
        code_challenge: challenge,
        redirect_uri: "http://127.0.0.1:9/other",
      });
      const de = await errorPage(w, url);
      assert.equal(de.status, 400);
      assert.match(de.html, /<html lang="de">/);
      assert.match(de.html, /Rücksprungadresse in der Anfrage ist für diese App nicht registriert/);
      assert.match(de.html, /verbinden Sie die App erneut/);
      assert.ok(!de.html.includes("127.0.0.1:9/other"), "the foreign address is not shown");
      const en = await errorPage(w, url, "en-GB,en;q=0.9");
      assert.equal(en.status, 400);
      assert.match(en.html, /The return address in the request is not registered for this app/);
    });
    await t.step("5 an unknown scope is refused", async () => {
      assert.equal(
        await authorizeError(w, clientId, { code_challenge: challenge, scope: "admin" }),
        "invalid_scope",
      );
    });
    await t.step("6 an unknown client gets our error page (400) saying so", async () => {
      const page = await errorPage(w, authorizeUrl(w, "no-such-client", { code_challenge: challenge }));
      assert.equal(page.status, 400);
      assert.match(page.html, /Diese App ist bei uns nicht registriert/);
      assert.match(page.html, /Fehlercode: <code>invalid_client<\/code>/);
      const res = await fetch(`${w.origin}/api/auth/error?error=invalid_client`);
      assert.equal(res.headers.get("content-type"), "text/html; charset=UTF-8");
      assert.match(res.headers.get("content-security-policy")!, /default-src 'none'/);
      assert.equal(res.headers.get("cache-control"), "no-store");
      await res.body?.cancel();
    });
    await t.step("6a the error page shows no text of the request", async () => {
      const evil = "<script>alert(1)</script>";
      const q = new URLSearchParams({ error: `x${evil}`, error_description: `Rufen Sie 0900 an ${evil}` });
      const page = await errorPage(w, `/api/auth/error?${q}`);
      assert.equal(page.status, 400);
      assert.ok(!page.html.includes("<script") && !page.html.includes("0900"), page.html);
      assert.match(page.html, /Fehlercode: <code>invalid_request<\/code>/);
    });
    await t.step(
      "6b authorize redirects (302) also when asked like a fetch (Sec-Fetch-Mode: cors)",
      async () => {
        const asFetch: Array<Record<string, string>> = [{ "sec-fetch-mode": "cors" }, {
          accept: "application/json",
        }];
        for (const headers of asFetch) {
          const res = await fetch(authorizeUrl(w, clientId, { code_challenge: challenge }), {
            redirect: "manual",
            headers,
          });
          assert.equal(res.status, 302, JSON.stringify(headers));
          assert.match(res.headers.get("location")!, /\/anmelden\?/);
          await res.body?.cancel();
        }
        const bad = await fetch(authorizeUrl(w, "no-such-client", { code_challenge: challenge }), {
          redirect: "manual",
          headers: { "sec-fetch-mode": "cors" },
        });
        assert.equal(bad.status, 302);
        assert.match(bad.headers.get("location")!, /\/api\/auth\/error\?error=invalid_client/);
        await bad.body?.cancel();
      },
    );

    await t.step(
      "7 a seeker asking only for lesen sees no approve button and the app gets access_denied",
      async () => {
        const b = new JarBrowser(w.origin);
        let step = await b.open(authorizeUrl(w, clientId, { code_challenge: challenge, scope: "lesen" }));
        step = await b.submit(step, "/anmelden", { email: w.seeker.email, password: "richtig-geheim-123" });
        assert.equal(step.kind, "page");
        if (step.kind !== "page") return;
        assert.ok(!step.html.includes('value="approve"'), "no approve button");
        const forced = await b.submit(step, "/zustimmung", { decision: "approve" });
        assert.equal(forced.kind, "left");
        if (forced.kind === "left") {
          assert.equal(new URL(forced.location).searchParams.get("error"), "access_denied");
        }
        const consents = await sql<{ n: number }>`select count(*)::int as n from "oauthConsent"`.execute(
          w.tdb.db.kysely,
        );
        assert.equal(consents.rows[0]!.n, 0, "no consent was stored");
      },
    );
    await t.step("8 a seeker asking for both rights is granted suchen only", async () => {
      const tok = await tokensFor(w, clientId, w.seeker.email, "lesen suchen");
      assert.equal(tok.scope, "suchen");
    });

    const fresh = await authorize(w, clientId, w.seeker.email);
    const code = fresh.location.searchParams.get("code")!;
    assert.equal(fresh.location.searchParams.get("iss"), `${w.origin}/api/auth`);
    const base = {
      grant_type: "authorization_code",
      client_id: clientId,
      redirect_uri: REDIRECT_URI,
      resource: w.resource,
    };

    await t.step("9 the token endpoint refuses a missing verifier", async () => {
      const r = await token(w, { ...base, code });
      assert.equal(r.status, 400);
    });
    await t.step(
      "10 the token endpoint refuses a wrong verifier with 400 invalid_grant (RFC 7636 §4.6)",
      async () => {
        const again = await authorize(w, clientId, w.seeker.email);
        const r = await token(w, {
          ...base,
          code: again.location.searchParams.get("code")!,
          code_verifier: "w".repeat(50),
        });
        assert.equal(r.status, 400);
        assert.equal(r.body.error, "invalid_grant", JSON.stringify(r.body));
        assert.equal(r.body.access_token, undefined);
      },
    );
    await t.step("11 a code replay is refused and revokes the tokens the code gave", async () => {
      const again = await authorize(w, clientId, w.seeker.email);
      const c2 = again.location.searchParams.get("code")!;
      const first = await token(w, { ...base, code: c2, code_verifier: again.verifier });
      assert.equal(first.status, 200);
      const replay = await token(w, { ...base, code: c2, code_verifier: again.verifier });
      assert.equal(replay.status, 400);
      assert.equal(replay.body.error, "invalid_grant");
      const refresh = await token(w, {
        grant_type: "refresh_token",
        refresh_token: first.body.refresh_token,
        client_id: clientId,
      });
      assert.equal(refresh.status, 400, "the refresh token of the replayed code is revoked");
    });
    await t.step("12 a redirect URI that differs from the authorize request is refused", async () => {
      const again = await authorize(w, clientId, w.seeker.email);
      const r = await token(w, {
        ...base,
        code: again.location.searchParams.get("code")!,
        code_verifier: again.verifier,
        redirect_uri: "http://127.0.0.1:9/elsewhere",
      });
      assert.equal(r.status, 400);
    });
    await t.step("13 another client cannot redeem the code", async () => {
      const other = await register(w.origin, { client_name: "Andere App" });
      const again = await authorize(w, clientId, w.seeker.email);
      const r = await token(w, {
        ...base,
        client_id: other,
        code: again.location.searchParams.get("code")!,
        code_verifier: again.verifier,
      });
      assert.equal(r.status, 400);
    });
    await t.step("14 a foreign resource at the token endpoint is refused", async () => {
      const again = await authorize(w, clientId, w.seeker.email);
      const r = await token(w, {
        ...base,
        code: again.location.searchParams.get("code")!,
        code_verifier: again.verifier,
        resource: "https://evil.example/mcp",
      });
      assert.equal(r.status, 400);
    });

    await t.step(
      "15 without offline_access there is no refresh token; tokens last about 10 minutes",
      async () => {
        const tok = await tokensFor(w, clientId, w.seeker.email, "suchen");
        assert.equal(tok.refresh_token, undefined);
        assert.ok(tok.expires_in <= 600 && tok.expires_in >= 540);
        assert.equal((await mcpCall(w, tok.access_token)).status, 200);
      },
    );

    await t.step("16 a tampered token is refused with the resource metadata challenge", async () => {
      const tok = await tokensFor(w, clientId, w.seeker.email);
      const [h, p, s] = tok.access_token.split(".");
      const claims = JSON.parse(atob(p.replaceAll("-", "+").replaceAll("_", "/")));
      const forged = btoa(JSON.stringify({ ...claims, sub: w.provider.userId })).replaceAll("=", "")
        .replaceAll("+", "-").replaceAll("/", "_");
      const res = await mcpCall(w, `${h}.${forged}.${s}`);
      assert.equal(res.status, 401);
      assert.match(
        res.headers.get("www-authenticate")!,
        /invalid_token.*resource_metadata="[^"]+\/\.well-known\/oauth-protected-resource\/mcp"/,
      );
      await res.body?.cancel();
    });

    // A signing key the service trusts (inserted into its JWKS) lets us mint tokens with chosen claims.
    const minter = await tokenMinter(w, clientId);
    const okTok = await tokensFor(w, clientId, w.seeker.email);
    const mint = (claims: Record<string, unknown>, exp: number) => minter(claims, exp);
    const inTenMinutes = Math.floor(Date.now() / 1000) + 600;

    await t.step("17 a minted token with all claims right is accepted (control for 18-19)", async () => {
      const res = await mcpCall(w, await mint({ aud: w.resource }, inTenMinutes));
      assert.equal(res.status, 200);
      await res.body?.cancel();
    });
    await t.step("18 an expired token is refused", async () => {
      const res = await mcpCall(w, await mint({ aud: w.resource }, Math.floor(Date.now() / 1000) - 60));
      assert.equal(res.status, 401);
      await res.body?.cancel();
    });
    await t.step("19 a token for another resource is refused", async () => {
      const res = await mcpCall(w, await mint({ aud: "https://other.example/mcp" }, inTenMinutes));
      assert.equal(res.status, 401);
      await res.body?.cancel();
    });
    await t.step("19a a key-bound (DPoP) token is refused as a bearer token", async () => {
      const res = await mcpCall(
        w,
        await mint({ aud: w.resource, cnf: { jkt: "x".repeat(43) } }, inTenMinutes),
      );
      assert.equal(res.status, 401);
      await res.body?.cancel();
    });
    await t.step(
      "20 a token whose right the person no longer holds gets 403 insufficient_scope",
      async () => {
        await startMembership(w.tdb.db, w.seeker.userId, w.officeId); // the seeker becomes a provider
        const res = await mcpCall(w, okTok.access_token);
        assert.equal(res.status, 403);
        assert.match(res.headers.get("www-authenticate")!, /error="insufficient_scope", scope="lesen"/);
        assert.deepEqual(await res.json(), { error: "insufficient_scope" });
        await endMembership(w.tdb.db, w.seeker.userId);
        await sql`update users set role = 'seeker' where id = ${w.seeker.userId}`.execute(w.tdb.db.kysely);
      },
    );

    await t.step("21 disconnect: the unexpired access token and the refresh token stop at once", async () => {
      const tok = await tokensFor(w, clientId, w.seeker.email);
      assert.equal((await mcpCall(w, tok.access_token)).status, 200);
      assert.equal(
        await act(w.t.deps, seekerWho(w.seeker.userId), (a) => disconnectApp(a, w.seeker.userId, clientId)),
        true,
      );
      const res = await mcpCall(w, tok.access_token);
      assert.equal(res.status, 401);
      await res.body?.cancel();
      const r = await token(w, {
        grant_type: "refresh_token",
        refresh_token: tok.refresh_token,
        client_id: clientId,
      });
      assert.equal(r.status, 400);
    });
    await t.step("22 a removed provider's token is refused on the very next request", async () => {
      const tok = await tokensFor(w, clientId, w.provider.email, "lesen offline_access");
      assert.equal((await mcpCall(w, tok.access_token)).status, 200);
      await endMembership(w.tdb.db, w.provider.userId);
      const res = await mcpCall(w, tok.access_token);
      assert.equal(res.status, 401);
      await res.body?.cancel();
      await startMembership(w.tdb.db, w.provider.userId, w.officeId);
    });
    await t.step("23 a revoked refresh token (RFC 7009) no longer refreshes", async () => {
      const tok = await tokensFor(w, clientId, w.seeker.email);
      const rev = await fetch(`${w.origin}/api/auth/oauth2/revoke`, {
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded" },
        body: new URLSearchParams({
          token: tok.refresh_token,
          token_type_hint: "refresh_token",
          client_id: clientId,
        }),
      });
      assert.equal(rev.status, 200);
      await rev.body?.cancel();
      const r = await token(w, {
        grant_type: "refresh_token",
        refresh_token: tok.refresh_token,
        client_id: clientId,
      });
      assert.equal(r.status, 400);
    });
    await t.step(
      "24 no credentials: 401 naming the resource metadata and asking for offline_access",
      async () => {
        const res = await mcpCall(w, undefined);
        assert.equal(res.status, 401);
        assert.equal(
          res.headers.get("www-authenticate"),
          `Bearer resource_metadata="${w.origin}/.well-known/oauth-protected-resource/mcp", scope="lesen suchen offline_access"`,
        );
        await res.body?.cancel();
      },
    );
    await t.step("25 consent without the form's CSRF token is refused", async () => {
      const b = new JarBrowser(w.origin);
      const newClient = await register(w.origin, { client_name: "Noch eine App" });
      let step = await b.open(authorizeUrl(w, newClient, { code_challenge: challenge }));
      step = await b.submit(step, "/anmelden", { email: w.seeker.email, password: "richtig-geheim-123" });
      const bad = await b.submit(step, "/zustimmung", { decision: "approve", _csrf: "falsch" });
      assert.equal(bad.kind === "page" && bad.status, 403);
    });
    await t.step(
      "26 registration: http redirect on a public host is refused, loopback is native",
      async () => {
        const res = await fetch(`${w.origin}/api/auth/oauth2/register`, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({
            redirect_uris: ["http://app.example/cb"],
            token_endpoint_auth_method: "none",
          }),
        });
        assert.equal(res.status, 400);
        await res.body?.cancel();
        const ok = await fetch(`${w.origin}/api/auth/oauth2/register`, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({
            redirect_uris: ["http://[::1]:7777/cb"],
            token_endpoint_auth_method: "none",
          }),
        });
        assert.equal(ok.status, 201);
        assert.equal((await ok.json()).application_type, "native");
      },
    );
    await t.step("27 wrong password at sign-in stays on the page with an error", async () => {
      const b = new JarBrowser(w.origin);
      const step = await b.open(authorizeUrl(w, clientId, { code_challenge: challenge }));
      const after = await b.submit(step, "/anmelden", { email: w.seeker.email, password: "falsch-falsch-1" });
      assert.equal(after.kind === "page" && after.status, 401);
    });
    await t.step("28 better-auth endpoints outside the allow-list are not reachable", async () => {
      for (
        const path of [
          "/api/auth/oauth2/consent",
          "/api/auth/sign-up/email",
          "/api/auth/admin/create-oauth-client",
        ]
      ) {
        const res = await fetch(`${w.origin}${path}`, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: "{}",
        });
        assert.equal(res.status, 404, path);
        await res.body?.cancel();
      }
    });
  });
});

Deno.test("discovery: RFC 8414 and RFC 9728 documents say what we serve", async (t) => {
  await withWorld(async (w, clientId) => {
    const as = await (await fetch(`${w.origin}/.well-known/oauth-authorization-server/api/auth`)).json();
    const prm = await (await fetch(`${w.origin}/.well-known/oauth-protected-resource/mcp`)).json();

    await t.step("authorization server: issuer, endpoints, methods", async () => {
      assert.equal(as.issuer, `${w.origin}/api/auth`);
      assert.deepEqual(as.code_challenge_methods_supported, ["S256"]);
      assert.equal(as.authorization_response_iss_parameter_supported, true);
      assert.deepEqual(as.scopes_supported, ["lesen", "suchen", "offline_access"]);
      assert.deepEqual(as.grant_types_supported, ["authorization_code", "refresh_token"]);
      assert.deepEqual(as.response_types_supported, ["code"]);
      assert.equal(as.token_endpoint_auth_methods_supported[0], "none");
      assert.equal(as.introspection_endpoint, undefined, "introspection is not served");
      assert.equal(as.introspection_endpoint_auth_methods_supported, undefined);
      assert.equal(
        as.dpop_signing_alg_values_supported,
        undefined,
        "the MCP endpoint takes bearer tokens only",
      );
      const same = await (await fetch(`${w.origin}/api/auth/.well-known/oauth-authorization-server`)).json();
      assert.deepEqual(same, as);
      const jwks = await fetch(as.jwks_uri);
      assert.equal(jwks.status, 200);
      await jwks.body?.cancel();
    });
    await t.step("public clients revoke with their client_id alone (none)", async () => {
      assert.equal(as.revocation_endpoint, `${w.origin}/api/auth/oauth2/revoke`);
      assert.ok(as.revocation_endpoint_auth_methods_supported.includes("none"));
      const tok = await tokensFor(w, clientId, w.seeker.email);
      assert.equal(await revoke(w, { token: tok.refresh_token, client_id: clientId }), 200);
      const r = await token(w, {
        grant_type: "refresh_token",
        refresh_token: tok.refresh_token,
        client_id: clientId,
      });
      assert.equal(r.status, 400);
    });
    await t.step("protected resource: our issuer, bearer in the header, scopes with offline_access", () => {
      assert.equal(prm.resource, w.resource);
      assert.deepEqual(prm.authorization_servers, [`${w.origin}/api/auth`]);
      assert.deepEqual(prm.bearer_methods_supported, ["header"]);
      assert.deepEqual(prm.scopes_supported, ["lesen", "suchen", "offline_access"]);
      assert.equal(prm.dpop_signing_alg_values_supported, undefined);
    });
    await t.step("an SDK client that starts authorization without a 401 gets a refresh token", async () => {
      // MCP SDK 1.x takes the scopes of the protected-resource metadata when no challenge named any.
      const p = new ScriptedOAuthProvider(w, w.seeker.email, "suchen");
      assert.equal(await v1Auth(p as never, { serverUrl: w.resource }), "REDIRECT");
      assert.equal(
        await v1Auth(p as never, { serverUrl: w.resource, authorizationCode: p.code! }),
        "AUTHORIZED",
      );
      const stored = p.stored as { access_token: string; refresh_token?: string; scope: string };
      assert.ok(stored.refresh_token, `a refresh token (scope ${stored.scope})`);
      assert.equal(await opens(w, stored.access_token, "v1"), true);
    });
  });
});
