/**
 * JSON-RPC batches on `/mcp` (docs/contract.md §4.1, §9.1): every message of a batch takes a token of the account's
 * MCP bucket (30 at once, then 1 per second), so a batch cannot run more calls than the same messages sent one by
 * one. Where the bucket holds fewer tokens than the batch has messages, the first messages are served and each
 * request beyond answers the JSON-RPC error `-32000` with `data: {error: "rate_limited"}`. Revisions that removed
 * batches (2025-06-18 and later) get HTTP 400 with the JSON-RPC error `-32600` (Invalid Request) and `id: null`.
 * Checked with raw HTTP and with the MCP SDK 1.32 client's own transport.
 */
import assert from "node:assert/strict";
// @ts-types="@modelcontextprotocol/sdk/dist/esm/client/index.d.ts"
import { Client as V1Client } from "@modelcontextprotocol/sdk/client/index.js";
// @ts-types="@modelcontextprotocol/sdk/dist/esm/client/streamableHttp.d.ts"
import { StreamableHTTPClientTransport as V1Transport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { createApiKey } from "../auth/api_keys.ts";
import { insertUser } from "../db/accounts.ts";
import { mcpWorld, rawMcpPost, rpcMessages } from "./mcp_helpers.ts";
import { fileWorld } from "./helpers.ts";

const w = await fileWorld(() => mcpWorld({ RATE_LIMIT: "on" }));

let accounts = 0;
/** The API key of a new seeker account, so that each test starts with a full bucket of its own. */
async function freshKey(): Promise<string> {
  accounts++;
  const userId = await insertUser(w.tdb.db, {
    email: `batch${accounts}@example.org`,
    name: `Batch ${accounts}`,
    role: "seeker",
  });
  return (await createApiKey(w.tdb.db, userId, "Batch")).key;
}

/** A `tools/call` of get_property with request id `id`. */
function call(id: number): Record<string, unknown> {
  return {
    jsonrpc: "2.0",
    id,
    method: "tools/call",
    params: { name: "get_property", arguments: { id: w.listingId } },
  };
}

/** `n` calls with the ids 1 … n. */
function calls(n: number): Record<string, unknown>[] {
  return Array.from({ length: n }, (_, i) => call(i + 1));
}

// deno-lint-ignore no-explicit-any
type Rpc = any;

/** The JSON-RPC answers of a response, flattened (an SSE event or a JSON body may carry an array). */
async function answers(res: Response): Promise<Rpc[]> {
  return (await rpcMessages(res)).flat();
}

const results = (msgs: Rpc[]) => msgs.filter((m) => m.result !== undefined);
const refusals = (msgs: Rpc[]) => msgs.filter((m) => m.error !== undefined);

/** Whether one more single call of `key` is admitted (it takes a token when it is). */
async function admitted(key: string): Promise<boolean> {
  const res = await rawMcpPost(w.url, key, call(999), { "mcp-protocol-version": "2025-03-26" });
  await res.body?.cancel();
  assert.ok(res.status === 200 || res.status === 429, `status ${res.status}`);
  return res.status === 200;
}

Deno.test("a batch of 2025-03-26 takes one token per message: 40 messages, 30 tokens, 30 results", async () => {
  const key = await freshKey();
  const res = await rawMcpPost(w.url, key, calls(40), { "mcp-protocol-version": "2025-03-26" });
  assert.equal(res.status, 200);
  const msgs = await answers(res);
  assert.equal(msgs.length, 40, "one answer per request");
  const ok = results(msgs);
  assert.equal(ok.length, 30);
  assert.deepEqual(ok.map((m) => m.id).sort((a, b) => a - b), Array.from({ length: 30 }, (_, i) => i + 1));
  for (const m of ok) assert.equal(m.result.isError, undefined, JSON.stringify(m));
  const refused = refusals(msgs);
  assert.deepEqual(
    refused.map((m) => m.id).sort((a, b) => a - b),
    Array.from({ length: 10 }, (_, i) => i + 31),
  );
  for (const m of refused) {
    assert.equal(m.error.code, -32000);
    assert.deepEqual(m.error.data, { error: "rate_limited" });
  }
  assert.equal(await admitted(key), false, "the bucket is empty: the next request is 429");
  w.t.advance(1000);
  assert.equal(await admitted(key), true, "one second later exactly one more");
  assert.equal(await admitted(key), false);
});

Deno.test("batches count like the same messages sent one by one (no header: 2025-03-26)", async () => {
  const key = await freshKey();
  const res = await rawMcpPost(w.url, key, calls(25));
  assert.equal(res.status, 200);
  assert.equal(results(await answers(res)).length, 25);
  let singles = 0;
  while (await admitted(key)) singles++;
  assert.equal(singles, 5, "25 + 5 = the burst of 30");
});

Deno.test("a batch on an empty bucket is 429 and runs nothing; notifications count too", async () => {
  const key = await freshKey();
  const initialized = { jsonrpc: "2.0", method: "notifications/initialized" };
  const first = await rawMcpPost(w.url, key, [initialized, ...calls(29)], {
    "mcp-protocol-version": "2024-11-05",
  });
  assert.equal(first.status, 200);
  assert.equal(results(await answers(first)).length, 29, "the notification took the 30th token");
  const res = await rawMcpPost(w.url, key, calls(3), { "mcp-protocol-version": "2024-11-05" });
  assert.equal(res.status, 429);
  assert.deepEqual(await res.json(), { error: "rate_limited" });
});

Deno.test("a batch whose served part holds only notifications still answers its refused requests", async () => {
  const key = await freshKey();
  const note = { jsonrpc: "2.0", method: "notifications/initialized" };
  const res = await rawMcpPost(w.url, key, [...Array(30).fill(note), call(1), call(2)], {
    "mcp-protocol-version": "2025-03-26",
  });
  assert.equal(res.status, 200);
  const msgs = await answers(res);
  assert.deepEqual(msgs.map((m) => [m.id, m.error?.code]), [[1, -32000], [2, -32000]]);
});

for (const revision of ["2025-06-18", "2025-11-25", "2026-07-28"]) {
  Deno.test(`protocol ${revision} removed batches: 400 with -32600 and id null, one token`, async () => {
    const key = await freshKey();
    const res = await rawMcpPost(w.url, key, calls(2), { "mcp-protocol-version": revision });
    assert.equal(res.status, 400);
    const body = await res.json();
    assert.equal(body.jsonrpc, "2.0");
    assert.equal(body.id, null);
    assert.equal(body.error.code, -32600);
    assert.match(body.error.message, new RegExp(`batch.*${revision}`, "i"));
    let left = 0;
    while (await admitted(key)) left++;
    assert.equal(left, 29, "the refused batch took one token, like any request");
  });
}

Deno.test("batches the SDK refuses as a whole answer 400 and cost one token each, whatever their size", async () => {
  const key = await freshKey();
  const init = {
    jsonrpc: "2.0",
    id: 0,
    method: "initialize",
    params: { protocolVersion: "2025-03-26", capabilities: {}, clientInfo: { name: "t", version: "1" } },
  };
  for (const body of [[], calls(101), [1, 2], [init, call(1)]]) {
    const res = await rawMcpPost(w.url, key, body, { "mcp-protocol-version": "2025-03-26" });
    assert.equal(res.status, 400, JSON.stringify(body).slice(0, 60));
    assert.equal((await res.json()).error.code, -32600);
  }
  let left = 0;
  while (await admitted(key)) left++;
  assert.equal(left, 26, "four requests, four tokens");
});

Deno.test("SDK 1.32 transport at 2025-03-26: a batch beyond the bucket gets no more results than tokens", async () => {
  const key = await freshKey();
  const transport = new V1Transport(new URL(w.url), {
    requestInit: { headers: { Authorization: `Bearer ${key}` } },
  });
  const got: Rpc[] = [];
  let done!: () => void;
  const all = new Promise<void>((r) => done = r);
  transport.onmessage = (m: Rpc) => {
    got.push(m);
    if (got.length === 35) done();
  };
  await transport.start();
  transport.setProtocolVersion("2025-03-26");
  await transport.send(calls(35) as Rpc);
  await all;
  assert.equal(results(got).length, 30);
  assert.equal(refusals(got).length, 5);
  for (const m of refusals(got)) assert.deepEqual(m.error.data, { error: "rate_limited" });
  await transport.close();
});

Deno.test("SDK 1.32 client negotiates 2025-11-25: its transport's batch is refused with HTTP 400", async () => {
  const key = await freshKey();
  const transport = new V1Transport(new URL(w.url), {
    requestInit: { headers: { Authorization: `Bearer ${key}` } },
  });
  const client = new V1Client({ name: "batch-test", version: "1.0.0" });
  await client.connect(transport);
  assert.equal(transport.protocolVersion, "2025-11-25");
  await assert.rejects(() => transport.send(calls(2) as Rpc), (e: Error & { code?: number }) => {
    assert.equal(e.code, 400);
    assert.match(e.message, /-32600/);
    return true;
  });
  const one = await client.callTool({ name: "get_property", arguments: { id: w.listingId } });
  assert.equal(one.isError, undefined, "single calls work as before");
  await client.close();
});
