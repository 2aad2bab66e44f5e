/**
 * The MCP endpoint with API keys, through real clients of both protocol eras: `@modelcontextprotocol/client` 2.4
 * pinned to 2026-07-28 and in legacy mode, and `@modelcontextprotocol/sdk` 1.32. A provider key lands on the
 * provider server, a seeker key on the seeker server; `get_property` returns the REST listing exactly; bad keys
 * get 401 with a Bearer challenge.
 */
import { LISTING_FIELDS } from "../catalogue/listing.ts";
import assert from "node:assert/strict";
import { createApiKey, generateApiKey, revokeApiKey } from "../auth/api_keys.ts";
import { endMembership, startMembership } from "../db/accounts.ts";
import { PROVIDER_SERVER_NAME, SEEKER_SERVER_NAME } from "../mcp/servers.ts";
import {
  CLIENT_KINDS,
  type ClientKind,
  connectClient,
  initializeRequest,
  mcpWorld,
  rawMcpPost,
  rpcMessages,
} from "./mcp_helpers.ts";
import { fileWorld } from "./helpers.ts";

const w = await fileWorld(() => mcpWorld());
const metadataUrl = `${w.origin}/.well-known/oauth-protected-resource/mcp`;

const rest = await fetch(`${w.origin}/api/public/properties/${w.listingId}`);
assert.equal(rest.status, 200);
const restListing = await rest.json();

for (const kind of CLIENT_KINDS) {
  for (const who of ["provider", "seeker"] as const) {
    Deno.test(`${kind}: a ${who} key reaches the ${who} server and get_property`, async () => {
      const client = await connectClient(kind, w.url, w[who].key);
      try {
        assert.equal(client.serverName, who === "provider" ? PROVIDER_SERVER_NAME : SEEKER_SERVER_NAME);
        const { tools } = await client.listTools();
        const tool = tools.find((t) => t.name === "get_property");
        assert.ok(tool, "get_property is listed");
        assert.deepEqual(
          {
            readOnlyHint: tool.annotations?.readOnlyHint,
            idempotentHint: tool.annotations?.idempotentHint,
            openWorldHint: tool.annotations?.openWorldHint,
          },
          { readOnlyHint: true, idempotentHint: true, openWorldHint: false },
        );
        assert.ok(tool.outputSchema, "an output schema is advertised");

        const res = await client.callTool("get_property", { id: w.listingId });
        assert.notEqual(res.isError, true);
        // The provider's own get_property answers with more (status, reference, contact …) than the public view.
        const publicPart = Object.fromEntries(LISTING_FIELDS.map((f) => [f, res.structuredContent[f]]));
        assert.deepEqual(publicPart, restListing);
        assert.equal(res.content[0].type, "text");
        assert.match(res.content[0].text, new RegExp(w.listingId));

        for (const id of [crypto.randomUUID(), "kein-objekt", ""]) {
          const nf = await client.callTool("get_property", { id });
          assert.equal(nf.isError, true, `isError for ${JSON.stringify(id)}`);
          assert.deepEqual(JSON.parse(nf.content[0].text), { error: "not_found" });
          assert.equal(nf.structuredContent, undefined);
        }
      } finally {
        await client.close();
      }
    });
  }
}

/** Asserts a 401 with a Bearer challenge naming the resource metadata (and `invalid_token` when `invalid`). */
async function assert401(key: string | undefined, invalid: boolean, label: string): Promise<void> {
  const res = await rawMcpPost(w.url, key, initializeRequest("2025-06-18"));
  assert.equal(res.status, 401, label);
  assert.deepEqual(await res.json(), { error: invalid ? "invalid_token" : "unauthorized" }, label);
  const challenge = res.headers.get("www-authenticate") ?? "";
  assert.match(challenge, /^Bearer /, label);
  assert.ok(challenge.includes(`resource_metadata="${metadataUrl}"`), `${label}: ${challenge}`);
  assert.equal(challenge.includes('error="invalid_token"'), invalid, `${label}: ${challenge}`);
}

/** Asserts that a client of `kind` cannot connect with `key` and that the reason is the 401. */
async function assertRefused(kind: ClientKind, key: string, label: string): Promise<void> {
  await assert.rejects(connectClient(kind, w.url, key), (e: unknown) => {
    const text = `${e instanceof Error ? `${e.name} ${e.message}` : String(e)} ${JSON.stringify(e)}`;
    assert.match(text, /401|unauthori[sz]ed|invalid_token/i, `${kind} ${label}: ${text}`);
    return true;
  });
}

