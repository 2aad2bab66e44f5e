/**
 * The direct answer to plain 2026-07-28 `tools/call` requests (mcp/direct_call.ts) against the SDK's own answer:
 * the same requests go to `directToolCall` and to the SDK handler the endpoint uses, and the two responses must be
 * identical to the byte (status, media type, body), for results, domain errors and arguments failing the input
 * schema. Requests outside the plain shape are left to the SDK with nothing run, and what the real modern client
 * sends is in the plain shape.
 */
import assert from "node:assert/strict";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { createMcpHandler, type McpHttpHandler } from "@modelcontextprotocol/server";
import { z } from "zod";
import { apiKeyPrincipal } from "../auth/api_keys.ts";
import type { Principal } from "../auth/principal.ts";
import { seedSample } from "../catalogue/seed.ts";
import { authInfoOf } from "../mcp/context.ts";
import { DIRECT_REVISION, directToolCall } from "../mcp/direct_call.ts";
import { createServer, SEEKER_SERVER_INFO, type Surface, surfaceFor, surfaceOf } from "../mcp/servers.ts";
import { addTool, READ_ONLY, ToolSet } from "../mcp/tools/define.ts";
import { toolCall } from "../bench/mcp.ts";
import { mcpWorld } from "./mcp_helpers.ts";

const w = await mcpWorld();
await seedSample(w.tdb.db, { count: 30, seed: 3 });
const deps = w.t.deps;
const seeker = await principal(w.seeker.key);
const provider = await principal(w.provider.key);
const seekerSurface = surfaceFor(deps, "suchen");
const providerSurface = surfaceFor(deps, "lesen");

async function principal(key: string): Promise<Principal> {
  const found = await apiKeyPrincipal(deps.db, key);
  if (!found) throw new Error("test key not valid");
  return found.principal;
}

/** Both ways of answering on one surface: the direct path and the SDK handler the endpoint uses. */
interface Side {
  surface: Surface;
  sdk: McpHttpHandler;
}

function side(surface: Surface): Side {
  return { surface, sdk: createMcpHandler(() => createServer(surface, deps), { legacy: "stateless" }) };
}

/** A plain modern tools/call, as the v2 client sends it. */
function call(name: string, args: unknown, id: string | number = 7): Record<string, unknown> {
  return toolCall(name, args, id) as Record<string, unknown>;
}

function headersFor(body: Record<string, unknown>, extra: Record<string, string> = {}): Headers {
  const params = body.params as { name?: string } | undefined;
  return new Headers({
    "content-type": "application/json",
    accept: "application/json, text/event-stream",
    "mcp-protocol-version": DIRECT_REVISION,
    "mcp-method": String(body.method),
    ...(params?.name === undefined ? {} : { "mcp-name": params.name }),
    ...extra,
  });
}

interface Answer {
  status: number;
  type: string | null;
  text: string;
}

async function answer(res: Response): Promise<Answer> {
  return { status: res.status, type: res.headers.get("content-type"), text: await res.text() };
}

/** Both answers to `body`; the direct one must exist. */
async function bothAnswers(
  side: Side,
  who: Principal,
  body: Record<string, unknown>,
): Promise<{ direct: Answer; sdk: Answer }> {
  const headers = headersFor(body);
  const direct = await directToolCall(side.surface, headers, body, who);
  assert.ok(direct, "the plain call is answered directly");
  const request = new Request(w.url, { method: "POST", headers });
  const sdk = await side.sdk.fetch(request, { authInfo: authInfoOf(who, "req-1"), parsedBody: body });
  return { direct: await answer(direct), sdk: await answer(sdk) };
}

const seekerSide = side(seekerSurface);
const providerSide = side(providerSurface);

