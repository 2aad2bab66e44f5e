import assert from "node:assert/strict";
import { insertUser } from "../db/accounts.ts";
import { listOutbox } from "../db/outbox.ts";
import { ensureOffice } from "../db/offices.ts";
import { openTestDb } from "../tests/helpers.ts";
import { agentReactions } from "../agent/hooks.ts";
import { act, type ActDeps, type Action, type Who } from "../deps.ts";
import type { EventOrigin } from "../db/outbox.ts";
import { recordEvent } from "./outbox.ts";

/** Runs `fn` as an action of the service through `origin` at time `at`. */
function actAt<T>(deps: ActDeps, origin: EventOrigin, fn: (a: Action) => Promise<T>): Promise<T> {
  const who: Who = { actor: { kind: "service" }, origin };
  return act(deps, who, fn);
}

Deno.test("recordEvent writes exactly the contract's fields, with owner and origin, and refuses anything else", async (t) => {
  const tdb = await openTestDb();
  const db = tdb.db;
  const officeId = await ensureOffice(db, "Büro Outbox");
  const seekerId = await insertUser(db, { email: "outbox@example.org", name: "O", role: "seeker" });
  const at = new Date("2026-11-23T10:00:00Z");
  const deps: ActDeps = { db, clock: () => at.getTime(), log: { log: () => {} }, reactions: agentReactions };
  const ids = {
    anfrage_id: crypto.randomUUID(),
    objekt_id: crypto.randomUUID(),
  };

  await t.step("a provider event with an API key origin", async () => {
    await actAt(deps, { apiKeyId: "00000000-0000-4000-8000-000000000001" }, (a) =>
      recordEvent(a, {
        name: "inquiry.received",
        data: { ...ids, quelle: "service", satz: "Neue Anfrage." },
        owner: { office: officeId },
      }));
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
    await actAt(deps, { clientId: "client-1" }, (a) =>
      recordEvent(a, {
        name: "reply.received",
        data: { inquiry_id: ids.anfrage_id, listing_id: ids.objekt_id, satz: "Antwort erhalten." },
        owner: { seeker: seekerId },
      }));
    const [row] = await listOutbox(db, { limit: 1, name: "reply.received" });
    assert.equal(row?.server, "suche");
    assert.equal(row?.ownerUserId, seekerId);
    assert.equal(row?.originClientId, "client-1");
  });

  await t.step("extra fields, missing fields and a wrong owner are refused and write nothing", async () => {
    const before = (await listOutbox(db, { limit: 100 })).length;
    await assert.rejects(() =>
      actAt(deps, null, (a) =>
        recordEvent(a, {
          name: "inquiry.received",
          // deno-lint-ignore no-explicit-any
          data: { ...ids, quelle: "service", satz: "x", nachricht: "geheim" } as any,
          owner: { office: officeId },
        }))
    );
    await assert.rejects(() =>
      actAt(deps, null, (a) =>
        recordEvent(a, {
          name: "viewing.changed",
          // deno-lint-ignore no-explicit-any
          data: { inquiry_id: "a", listing_id: "b", change: "moved", satz: "x" } as any,
          owner: { seeker: seekerId },
        }))
    );
    await assert.rejects(() =>
      actAt(deps, null, (a) =>
        recordEvent(a, {
          name: "matches.new",
          data: { saved_search_id: "s", count: 1, satz: "x" },
          owner: { office: officeId },
        }))
    );
    assert.equal((await listOutbox(db, { limit: 100 })).length, before);
  });
  await tdb.close();
});
