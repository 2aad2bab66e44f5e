/** Shared set-up of the MCP tests: an app on a real loopback port, people with keys, one listing, clients. */
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
// @ts-types="@modelcontextprotocol/sdk/dist/esm/client/index.d.ts"
import { Client as V1Client } from "@modelcontextprotocol/sdk/client/index.js";
// @ts-types="@modelcontextprotocol/sdk/dist/esm/client/streamableHttp.d.ts"
import { StreamableHTTPClientTransport as V1Transport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { createApiKey } from "../auth/api_keys.ts";
import { prng, sampleListing } from "../catalogue/sample.ts";
import { insertUser, startMembership } from "../db/accounts.ts";
import { insertListings } from "../db/listings.ts";
import { ensureOffice } from "../db/offices.ts";
import { openTestDb, serveTestApp, type TestApp, type TestDb } from "./helpers.ts";

/** A served test app with a provider and a seeker, one API key each, and one published listing. */
export interface McpWorld {
  tdb: TestDb;
  t: TestApp;
  /** Origin of the served app, e.g. `http://127.0.0.1:43210`. */
  origin: string;
  /** `${origin}/mcp`. */
  url: string;
  officeId: string;
  provider: { userId: string; key: string; keyId: string };
  seeker: { userId: string; key: string; keyId: string };
  listingId: string;
  /** `Mcp-Method` and `MCP-Protocol-Version` headers of every request to `/mcp` so far (null when absent). */
  seen: Array<{ method: string | null; version: string | null }>;
  /** Stops the server and closes KV and database. */
  close(): Promise<void>;
}

/** Builds an {@linkcode McpWorld}; `env` is passed to `testApp` (e.g. `RATE_LIMIT: "on"`). */
export async function mcpWorld(env: Record<string, string> = {}): Promise<McpWorld> {
  const tdb = await openTestDb();
  const seen: McpWorld["seen"] = [];
  const served = await serveTestApp(tdb.db, env, (fetch) => (req, info) => {
    if (new URL(req.url).pathname === "/mcp") {
      seen.push({ method: req.headers.get("mcp-method"), version: req.headers.get("mcp-protocol-version") });
    }
    return fetch(req, info);
  });
  const { origin, app: t } = served;

  const officeId = await ensureOffice(tdb.db, "Testbüro MCP");
  const providerId = await insertUser(tdb.db, {
    email: "anbieter@example.org",
    name: "Anbieter",
    role: "seeker",
  });
  await startMembership(tdb.db, providerId, officeId);
  const seekerId = await insertUser(tdb.db, {
    email: "suchende@example.org",
    name: "Suchende",
    role: "seeker",
  });
  const pk = await createApiKey(tdb.db, providerId, "Test Anbieter");
  const sk = await createApiKey(tdb.db, seekerId, "Test Suche");
  const [listingId] = await insertListings(tdb.db, officeId, [
    { ...sampleListing(3, prng(11), Date.now()), beispiel: true, status: "published" },
  ]);
  return {
    tdb,
    t,
    origin,
    url: `${origin}/mcp`,
    officeId,
    provider: { userId: providerId, key: pk.key, keyId: pk.id },
    seeker: { userId: seekerId, key: sk.key, keyId: sk.id },
    listingId: listingId!,
    seen,
    async close() {
      await served.close();
      await tdb.close();
    },
  };
}

/** Which client and protocol era a test uses. */
export type ClientKind = "v2-modern" | "v2-legacy" | "v1";

/** The three client configurations every MCP test runs with. */
export const CLIENT_KINDS: ClientKind[] = ["v2-modern", "v2-legacy", "v1"];

/** A connected MCP client of `kind` sending `Authorization: Bearer <key>`. */
export interface ConnectedClient {
  kind: ClientKind;
  /** The server's name from `initialize` (legacy) or `server/discover` (modern). */
  serverName: string | undefined;
  // deno-lint-ignore no-explicit-any
  listTools(): Promise<{ tools: Array<{ name: string; annotations?: any; outputSchema?: any }> }>;
  // deno-lint-ignore no-explicit-any
  callTool(name: string, args: Record<string, unknown>): Promise<any>;
  close(): Promise<void>;
}

/** Connects a client of `kind` to `url` with `key` as bearer; rejects when the connection is refused. */
export async function connectClient(kind: ClientKind, url: string, key: string): Promise<ConnectedClient> {
  const requestInit = { headers: { Authorization: `Bearer ${key}` } };
  if (kind === "v1") {
    const client = new V1Client({ name: "mcp-test-v1", version: "1.0.0" });
    await client.connect(new V1Transport(new URL(url), { requestInit }));
    return {
      kind,
      serverName: client.getServerVersion()?.name,
      listTools: () => client.listTools(),
      callTool: (name, args) => client.callTool({ name, arguments: args }),
      close: () => client.close(),
    };
  }
  const client = new Client(
    { name: "mcp-test-v2", version: "1.0.0" },
    kind === "v2-modern" ? { versionNegotiation: { mode: { pin: "2026-07-28" } } } : {},
  );
  await client.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit }));
  const expectedEra = kind === "v2-modern" ? "modern" : "legacy";
  if (client.getProtocolEra() !== expectedEra) {
    throw new Error(`expected era ${expectedEra}, got ${client.getProtocolEra()}`);
  }
  return {
    kind,
    serverName: client.getServerVersion()?.name,
    listTools: () => client.listTools(),
    callTool: (name, args) => client.callTool({ name, arguments: args }),
    close: () => client.close(),
  };
}