Deno.test("no credentials: 401 with resource metadata", async () => {
  await assert401(undefined, false, "no header");
  await assert401("", false, "empty bearer");
  const basic = await fetch(w.url, { method: "POST", headers: { authorization: "Basic eDp5" }, body: "{}" });
  assert.equal(basic.status, 401);
  await basic.body?.cancel();
});

Deno.test("bad keys: 401 invalid_token on raw requests and in every client", async () => {
  const providerKey = w.provider.key;
  const body = providerKey.slice(5, 45);
  const flipped = (body[0] === "a" ? "b" : "a") + body.slice(1);
  const bad: Array<[string, string]> = [
    ["bad checksum", `immo_${flipped}${providerKey.slice(45)}`],
    ["too short", providerKey.slice(0, 30)],
    ["wrong prefix", `immx_${providerKey.slice(5)}`],
    ["unknown well-formed key", generateApiKey()],
  ];
  for (const [label, key] of bad) {
    await assert401(key, true, label);
    for (const kind of CLIENT_KINDS) {
      await assertRefused(kind, key, label);
    }
  }
});

Deno.test("revoked keys and removed providers: 401 on both servers", async () => {
  const p2 = await createApiKey(w.tdb.db, w.provider.userId, "wird widerrufen");
  const s2 = await createApiKey(w.tdb.db, w.seeker.userId, "wird widerrufen");
  for (const k of [p2.key, s2.key]) {
    assert.equal((await rawMcpPost(w.url, k, initializeRequest("2025-06-18"))).ok, true);
  }
  assert.ok(await revokeApiKey(w.tdb.db, w.provider.userId, p2.id));
  assert.ok(await revokeApiKey(w.tdb.db, w.seeker.userId, s2.id));
  for (const [label, key] of [["revoked provider key", p2.key], ["revoked seeker key", s2.key]]) {
    await assert401(key, true, label!);
    for (const kind of CLIENT_KINDS) await assertRefused(kind, key!, label!);
  }

  // A provider whose membership ended is refused at once, and admitted again after rejoining.
  assert.ok(await endMembership(w.tdb.db, w.provider.userId));
  try {
    await assert401(w.provider.key, true, "removed provider");
    for (const kind of CLIENT_KINDS) {
      await assertRefused(kind, w.provider.key, "removed provider");
    }
    // The seeker is unaffected.
    const c = await connectClient("v2-modern", w.url, w.seeker.key);
    assert.equal(c.serverName, SEEKER_SERVER_NAME);
    await c.close();
  } finally {
    await startMembership(w.tdb.db, w.provider.userId, w.officeId);
  }
  const back = await connectClient("v2-modern", w.url, w.provider.key);
  assert.equal(back.serverName, PROVIDER_SERVER_NAME);
  await back.close();
});

Deno.test("raw 2024-11-05 initialize is answered on both servers", async () => {
  for (const [key, name] of [[w.provider.key, PROVIDER_SERVER_NAME], [w.seeker.key, SEEKER_SERVER_NAME]]) {
    const res = await rawMcpPost(w.url, key, initializeRequest("2024-11-05"));
    assert.equal(res.status, 200);
    // deno-lint-ignore no-explicit-any
    const [msg] = await rpcMessages(res) as any[];
    assert.equal(msg.id, 1);
    assert.equal(msg.result.protocolVersion, "2024-11-05");
    assert.equal(msg.result.serverInfo.name, name);
    assert.ok(msg.result.capabilities.tools);
    assert.match(msg.result.instructions, /Objekt/);
    assert.match(msg.result.instructions, /listing/);
  }
});

Deno.test("raw 2026-07-28 server/discover names the server and lists the revisions", async () => {
  const res = await rawMcpPost(w.url, w.seeker.key, {
    jsonrpc: "2.0",
    id: 7,
    method: "server/discover",
    params: {
      _meta: {
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientInfo": { name: "raw-test", version: "1.0.0" },
        "io.modelcontextprotocol/clientCapabilities": {},
      },
    },
  }, { "mcp-protocol-version": "2026-07-28", "mcp-method": "server/discover" });
  assert.equal(res.status, 200);
  // deno-lint-ignore no-explicit-any
  const [msg] = await rpcMessages(res) as any[];
  const text = JSON.stringify(msg.result);
  assert.ok(text.includes(SEEKER_SERVER_NAME), text);
  assert.ok(text.includes("2026-07-28"), text);
});

Deno.test("GET on /mcp with a valid key: 405 (stateless legacy serving)", async () => {
  const res = await fetch(w.url, {
    headers: { authorization: `Bearer ${w.seeker.key}`, accept: "text/event-stream" },
  });
  assert.equal(res.status, 405);
  await res.body?.cancel();
});
