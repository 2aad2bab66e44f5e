/** API keys: format and checksum (no database), creation, listing, revocation, verification, last use. */
import assert from "node:assert/strict";
import { endMembership, insertUser, startMembership } from "../db/accounts.ts";
import { ensureOffice } from "../db/offices.ts";
import { openTestDb } from "../tests/helpers.ts";
import {
  API_KEY_LENGTH,
  apiKeyChecksum,
  apiKeyPrincipal,
  crc32,
  createApiKey,
  generateApiKey,
  hashApiKey,
  listApiKeys,
  parseApiKey,
  recordApiKeyUse,
  revokeApiKey,
  verifyApiKey,
} from "./api_keys.ts";

Deno.test("crc32 matches the IEEE check value", () => {
  assert.equal(crc32("123456789"), 0xcbf43926);
  assert.equal(crc32(""), 0);
});

Deno.test("generated keys have the documented shape and parse", () => {
  const seen = new Set<string>();
  for (let i = 0; i < 200; i++) {
    const key = generateApiKey();
    assert.equal(key.length, API_KEY_LENGTH);
    assert.equal(key.length, 51);
    assert.match(key, /^immo_[0-9A-Za-z]{46}$/);
    assert.equal(key.slice(45), apiKeyChecksum(key.slice(5, 45)));
    assert.deepEqual(parseApiKey(key), { ok: true, key });
    seen.add(key);
  }
  assert.equal(seen.size, 200);
});

Deno.test("parseApiKey rejects wrong prefix, length, alphabet and checksum", () => {
  const key = generateApiKey();
  const random = key.slice(5, 45);
  assert.deepEqual(parseApiKey("immx_" + key.slice(5)), { ok: false, reason: "prefix" });
  assert.deepEqual(parseApiKey("IMMO_" + key.slice(5)), { ok: false, reason: "prefix" });
  assert.deepEqual(parseApiKey(""), { ok: false, reason: "prefix" });
  assert.deepEqual(parseApiKey(key.slice(0, -1)), { ok: false, reason: "length" });
  assert.deepEqual(parseApiKey(key + "0"), { ok: false, reason: "length" });
  const dashed = "immo_" + "-" + random.slice(1) + apiKeyChecksum("-" + random.slice(1));
  assert.deepEqual(parseApiKey(dashed), { ok: false, reason: "alphabet" });
  // One changed character of the random part, checksum kept.
  const flipped = random[0] === "a" ? "b" + random.slice(1) : "a" + random.slice(1);
  assert.deepEqual(parseApiKey("immo_" + flipped + key.slice(45)), { ok: false, reason: "checksum" });
  // Checksum characters changed.
  const badSum = key.slice(0, 45) + (key.slice(45) === "000000" ? "000001" : "000000");
  assert.deepEqual(parseApiKey(badSum), { ok: false, reason: "checksum" });
});

Deno.test("a key is stored as the hex SHA-256 of its text", async () => {
  // Known answer: SHA-256("immo_x").
  const expected = Array.from(
    new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode("immo_x"))),
    (b) => b.toString(16).padStart(2, "0"),
  ).join("");
  assert.equal(await hashApiKey("immo_x"), expected);
});

