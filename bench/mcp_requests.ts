/**
 * The requests of `bench:mcp`: the stateless 2026-07-28 `tools/call` bodies, wrk's request files of the REST and
 * the MCP runs, and the checks before measuring that compare each tool's answer with its REST twin.
 */
import { listingPath, type ListRequest } from "./mix.ts";
import { SORT_DEFAULT } from "../catalogue/sort.ts";

/** The MCP protocol revision the benchmark speaks. */
export const PROTOCOL = "2026-07-28";
/** Path of the MCP endpoint. */
export const MCP_PATH = "/mcp";

/** Which API a run loads. */
export type Api = "rest" | "mcp";
/** `search` = list / search_properties, `get` = single listing / get_property. */
export type Op = "search" | "get";

/** The `_meta` of every request: protocol revision, client info and capabilities of a stateless client. */
const META = {
  "io.modelcontextprotocol/protocolVersion": PROTOCOL,
  "io.modelcontextprotocol/clientInfo": { name: "bench-mcp", version: "1.0.0" },
  "io.modelcontextprotocol/clientCapabilities": {},
};

/**
 * The `tools/call` arguments of `search_properties` for a list request: exactly the filter's fields, with the
 * sort order by its name (`sort`, as the tool takes it) instead of the database order the filter carries.
 */
export function searchArguments(r: ListRequest): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(r.filter)) if (v !== undefined && k !== "order") out[k] = v;
  if (r.sort !== SORT_DEFAULT) out.sort = r.sort;
  return out;
}

/** A stateless 2026-07-28 `tools/call` request as the @modelcontextprotocol/client 2.4 sends it. */
export function toolCall(name: string, args: unknown, id: string | number): unknown {
  return {
    jsonrpc: "2.0",
    id,
    method: "tools/call",
    params: {
      name,
      arguments: args,
      _meta: META,
    },
  };
}

/** The headers of an MCP POST. */
function mcpHeaders(key: string, method: string, name?: string): Record<string, string> {
  return {
    authorization: `Bearer ${key}`,
    "content-type": "application/json",
    accept: "application/json, text/event-stream",
    "mcp-protocol-version": PROTOCOL,
    "mcp-method": method,
    ...(name ? { "mcp-name": name } : {}),
  };
}

/** The wrk request files of the four runs, one request a line (see mcp.lua). */
export function requestFiles(list: ListRequest[], ids: string[]): Record<`${Api}-${Op}`, string> {
  const post = (name: string, args: Record<string, unknown>, i: number) =>
    `POST\t${MCP_PATH}\t${name}\t${JSON.stringify(toolCall(name, args, i + 1))}`;
  return {
    "rest-search": list.map((r) => `GET\t${r.path}`).join("\n") + "\n",
    "rest-get": ids.map((id) => `GET\t${listingPath(id)}`).join("\n") + "\n",
    "mcp-search": list.map((r, i) => post("search_properties", searchArguments(r), i)).join("\n") +
      "\n",
    "mcp-get": ids.map((id, i) => post("get_property", { id }, i)).join("\n") + "\n",
  };
}

// ---------------------------------------------------------------------------------------------------------------
// Checks before measuring

async function getJson(url: string): Promise<{ status: number; body: unknown }> {
  const res = await fetch(url);
  const text = await res.text();
  return { status: res.status, body: text.startsWith("{") ? JSON.parse(text) : text };
}

async function mcpPost(
  base: string,
  key: string,
  body: { method: string; params?: { name?: string } },
): Promise<{ status: number; msg: Record<string, unknown> }> {
  const res = await fetch(base + MCP_PATH, {
    method: "POST",
    headers: mcpHeaders(key, body.method, body.params?.name),
    body: JSON.stringify(body),
  });
  const text = await res.text();
  if (!res.ok) throw new Error(`POST /mcp ${body.method} answered ${res.status}: ${text.slice(0, 300)}`);
  const json = (res.headers.get("content-type") ?? "").includes("text/event-stream")
    ? JSON.parse(text.split("\n").filter((l) => l.startsWith("data:")).at(-1)!.slice(5))
    : JSON.parse(text);
  return { status: res.status, msg: json as Record<string, unknown> };
}