Deno.test("direct tools/call: the same bytes as the SDK for results and domain errors", async (t) => {
  const cases: Array<[string, Side, Principal, Record<string, unknown>]> = [
    ["seeker get_property", seekerSide, seeker, call("get_property", { id: w.listingId })],
    ["seeker get_property, string id", seekerSide, seeker, call("get_property", { id: w.listingId }, "a-b")],
    ["seeker get_property unknown", seekerSide, seeker, call("get_property", { id: crypto.randomUUID() })],
    ["seeker get_property not a uuid", seekerSide, seeker, call("get_property", { id: "nope" })],
    ["seeker search", seekerSide, seeker, call("search_properties", { city: "Leipzig", page_size: 5 })],
    ["seeker search, no arguments", seekerSide, seeker, call("search_properties", undefined)],
    ["seeker get_property, no arguments", seekerSide, seeker, call("get_property", undefined)],
    ["seeker get_property, id a number", seekerSide, seeker, call("get_property", { id: 5 })],
    ["seeker get_property, NUL in id", seekerSide, seeker, call("get_property", { id: "a\u0000" })],
    ["seeker search, page_size a word", seekerSide, seeker, call("search_properties", { page_size: "x" })],
    [
      "seeker search min > max",
      seekerSide,
      seeker,
      call("search_properties", { min_price: 9, max_price: 1 }),
    ],
    ["seeker list_inquiries", seekerSide, seeker, call("list_inquiries", {})],
    ["seeker list_saved_searches", seekerSide, seeker, call("list_saved_searches", {})],
    ["provider list_properties", providerSide, provider, call("list_properties", {})],
    ["provider get_property", providerSide, provider, call("get_property", { id: w.listingId })],
    ["provider list_viewings", providerSide, provider, call("list_viewings", {})],
  ];
  for (const [label, side, who, body] of cases) {
    await t.step(label, async () => {
      const { direct, sdk } = await bothAnswers(side, who, body);
      assert.equal(direct.status, 200);
      assert.deepEqual(direct, sdk);
    });
  }
  const parsed = JSON.parse((await bothAnswers(seekerSide, seeker, cases[0]![3])).direct.text);
  assert.equal(parsed.id, 7);
  assert.equal(parsed.result.structuredContent.id, w.listingId);
  assert.deepEqual(parsed.result._meta, { "io.modelcontextprotocol/serverInfo": SEEKER_SERVER_INFO });
  const missing = JSON.parse((await bothAnswers(seekerSide, seeker, cases[2]![3])).direct.text);
  assert.equal(missing.result.isError, true);
  assert.equal(missing.result.content[0].text, JSON.stringify({ error: "not_found" }));
  const invalid = JSON.parse(
    (await bothAnswers(seekerSide, seeker, call("get_property", { id: 5 }))).direct.text,
  );
  assert.equal(invalid.result.content[0].text, JSON.stringify({ error: "invalid_arguments" }));
  assert.match(invalid.result.content[1].text, /Invalid arguments for tool get_property: id: /);
});

/** A seeker tool set with one tool whose answers can be set, and a count of its runs. */
function probeServing(data: () => Record<string, unknown>): { side: Side; runs: () => number } {
  let runs = 0;
  const tools = new ToolSet();
  addTool(tools, deps, {
    name: "probe",
    title: "Probe",
    description: "Test tool.",
    input: z.object({ n: z.number().int() }),
    output: z.object({ n: z.number().int(), word: z.string() }),
    annotations: READ_ONLY,
  }, () => {
    runs++;
    return Promise.resolve({ data: data() as { n: number; word: string }, text: "probe" });
  });
  return { side: side(surfaceOf("suchen", tools)), runs: () => runs };
}

Deno.test("direct tools/call: structured content that fails the output schema is worded as the SDK words it", async () => {
  const probe = probeServing(() => ({ n: 1.5, word: 3 }));
  const { direct, sdk } = await bothAnswers(probe.side, seeker, call("probe", { n: 1 }));
  assert.deepEqual(direct, sdk);
  const result = JSON.parse(direct.text).result;
  assert.equal(result.isError, true);
  assert.equal(result.content[0].text, JSON.stringify({ error: "internal_error" }));
  assert.match(
    result.content[1].text,
    /Output validation error: Invalid structured content for tool probe: n: /,
  );
  assert.equal(probe.runs(), 2);
});

