/**
 * Rotated and revoked credentials stop working, on the very next MCP request of a real MCP SDK client: a reused
 * refresh token ends the whole grant (OAuth 2.1 §4.3.1), a replayed code revokes the access token it gave, RFC 7009
 * revokes access tokens (by jti) and refresh tokens (with the grant's access tokens), "Trennen" and the end of an
 * office membership refuse the next request; and a token issued after a revocation, even in the same second,
 * works.
 */
import assert from "node:assert/strict";
import { sql } from "kysely";
import { endMembership, startMembership } from "../db/accounts.ts";
import { JarBrowser } from "./browser_jar.ts";
import { CLIENT_KINDS } from "./mcp_helpers.ts";
import {
  authorize,
  type OAuthWorld,
  oauthWorld,
  opens,
  PASSWORD,
  REDIRECT_URI,
  register,
  revoke,
  token,
  tokenMinter,
  tokensFor,
} from "./oauth_support.ts";

/** A refresh with `refreshToken` for `clientId`. */
function refresh(w: OAuthWorld, clientId: string, refreshToken: string) {
  return token(w, { grant_type: "refresh_token", refresh_token: refreshToken, client_id: clientId });
}

/** The grant cutoff of (seeker, `clientId`) in µs of the database clock, or undefined. */
async function cutoffMicros(w: OAuthWorld, clientId: string): Promise<number | undefined> {
  const { rows } = await sql<{ us: string }>`
    select floor(extract(epoch from not_before) * 1000000)::text as us from oauth_grant_cutoffs
    where user_id = ${w.seeker.userId} and client_id = ${clientId}`.execute(w.tdb.db.kysely);
  return rows[0] ? Number(rows[0].us) : undefined;
}