/** The structured content of a successful tool call; throws on a JSON-RPC error or an isError result. */
async function callTool(
  base: string,
  key: string,
  name: string,
  args: Record<string, unknown>,
): Promise<unknown> {
  const { msg } = await mcpPost(base, key, toolCall(name, args, 1) as { method: string });
  const result = msg.result as
    | { isError?: boolean; structuredContent?: unknown; content?: unknown }
    | undefined;
  if (!result) {
    throw new Error(`${name} ${JSON.stringify(args)}: JSON-RPC error ${JSON.stringify(msg.error)}`);
  }
  if (result.isError || result.structuredContent === undefined) {
    throw new Error(`${name} ${JSON.stringify(args)}: error result ${JSON.stringify(result.content)}`);
  }
  return result.structuredContent;
}

/** JSON with sorted keys, for comparing two answers regardless of key order. */
function canonical(v: unknown): string {
  return JSON.stringify(
    v,
    (_k, x) =>
      x && typeof x === "object" && !Array.isArray(x)
        ? Object.fromEntries(Object.entries(x).sort(([a], [b]) => a < b ? -1 : a > b ? 1 : 0))
        : x,
  );
}

/** The tools the seeker server lists. */
export async function listTools(base: string, key: string): Promise<string[]> {
  const { msg } = await mcpPost(base, key, {
    jsonrpc: "2.0",
    id: 1,
    method: "tools/list",
    params: { _meta: META },
  } as { method: string });
  const result = msg.result as { tools?: Array<{ name: string }> } | undefined;
  if (!result?.tools) throw new Error(`tools/list failed: ${JSON.stringify(msg).slice(0, 300)}`);
  return result.tools.map((t) => t.name);
}

/** Compares get_property with GET …/{id} for a few ids; throws unless both answer and agree. */
export async function checkGet(base: string, key: string, ids: string[]): Promise<string> {
  let identical = 0;
  for (const id of ids.slice(0, 5)) {
    const rest = await getJson(base + listingPath(id));
    if (rest.status !== 200) throw new Error(`GET ${listingPath(id)} answered ${rest.status}`);
    const mcp = await callTool(base, key, "get_property", { id });
    if ((mcp as { id?: string }).id !== id) throw new Error(`get_property ${id} returned another listing`);
    if (canonical(mcp) === canonical(rest.body)) identical++;
  }
  return `get_property: 5 of 5 ids answered, ${identical} of 5 identical to the REST body`;
}

/** Compares search_properties with the list endpoint for one request of every kind in the mix. */
export async function checkSearch(base: string, key: string, list: ListRequest[]): Promise<string> {
  const kinds = new Map<string, ListRequest>();
  for (const r of list) if (!kinds.has(r.kind)) kinds.set(r.kind, r);
  let identical = 0;
  for (const r of kinds.values()) {
    const rest = await getJson(base + r.path);
    if (rest.status !== 200) throw new Error(`GET ${r.path} answered ${rest.status}`);
    const mcp = await callTool(base, key, "search_properties", searchArguments(r));
    type P = { total: number; items: Array<{ id: string }> };
    const [a, b] = [rest.body as P, mcp as P];
    const same = a.total === b.total &&
      canonical(a.items.map((i) => i.id)) === canonical(b.items.map((i) => i.id));
    if (!same) {
      throw new Error(
        `search_properties ${JSON.stringify(searchArguments(r))}: total ${b.total} / ${b.items?.length} ` +
          `items, REST ${r.path}: total ${a.total} / ${a.items.length} items (or other ids)`,
      );
    }
    if (canonical(mcp) === canonical(rest.body)) identical++;
  }
  return `search_properties: ${kinds.size} of ${kinds.size} kinds of query with the same total and ids as REST, ` +
    `${identical} of ${kinds.size} identical to the REST body`;
}