Deno.test("direct tools/call: anything outside the plain shape is left to the SDK, with nothing run", async () => {
  const probe = probeServing(() => ({ n: 1, word: "eins" }));
  const plain = call("probe", { n: 1 });
  const params = plain.params as Record<string, unknown>;
  const meta = params._meta as Record<string, unknown>;
  const variants: Array<[string, Record<string, unknown>, Record<string, string>?]> = [
    ["an unknown tool", call("nope", {})],
    ["another method", { ...plain, method: "tools/list" }],
    ["a notification (no id)", { jsonrpc: "2.0", method: "tools/call", params }],
    ["a null id", { ...plain, id: null }],
    ["a fractional id", { ...plain, id: 1.5 }],
    ["an extra top-level key", { ...plain, extra: 1 }],
    ["request state", { ...plain, params: { ...params, requestState: "s" } }],
    ["a task request", { ...plain, params: { ...params, task: { ttl: 1000 } } }],
    ["a progress token", { ...plain, params: { ...params, _meta: { ...meta, progressToken: 1 } } }],
    ["input responses", { ...plain, params: { ...params, inputResponses: {} } }],
    ["no envelope", { ...plain, params: { name: "probe", arguments: { n: 1 } } }],
    ["an older revision in the envelope", {
      ...plain,
      params: { ...params, _meta: { ...meta, "io.modelcontextprotocol/protocolVersion": "2025-11-25" } },
    }],
    ["client capabilities that are not an object", {
      ...plain,
      params: { ...params, _meta: { ...meta, "io.modelcontextprotocol/clientCapabilities": 5 } },
    }],
    ["arguments that are a list", call("probe", [1])],
    ["the version header of another revision", plain, { "mcp-protocol-version": "2025-11-25" }],
    ["an Mcp-Name header naming another tool", plain, { "mcp-name": "get_property" }],
    ["an Mcp-Method header naming another method", plain, { "mcp-method": "tools/list" }],
  ];
  for (const [label, body, extra] of variants) {
    const res = await directToolCall(probe.side.surface, headersFor(body, extra), body, seeker);
    assert.equal(res, undefined, label);
  }
  assert.equal(
    await directToolCall(probe.side.surface, headersFor(plain), [plain], seeker),
    undefined,
    "a batch",
  );
  assert.equal(probe.runs(), 0);
  assert.ok(await directToolCall(probe.side.surface, headersFor(plain), plain, seeker));
  assert.equal(probe.runs(), 1);
});

Deno.test("direct tools/call: the real 2026-07-28 client's calls are in the plain shape", async () => {
  const posted: Array<{ headers: Headers; body: Record<string, unknown> }> = [];
  const capture = async (input: string | URL | Request, init?: RequestInit) => {
    const request = new Request(input, init);
    if (request.method === "POST") {
      const body = JSON.parse(await request.clone().text());
      if (body.method === "tools/call") posted.push({ headers: request.headers, body });
    }
    return await fetch(request);
  };
  const client = new Client({ name: "direct-real", version: "1.0.0" }, {
    versionNegotiation: { mode: { pin: DIRECT_REVISION } },
  });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(w.url), {
      requestInit: { headers: { Authorization: `Bearer ${w.seeker.key}` } },
      fetch: capture,
    }),
  );
  try {
    const got = await client.callTool({ name: "get_property", arguments: { id: w.listingId } });
    assert.equal((got.structuredContent as { id: string }).id, w.listingId);
    await client.callTool({ name: "search_properties", arguments: { city: "Leipzig" } });
  } finally {
    await client.close();
  }
  assert.equal(posted.length, 2);
  for (const { headers, body } of posted) {
    const res = await directToolCall(seekerSurface, headers, body, seeker);
    assert.ok(res, `answered directly: ${JSON.stringify(body)}`);
    assert.equal(res.status, 200);
    await res.body?.cancel();
  }
});

/** The TypeScript files under `dir`, recursively. */
async function sourceFiles(dir: URL): Promise<URL[]> {
  const found: URL[] = [];
  for await (const entry of Deno.readDir(dir)) {
    const url = new URL(entry.name + (entry.isDirectory ? "/" : ""), dir);
    if (entry.isDirectory) found.push(...await sourceFiles(url));
    else if (entry.name.endsWith(".ts")) found.push(url);
  }
  return found;
}

Deno.test("the MCP adapter uses the SDK's public API: no private members, no objects cast to a Request", async () => {
  const forbidden = [
    /\._[A-Za-z]/, // the SDK's underscore members (_registeredTools, _toolInputSchemaJson, …)
    /\b(setToolRequestHandlers|toolInputSchemaJson|createToolError|validateToolInput|resolveScopeChallenge)\b/,
    /\bas Request\b/,
  ];
  for (const file of await sourceFiles(new URL("../mcp/", import.meta.url))) {
    const lines = (await Deno.readTextFile(file)).split("\n");
    const hits = lines.filter((line) => forbidden.some((f) => f.test(line)));
    assert.deepEqual(hits, [], file.pathname);
  }
});

Deno.test({
  name: "direct tools/call: cleanup",
  fn: async () => await w.close(),
  sanitizeResources: false,
  sanitizeOps: false,
});
