/**
 * The MCP rate limit (docs/contract.md §9): both servers together, per account, 30 at once then 1 per second. The 31st
 * immediate call gets HTTP 429 `{error: "rate_limited"}` without Retry-After and does nothing; another account is
 * unaffected; after a second one more call is admitted.
 */
import assert from "node:assert/strict";
import { createApiKey } from "../auth/api_keys.ts";
import { initializeRequest, mcpWorld, rawMcpPost, rpcMessages } from "./mcp_helpers.ts";
import { fileWorld } from "./helpers.ts";

const w = await fileWorld(() => mcpWorld({ RATE_LIMIT: "on" }));

/** The stored `last_used_at` of key `id`. */
async function lastUsed(id: string): Promise<Date | null> {
  return (await w.tdb.db.kysely.selectFrom("api_keys").select("last_used_at").where("id", "=", id)
    .executeTakeFirstOrThrow()).last_used_at;
}

/** A `tools/call` of get_property as a 2025-06-18 client sends it (stateless serving needs no initialize). */
function callBody(id: number): unknown {
  return {
    jsonrpc: "2.0",
    id,
    method: "tools/call",
    params: { name: "get_property", arguments: { id: w.listingId } },
  };
}
const legacyHeaders = { "mcp-protocol-version": "2025-06-18" };

Deno.test("the 31st immediate call of an account gets 429 and changes nothing", async () => {
  // Two keys of the same person share one bucket (per account, not per key).
  const second = await createApiKey(w.tdb.db, w.seeker.userId, "zweiter Schlüssel");
  for (let i = 1; i <= 30; i++) {
    const key = i % 2 === 0 ? second.key : w.seeker.key;
    const body = i === 1 ? initializeRequest("2025-06-18", i) : callBody(i);
    const res = await rawMcpPost(w.url, key, body, i === 1 ? {} : legacyHeaders);
    assert.equal(res.status, 200, `call ${i}`);
    // deno-lint-ignore no-explicit-any
    const [msg] = await rpcMessages(res) as any[];
    assert.equal(msg.error, undefined, `call ${i}: ${JSON.stringify(msg)}`);
  }
  // Make the key's last use old, so an admitted call would write it again.
  const old = new Date(Date.now() - 3_600_000);
  await w.tdb.db.kysely.updateTable("api_keys").set({ last_used_at: old }).where("id", "=", w.seeker.keyId)
    .execute();

  const res = await rawMcpPost(w.url, w.seeker.key, callBody(31), legacyHeaders);
  assert.equal(res.status, 429);
  assert.deepEqual(await res.json(), { error: "rate_limited" });
  assert.equal(res.headers.get("retry-after"), null);
  assert.equal((await lastUsed(w.seeker.keyId))?.getTime(), old.getTime(), "the refused call wrote nothing");

  // The modern era is limited by the same bucket.
  const modern = await rawMcpPost(w.url, second.key, {
    jsonrpc: "2.0",
    id: 32,
    method: "tools/list",
    params: {
      _meta: {
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientInfo": { name: "raw-test", version: "1.0.0" },
        "io.modelcontextprotocol/clientCapabilities": {},
      },
    },
  }, { "mcp-protocol-version": "2026-07-28", "mcp-method": "tools/list" });
  assert.equal(modern.status, 429);
  assert.deepEqual(await modern.json(), { error: "rate_limited" });

  // Another account is unaffected.
  const other = await rawMcpPost(w.url, w.provider.key, initializeRequest("2025-06-18"));
  assert.equal(other.status, 200);
  await other.body?.cancel();

  // One second later (test clock) exactly one more call is admitted, and it records the use.
  w.t.advance(1000);
  const again = await rawMcpPost(w.url, w.seeker.key, callBody(33), legacyHeaders);
  assert.equal(again.status, 200);
  await again.body?.cancel();
  assert.ok((await lastUsed(w.seeker.keyId))!.getTime() > old.getTime());
  const refused = await rawMcpPost(w.url, w.seeker.key, callBody(34), legacyHeaders);
  assert.equal(refused.status, 429);
  await refused.body?.cancel();
});

Deno.test("unauthenticated calls are refused with 401 before any token is taken", async () => {
  const res = await rawMcpPost(w.url, undefined, initializeRequest("2025-06-18"));
  assert.equal(res.status, 401);
  await res.body?.cancel();
});
