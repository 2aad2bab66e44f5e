import assert from "node:assert/strict";
import { insertUser } from "../db/accounts.ts";
import { listOutbox } from "../db/outbox.ts";
import { ensureOffice } from "../db/offices.ts";
import { openTestDb } from "../tests/helpers.ts";
import { recordEvent } from "./outbox.ts";

Deno.test("recordEvent writes exactly the contract's fields, with owner and origin, and refuses anything else", async (t) => {
  const tdb = await openTestDb();
  const db = tdb.db;
  const officeId = await ensureOffice(db, "Büro Outbox");
  const seekerId = await insertUser(db, { email: "outbox@example.org", name: "O", role: "seeker" });
  const at = new Date("2026-11-23T10:00:00Z");
  const ids = {
    anfrage_id: crypto.randomUUID(),
    objekt_id: crypto.randomUUID(),
  };

  await t.step("a provider event with an API key origin", async () => {
    await recordEvent(db.kysely, {
      name: "inquiry.received",
      data: { ...ids, quelle: "service", satz: "Neue Anfrage." },
      owner: { office: officeId },
      origin: { apiKeyId: "00000000-0000-4000-8000-000000000001" },
      at,
    });
    const [row] = await listOutbox(db, { limit: 5 });
    assert.equal(row?.name, "inquiry.received");
    assert.equal(row?.server, "anbieter");
    assert.deepEqual(row?.data, { ...ids, quelle: "service", satz: "Neue Anfrage." });
    assert.equal(row?.ownerOfficeId, officeId);
    assert.equal(row?.ownerUserId, null);
    assert.equal(row?.originApiKeyId, "00000000-0000-4000-8000-000000000001");
    assert.equal(row?.originClientId, null);
    assert.equal(row?.createdAt.toISOString(), at.toISOString());
  });

  await t.step("a seeker event from an OAuth app", async () => {
    await recordEvent(db.kysely, {
      name: "reply.received",
      data: { inquiry_id: ids.anfrage_id, listing_id: ids.objekt_id, satz: "Antwort erhalten." },
      owner: { seeker: seekerId },
      origin: { clientId: "client-1" },
      at,
    });
    const [row] = await listOutbox(db, { limit: 1, name: "reply.received" });
    assert.equal(row?.server, "suche");
    assert.equal(row?.ownerUserId, seekerId);
    assert.equal(row?.originClientId, "client-1");
  });

  await t.step("extra fields, missing fields and a wrong owner are refused and write nothing", async () => {
    const before = (await listOutbox(db, { limit: 100 })).length;
    await assert.rejects(() =>
      recordEvent(db.kysely, {
        name: "inquiry.received",
        // deno-lint-ignore no-explicit-any
        data: { ...ids, quelle: "service", satz: "x", nachricht: "geheim" } as any,
        owner: { office: officeId },
        origin: null,
        at,
      })
    );
    await assert.rejects(() =>
      recordEvent(db.kysely, {
        name: "viewing.changed",
        // deno-lint-ignore no-explicit-any
        data: { inquiry_id: "a", listing_id: "b", change: "moved", satz: "x" } as any,
        owner: { seeker: seekerId },
        origin: null,
        at,
      })
    );
    await assert.rejects(() =>
      recordEvent(db.kysely, {
        name: "matches.new",
        data: { saved_search_id: "s", count: 1, satz: "x" },
        owner: { office: officeId },
        origin: null,
        at,
      })
    );
    assert.equal((await listOutbox(db, { limit: 100 })).length, before);
  });
  await tdb.close();
});
