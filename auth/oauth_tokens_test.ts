/**
 * The access-token verifier's cache of verified tokens: a hit answers the same claims without a new signature
 * check, and the cache never accepts what a fresh check would refuse: an expired token (same tolerance), a changed
 * signature, a key gone from the JWKS. It is bounded and belongs to one verifier (one app). The SQL connection check
 * that follows on every request, hit or not, is tested through the MCP endpoint (`tests/oauth_revocation_test.ts`).
 */
import assert from "node:assert/strict";
import { SignJWT } from "jose";
import { sql } from "kysely";
import { loadConfig } from "../config.ts";
import { openTestDb } from "../tests/helpers.ts";
import { AccessTokenVerifier } from "./oauth_tokens.ts";

const BASE = "https://immo.example";
const config = loadConfig({ DATA_DIR: ":memory:", BASE_URL: BASE });

/** A trusted signing key (inserted into the JWKS) and a function minting tokens with it that expire at `exp`. */
async function trustedKey(db: Awaited<ReturnType<typeof openTestDb>>["db"]) {
  const kid = `test-${crypto.randomUUID()}`;
  const keys = await newKeys();
  const pub = await crypto.subtle.exportKey("jwk", keys.publicKey);
  await sql`insert into jwks (id, "publicKey", "privateKey", "createdAt", alg, crv)
    values (${kid}, ${JSON.stringify(pub)}, 'unused', '2000-01-01', 'EdDSA', 'Ed25519')`.execute(db.kysely);
  const mint = (exp: number, sub = "person-1", key = keys.privateKey) =>
    new SignJWT({ client_id: "app-1", scope: "suchen", aud: `${BASE}/mcp` })
      .setProtectedHeader({ alg: "EdDSA", kid, typ: "at+jwt" })
      .setSubject(sub).setIssuer(`${BASE}/api/auth`).setIssuedAt(exp - 600).setExpirationTime(exp).sign(key);
  return { kid, mint };
}

function newKeys(): Promise<CryptoKeyPair> {
  return crypto.subtle.generateKey({ name: "Ed25519" }, true, ["sign", "verify"]) as Promise<CryptoKeyPair>;
}

Deno.test("access-token verifier: what it keeps and when it lets go", async (t) => {
  const tdb = await openTestDb();
  try {
    let now = Date.now();
    const verifier = new AccessTokenVerifier(tdb.db, config, { now: () => now });
    const { kid, mint } = await trustedKey(tdb.db);
    const exp = Math.floor(now / 1000) + 60;
    const token = await mint(exp);

    await t.step("a verified token is kept: the next check answers the same claims", async () => {
      const first = await verifier.claims(token);
      assert.equal(first?.sub, "person-1");
      assert.ok(verifier.has(token));
      assert.equal(await verifier.claims(token), first, "the very claims object: no second verification");
    });

    await t.step("a changed signature is refused although a token with the same claims is kept", async () => {
      const [h, p, s] = token.split(".");
      const flipped = `${h}.${p}.${s!.startsWith("A") ? "B" : "A"}${s!.slice(1)}`;
      assert.equal(await verifier.claims(flipped), undefined);
      const foreign = await mint(exp, "person-1", (await newKeys()).privateKey); // same kid, other key
      assert.equal(foreign.split(".").slice(0, 2).join("."), `${h}.${p}`, "same header and claims");
      assert.equal(await verifier.claims(foreign), undefined);
      assert.equal(verifier.has(flipped) || verifier.has(foreign), false);
      assert.equal((await verifier.claims(token))?.sub, "person-1", "the valid one still passes");
    });

    await t.step(
      "a kept token is refused once it expires, exactly when a fresh check refuses it",
      async () => {
        const fresh = () => new AccessTokenVerifier(tdb.db, config, { now: () => now });
        now = (exp + 4) * 1000; // within the clock tolerance (5 s)
        assert.ok(await verifier.claims(token));
        assert.ok(await fresh().claims(token));
        now = (exp + 5) * 1000;
        assert.equal(await fresh().claims(token), undefined);
        assert.equal(await verifier.claims(token), undefined);
        assert.equal(verifier.has(token), false, "dropped");
      },
    );

    await t.step(
      "a kept token is refused once its key is gone from the JWKS (read again after 60 s)",
      async () => {
        const later = await mint(Math.floor(now / 1000) + 600);
        assert.ok(await verifier.claims(later));
        await sql`delete from jwks where id = ${kid}`.execute(tdb.db.kysely);
        now += 61_000;
        assert.equal(await verifier.claims(later), undefined);
        assert.equal(verifier.has(later), false);
      },
    );

    await t.step("the cache is bounded and belongs to its verifier", async () => {
      const small = new AccessTokenVerifier(tdb.db, config, { now: () => now, maxTokens: 3 });
      const { mint: mint2 } = await trustedKey(tdb.db);
      const tokens = await Promise.all(
        [1, 2, 3, 4, 5].map((i) => mint2(Math.floor(now / 1000) + 600, `p-${i}`)),
      );
      for (const tok of tokens) assert.ok(await small.claims(tok));
      assert.equal(small.size, 3);
      assert.deepEqual(
        tokens.map((tok) => small.has(tok)),
        [false, false, true, true, true],
        "oldest dropped",
      );
      assert.equal(verifier.has(tokens[4]!), false, "another verifier (app) knows nothing of them");
    });
  } finally {
    await tdb.close();
  }
});
