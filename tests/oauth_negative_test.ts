/**
 * The authorization server and the MCP resource refuse what they must: PKCE missing or plain, wrong verifier,
 * code replay (which also revokes what the code gave), foreign resource, unregistered redirect URI, unknown
 * scope, a seeker asking for `lesen`, expired, tampered and foreign-audience tokens, refresh after disconnect,
 * a removed provider's token, revocation, CSRF; and the discovery documents say what we serve.
 */
import assert from "node:assert/strict";
import { SignJWT } from "jose";
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
  pkce,
  REDIRECT_URI,
  register,
  signInAndConsent,
  token,
  tokensFor,
} from "./oauth_support.ts";

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
    await t.step("4 an unregistered redirect URI gets an error page, never a redirect", async () => {
      const e = await authorizeError(w, clientId, {
        code_challenge: challenge,
        redirect_uri: "http://127.0.0.1:9/other",
      });
      assert.match(e, /^page 4\d\d$/);
    });
    await t.step("5 an unknown scope is refused", async () => {
      assert.equal(
        await authorizeError(w, clientId, { code_challenge: challenge, scope: "admin" }),
        "invalid_scope",
      );
    });
    await t.step("6 an unknown client is refused with an error page", async () => {
      assert.match(await authorizeError(w, "no-such-client", { code_challenge: challenge }), /^page 4\d\d$/);
    });

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
    await t.step("10 the token endpoint refuses a wrong verifier", async () => {
      const again = await authorize(w, clientId, w.seeker.email);
      const r = await token(w, {
        ...base,
        code: again.location.searchParams.get("code")!,
        code_verifier: "w".repeat(50),
      });
      assert.ok(r.status === 400 || r.status === 401, `status ${r.status}`);
      assert.equal(r.body.access_token, undefined);
      assert.ok(
        ["invalid_grant", "invalid_request", "invalid_client"].includes(r.body.error),
        JSON.stringify(r.body),
      );
    });
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
    const keys = await crypto.subtle.generateKey({ name: "Ed25519" }, true, [
      "sign",
      "verify",
    ]) as CryptoKeyPair;
    const pub = await crypto.subtle.exportKey("jwk", keys.publicKey);
    await sql`insert into jwks (id, "publicKey", "privateKey", "createdAt", alg, crv)
      values ('test-kid', ${JSON.stringify(pub)}, 'unused', '2000-01-01', 'EdDSA', 'Ed25519')`.execute(
      w.tdb.db.kysely,
    );
    const okTok = await tokensFor(w, clientId, w.seeker.email);
    const mint = (claims: Record<string, unknown>, exp: number) =>
      new SignJWT({ client_id: clientId, scope: "suchen", ...claims })
        .setProtectedHeader({ alg: "EdDSA", kid: "test-kid", typ: "at+jwt" })
        .setSubject(w.seeker.userId).setIssuer(`${w.origin}/api/auth`).setIssuedAt()
        .setExpirationTime(exp).sign(keys.privateKey);
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
        await disconnectApp(
          { db: w.tdb.db, log: w.t.logs ? { log() {} } : { log() {} } },
          w.seeker.userId,
          clientId,
        ),
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

Deno.test("discovery: RFC 8414 and RFC 9728 documents", async () => {
  await withWorld(async (w) => {
    const as = await (await fetch(`${w.origin}/.well-known/oauth-authorization-server/api/auth`)).json();
    assert.equal(as.issuer, `${w.origin}/api/auth`);
    assert.deepEqual(as.code_challenge_methods_supported, ["S256"]);
    assert.equal(as.authorization_response_iss_parameter_supported, true);
    assert.ok(as.registration_endpoint && as.revocation_endpoint && as.token_endpoint);
    assert.ok(as.scopes_supported.includes("offline_access"));
    const prm = await (await fetch(`${w.origin}/.well-known/oauth-protected-resource/mcp`)).json();
    assert.equal(prm.resource, w.resource);
    assert.deepEqual(prm.authorization_servers, [`${w.origin}/api/auth`]);
  });
});