Deno.test("API keys in the database", async (t) => {
  const tdb = await openTestDb();
  const { db } = tdb;
  try {
    const seeker = await insertUser(db, { email: "suche@example.org", name: "Suche", role: "seeker" });
    const other = await insertUser(db, { email: "andere@example.org", name: "Andere", role: "seeker" });
    const provider = await insertUser(db, { email: "makler@example.org", name: "Makler", role: "seeker" });
    await startMembership(db, provider, await ensureOffice(db, "Büro Nord"));

    await t.step("create stores only the hash and a display prefix; the key verifies", async () => {
      const made = await createApiKey(db, seeker, "  Laptop  ");
      assert.equal(made.displayPrefix, made.key.slice(0, 12));
      const row = await db.kysely.selectFrom("api_keys").selectAll().where("id", "=", made.id)
        .executeTakeFirstOrThrow();
      assert.equal(row.key_hash, await hashApiKey(made.key));
      assert.equal(row.name, "Laptop");
      assert.ok(!JSON.stringify(row).includes(made.key));
      const v = await verifyApiKey(db, made.key);
      assert.deepEqual(v && { keyId: v.keyId, userId: v.userId }, { keyId: made.id, userId: seeker });
    });

    await t.step("names must have 1 to 100 characters", async () => {
      await assert.rejects(createApiKey(db, seeker, "   "), /invalid_request/);
      await assert.rejects(createApiKey(db, seeker, "x".repeat(101)), /invalid_request/);
      assert.ok(await createApiKey(db, seeker, "x".repeat(100)));
    });

    await t.step("list shows the owner's keys without secrets", async () => {
      const list = await listApiKeys(db, seeker);
      assert.equal(list.length, 2);
      for (const k of list) {
        assert.deepEqual(Object.keys(k).sort(), [
          "created_at",
          "displayPrefix",
          "id",
          "last_used_at",
          "name",
          "revoked_at",
        ]);
        assert.match(k.displayPrefix, /^immo_[0-9A-Za-z]{7}$/);
      }
      assert.deepEqual(await listApiKeys(db, other), []);
    });

    await t.step("only the owner revokes; a revoked key no longer verifies", async () => {
      const made = await createApiKey(db, seeker, "Skript");
      assert.equal(await revokeApiKey(db, other, made.id), false);
      assert.ok(await verifyApiKey(db, made.key));
      assert.equal(await revokeApiKey(db, seeker, "not-a-uuid"), false);
      assert.equal(await revokeApiKey(db, seeker, made.id), true);
      assert.equal(await revokeApiKey(db, seeker, made.id), false);
      assert.equal(await verifyApiKey(db, made.key), undefined);
      const listed = (await listApiKeys(db, seeker)).find((k) => k.id === made.id);
      assert.ok(listed?.revoked_at instanceof Date);
    });

    await t.step("malformed and unknown keys are refused", async () => {
      assert.equal(await verifyApiKey(db, "immo_short"), undefined);
      assert.equal(await verifyApiKey(db, generateApiKey()), undefined);
    });

    await t.step("a key acts with the person's role and office now", async () => {
      const office = await ensureOffice(db, "Büro Nord");
      const made = await createApiKey(db, provider, "Makler-Key");
      const p = await apiKeyPrincipal(db, made.key);
      assert.deepEqual(p?.principal, {
        userId: provider,
        role: "provider",
        officeId: office,
        right: "lesen",
        origin: { kind: "api_key", keyId: made.id },
      });
      const s = await createApiKey(db, seeker, "Suche-Key");
      assert.equal((await apiKeyPrincipal(db, s.key))?.principal.right, "suchen");
      await endMembership(db, provider);
      assert.equal(await apiKeyPrincipal(db, made.key), undefined);
      await startMembership(db, provider, office);
      assert.equal((await apiKeyPrincipal(db, made.key))?.principal.officeId, office);
    });

    await t.step("last_used_at is written at most once a minute", async () => {
      const made = await createApiKey(db, other, "Zähler");
      const lastUsed = async () =>
        (await db.kysely.selectFrom("api_keys").select("last_used_at").where("id", "=", made.id)
          .executeTakeFirstOrThrow()).last_used_at;
      assert.equal(await lastUsed(), null);
      await recordApiKeyUse(db, (await verifyApiKey(db, made.key))!);
      const first = await lastUsed();
      assert.ok(first instanceof Date);
      // A stale in-memory view (as in another process) does not write either: the database re-checks.
      await recordApiKeyUse(db, { ...(await verifyApiKey(db, made.key))!, lastUsedAt: null });
      assert.equal((await lastUsed())?.getTime(), first.getTime());
      // Older than a minute: written again.
      const old = new Date(Date.now() - 120_000);
      await db.kysely.updateTable("api_keys").set({ last_used_at: old }).where("id", "=", made.id).execute();
      await recordApiKeyUse(db, (await verifyApiKey(db, made.key))!);
      assert.ok((await lastUsed())!.getTime() > old.getTime() + 60_000);
    });

    await t.step("deleting the person deletes the keys", async () => {
      await db.kysely.deleteFrom("users").where("id", "=", other).execute();
      assert.equal(
        (await db.kysely.selectFrom("api_keys").select("id").where("user_id", "=", other).execute()).length,
        0,
      );
    });
  } finally {
    await tdb.close();
  }
});