Deno.test("OAuth revocation: rotated and revoked credentials stop working", async (t) => {
  const w = await oauthWorld();
  try {
    await t.step("1 a rotated refresh token is refused, and its reuse ends the whole grant", async () => {
      const clientId = await register(w.origin);
      const first = await tokensFor(w, clientId, w.seeker.email);
      const rotated = await refresh(w, clientId, first.refresh_token);
      assert.equal(rotated.status, 200);
      assert.notEqual(rotated.body.refresh_token, first.refresh_token);
      for (const kind of CLIENT_KINDS) {
        assert.equal(await opens(w, rotated.body.access_token, kind), true, kind);
      }

      const reuse = await refresh(w, clientId, first.refresh_token);
      assert.equal(reuse.status, 400, "a used refresh token is invalid");
      assert.equal(reuse.body.error, "invalid_grant");
      assert.equal(
        (await refresh(w, clientId, rotated.body.refresh_token)).status,
        400,
        "the new one died too",
      );
      for (const kind of CLIENT_KINDS) {
        assert.equal(await opens(w, first.access_token, kind), false, `${kind}: the first access token`);
        assert.equal(await opens(w, rotated.body.access_token, kind), false, `${kind}: the rotated one`);
      }
      const again = await tokensFor(w, clientId, w.seeker.email);
      assert.equal(await opens(w, again.access_token), true, "a new authorization right after works");
    });

    for (const scope of ["suchen", "suchen offline_access"]) {
      await t.step(`2 a replayed code revokes the access token it gave (scope ${scope})`, async () => {
        const clientId = await register(w.origin);
        const got = await authorize(w, clientId, w.seeker.email, { scope });
        const form = {
          grant_type: "authorization_code",
          code: got.location.searchParams.get("code")!,
          code_verifier: got.verifier,
          client_id: clientId,
          redirect_uri: REDIRECT_URI,
          resource: w.resource,
        };
        const first = await token(w, form);
        assert.equal(first.status, 200);
        assert.equal(await opens(w, first.body.access_token), true);
        const replay = await token(w, form);
        assert.equal(replay.status, 400);
        assert.equal(replay.body.error, "invalid_grant");
        assert.equal(await opens(w, first.body.access_token), false, "refused on the next request");
        const fresh = await tokensFor(w, clientId, w.seeker.email, scope);
        assert.equal(await opens(w, fresh.access_token), true, "a new authorization right after works");
      });
    }

    await t.step(
      "3 RFC 7009: a revoked access token is refused at once; a refresh right after works",
      async () => {
        const clientId = await register(w.origin);
        const tok = await tokensFor(w, clientId, w.seeker.email);
        assert.equal(await opens(w, tok.access_token), true);
        const verifier = w.t.deps.authRuntime!.tokens;
        assert.ok(verifier.has(tok.access_token), "verified once and kept: the next check is a cache hit");
        assert.equal(await revoke(w, { token: tok.access_token, client_id: clientId }), 200);
        assert.ok(verifier.has(tok.access_token), "revocation is found by the SQL check, not by the cache");
        assert.equal(await opens(w, tok.access_token), false);
        assert.equal(await opens(w, tok.access_token, "v1"), false);
        const next = await refresh(w, clientId, tok.refresh_token);
        assert.equal(next.status, 200, "revoking the access token leaves the refresh token");
        assert.equal(await opens(w, next.body.access_token), true, "the token issued right after works");
      },
    );

    await t.step(
      "4 RFC 7009: a JWT is revoked whatever the hint says; another client's token is not",
      async () => {
        const clientId = await register(w.origin);
        const other = await register(w.origin, { client_name: "Fremde App" });
        const tok = await tokensFor(w, clientId, w.seeker.email);
        assert.equal(await revoke(w, { token: tok.access_token, client_id: other }), 200);
        assert.equal(await opens(w, tok.access_token), true, "another client cannot revoke it");
        const hinted = { token: tok.access_token, token_type_hint: "refresh_token", client_id: clientId };
        assert.equal(await revoke(w, hinted), 200);
        assert.equal(await opens(w, tok.access_token), false);
      },
    );

    await t.step("5 RFC 7009: a revoked refresh token takes its grant's access tokens with it", async () => {
      const clientId = await register(w.origin);
      const tok = await tokensFor(w, clientId, w.seeker.email);
      assert.equal(await opens(w, tok.access_token), true);
      const form = { token: tok.refresh_token, token_type_hint: "refresh_token", client_id: clientId };
      assert.equal(await revoke(w, form), 200);
      assert.equal(await opens(w, tok.access_token), false, "refused on the next request");
      assert.equal((await refresh(w, clientId, tok.refresh_token)).status, 400);
      const again = await tokensFor(w, clientId, w.seeker.email);
      assert.equal(await opens(w, again.access_token), true, "a new authorization right after works");
    });

    await t.step(
      "6 a token issued after a revocation in the same second works, one before it not",
      async () => {
        const clientId = await register(w.origin);
        const tok = await tokensFor(w, clientId, w.seeker.email);
        assert.equal(await revoke(w, { token: tok.refresh_token, client_id: clientId }), 200);
        const cut = await cutoffMicros(w, clientId);
        assert.ok(cut, "the revocation set a cutoff");
        const second = Math.floor(cut / 1_000_000);
        const mint = await tokenMinter(w, clientId);
        const before = await mint({ iat: second, iat_us: cut - 1000 });
        const after = await mint({ iat: second, iat_us: cut + 1000 });
        assert.equal(await opens(w, before), false, "issued 1 ms before the revocation");
        assert.equal(await opens(w, after), true, "issued 1 ms after it, in the same second");
      },
    );

    await t.step(
      "6b RFC 7009 §2.2: a token already revoked, rotated away or unknown answers 200; a bad request stays 400",
      async () => {
        const clientId = await register(w.origin);
        const first = await tokensFor(w, clientId, w.seeker.email);
        const rotated = await refresh(w, clientId, first.refresh_token);
        assert.equal(rotated.status, 200);
        assert.equal((await refresh(w, clientId, first.refresh_token)).status, 400, "reuse ends the grant");
        for (const token of [first.refresh_token, rotated.body.refresh_token]) {
          assert.equal(await revoke(w, { token, client_id: clientId }), 200, "revoked by reuse detection");
          const hinted = { token, token_type_hint: "refresh_token", client_id: clientId };
          assert.equal(await revoke(w, hinted), 200, "with the hint too");
        }
        assert.equal(await revoke(w, { token: rotated.body.access_token, client_id: clientId }), 200);
        assert.equal(await revoke(w, { token: "kein-token", client_id: clientId }), 200, "an unknown token");

        const live = await tokensFor(w, clientId, w.seeker.email);
        assert.equal(await revoke(w, { token: live.refresh_token, client_id: clientId }), 200);
        assert.equal(await revoke(w, { token: live.refresh_token, client_id: clientId }), 200, "twice");

        const other = await tokensFor(w, clientId, w.seeker.email);
        const raw = async (body: string, headers: Record<string, string> = {}) => {
          const res = await fetch(`${w.origin}/api/auth/oauth2/revoke`, {
            method: "POST",
            headers: { "content-type": "application/x-www-form-urlencoded", ...headers },
            body,
          });
          return { status: res.status, body: await res.json().catch(() => null) };
        };
        const token = encodeURIComponent(other.refresh_token);
        for (
          const [body, headers] of [
            [`client_id=${clientId}`, {}],
            [`token=&client_id=${clientId}`, {}],
            [`token=${token}&client_id=${clientId}&client_id=${clientId}`, {}],
            [`token=${token}&token=${token}&client_id=${clientId}`, {}],
            [`token=${token}&client_id=${clientId}`, { authorization: "(kein Schema)" }],
          ] as Array<[string, Record<string, string>]>
        ) {
          const got = await raw(body, headers);
          assert.equal(got.status, 400, body);
          assert.equal(got.body?.error, "invalid_request", body);
        }
        const unknownClient = await raw(`token=${token}&client_id=unbekannt`);
        assert.equal(unknownClient.body?.error, "invalid_client");
        assert.equal(
          (await refresh(w, clientId, other.refresh_token)).status,
          200,
          "the bad requests revoked nothing",
        );
      },
    );

    await t.step(
      "7 Trennen on /konto/apps refuses the next request; connecting again at once works",
      async () => {
        const clientId = await register(w.origin);
        const tok = await tokensFor(w, clientId, w.seeker.email);
        assert.equal(await opens(w, tok.access_token), true);
        const b = new JarBrowser(w.origin);
        await b.submit(await b.open("/anmelden"), "/anmelden", { email: w.seeker.email, password: PASSWORD });
        const apps = await b.open("/konto/apps");
        const done = await b.submit(apps, "/konto/apps/trennen", { client_id: clientId });
        assert.equal(done.kind === "page" && done.status, 200);
        assert.equal(await opens(w, tok.access_token), false, "refused on the next request");
        assert.equal((await refresh(w, clientId, tok.refresh_token)).status, 400);
        const again = await tokensFor(w, clientId, w.seeker.email);
        assert.equal(
          await opens(w, again.access_token),
          true,
          "connected again at once: the new token works",
        );
        assert.equal(await opens(w, tok.access_token), false, "the old token stays refused");
      },
    );

    await t.step(
      "8 removal from the office refuses the provider's token on the very next request",
      async () => {
        const clientId = await register(w.origin);
        const tok = await tokensFor(w, clientId, w.provider.email, "lesen offline_access");
        assert.equal(await opens(w, tok.access_token, "v1"), true);
        assert.equal(await endMembership(w.tdb.db, w.provider.userId), true);
        assert.equal(await opens(w, tok.access_token, "v1"), false);
        assert.equal(await opens(w, tok.access_token), false);
        await startMembership(w.tdb.db, w.provider.userId, w.officeId);
      },
    );
  } finally {
    await w.close();
  }
});