/** POSTs one JSON-RPC message to the MCP endpoint with the given bearer and extra headers. */
export async function rawMcpPost(
  url: string,
  key: string | undefined,
  body: unknown,
  headers: Record<string, string> = {},
): Promise<Response> {
  return await fetch(url, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      ...(key === undefined ? {} : { authorization: `Bearer ${key}` }),
      ...headers,
    },
    body: JSON.stringify(body),
  });
}

/** The JSON-RPC messages of a response that is either a JSON body or an SSE stream. */
export async function rpcMessages(res: Response): Promise<unknown[]> {
  const text = await res.text();
  if ((res.headers.get("content-type") ?? "").includes("text/event-stream")) {
    return text.split("\n").filter((l) => l.startsWith("data:")).map((l) => JSON.parse(l.slice(5)));
  }
  return [JSON.parse(text)];
}

/** A legacy `initialize` request for protocol `version`. */
export function initializeRequest(version: string, id = 1): unknown {
  return {
    jsonrpc: "2.0",
    id,
    method: "initialize",
    params: {
      protocolVersion: version,
      capabilities: {},
      clientInfo: { name: "raw-test", version: "1.0.0" },
    },
  };
}

/** The tools of the provider server named by the issue, sorted. */
export const PROVIDER_TOOLS = [
  "approve_proposal",
  "cancel_viewing_slot",
  "create_property",
  "create_viewing_slots",
  "delete_photo",
  "discard_proposal",
  "edit_and_approve_proposal",
  "get_inquiry",
  "get_property",
  "get_proposal",
  "import_openimmo",
  "list_files",
  "list_inquiries",
  "list_properties",
  "list_proposals",
  "list_social_messages",
  "list_viewings",
  "move_viewing_slot",
  "publish_property",
  "reject_inquiry",
  "reply_to_inquiry",
  "reserve_property",
  "set_proposal_template",
  "update_photo",
  "update_property",
  "upload_file",
  "upload_photo",
  "withdraw_property",
];

/** The tools of the seeker server named by the issue, sorted. */
export const SEEKER_TOOLS = [
  "book_viewing",
  "cancel_viewing",
  "create_saved_search",
  "delete_saved_search",
  "get_inquiry",
  "get_location_baseline",
  "get_property",
  "get_saved_search_matches",
  "list_inquiries",
  "list_saved_searches",
  "list_viewing_slots",
  "search_properties",
  "send_inquiry",
  "send_message",
];
