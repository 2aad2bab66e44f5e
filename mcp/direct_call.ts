/**
 * The direct answer to the commonest MCP request: one `tools/call` of protocol revision 2026-07-28, in the plain
 * shape every client sends (name, arguments and the per-request envelope, nothing else).
 *
 * The SDK serves such a call by building a server and a transport per request, validating the message against
 * its wire schemas and closing everything again; that machinery costs about as much as the tool itself. Here the
 * SDK still classifies the request (its exported `classifyInboundRequest`: era, envelope, header cross-checks),
 * and the call is answered by the same {@linkcode answerToolCall} as the servers' `tools/call` handler; the
 * response is the one the SDK gives, byte for byte (`tests/mcp_direct_call_test.ts` compares both on the same
 * requests).
 *
 * Anything else is left to the SDK: other methods and eras, batches, extra params or envelope keys (progress
 * tokens, request state, input responses), headers that differ from the body even by white space, unknown tools.
 */
import {
  type CallToolResult,
  classifyInboundRequest,
  CLIENT_CAPABILITIES_META_KEY,
  CLIENT_INFO_META_KEY,
  PROTOCOL_VERSION_META_KEY,
  SERVER_INFO_META_KEY,
} from "@modelcontextprotocol/server";
import type { Principal } from "../auth/principal.ts";
import type { Surface } from "./servers.ts";
import { answerToolCall, type DeclaredTool } from "./tools/define.ts";

/** The protocol revision answered directly. */
export const DIRECT_REVISION = "2026-07-28";

const BODY_KEYS = new Set(["jsonrpc", "id", "method", "params"]);
const PARAM_KEYS = new Set(["name", "arguments", "_meta"]);
const ENVELOPE_KEYS = new Set([
  PROTOCOL_VERSION_META_KEY,
  CLIENT_INFO_META_KEY,
  CLIENT_CAPABILITIES_META_KEY,
]);

/** A call this module answers: the request id, the tool and its raw arguments. */
interface PlainCall {
  id: string | number;
  tool: DeclaredTool;
  args: unknown;
}

/**
 * The answer to `body` (a parsed JSON-RPC message posted with `headers`) when it is a plain 2026-07-28
 * `tools/call` of a tool of `surface`; undefined otherwise, and then nothing has run.
 */
export async function directToolCall(
  surface: Surface,
  headers: Headers,
  body: unknown,
  principal: Principal,
  requestId?: string,
): Promise<Response | undefined> {
  const call = plainCall(surface, headers, body);
  if (!call) return undefined;
  const result = await answerToolCall(call.tool, call.args, principal, requestId);
  const message = {
    result: {
      ...wireOrder(result),
      resultType: "complete",
      _meta: { [SERVER_INFO_META_KEY]: surface.identity },
    },
    jsonrpc: "2.0",
    id: call.id,
  };
  return new Response(JSON.stringify(message), {
    status: 200,
    headers: { "content-type": "application/json" },
  });
}

/** The call when `body` and `headers` have exactly the plain shape and the SDK classifies them as modern. */
function plainCall(surface: Surface, headers: Headers, body: unknown): PlainCall | undefined {
  if (!isPlainObject(body) || !keysWithin(body, BODY_KEYS)) return undefined;
  const { jsonrpc, id, method, params } = body;
  if (jsonrpc !== "2.0" || method !== "tools/call" || !isRequestId(id)) return undefined;
  if (!isPlainObject(params) || !keysWithin(params, PARAM_KEYS)) return undefined;
  const { name, arguments: args, _meta: meta } = params;
  if (typeof name !== "string" || (args !== undefined && !isPlainObject(args))) return undefined;
  if (!isPlainObject(meta) || !keysWithin(meta, ENVELOPE_KEYS)) return undefined;
  if (meta[PROTOCOL_VERSION_META_KEY] !== DIRECT_REVISION) return undefined;
  const tool = surface.tools.get(name);
  if (!tool) return undefined;
  const protocolVersionHeader = headers.get("mcp-protocol-version") ?? undefined;
  const mcpMethodHeader = headers.get("mcp-method") ?? undefined;
  const mcpNameHeader = headers.get("mcp-name") ?? undefined;
  if (protocolVersionHeader !== DIRECT_REVISION || mcpMethodHeader !== method || mcpNameHeader !== name) {
    return undefined;
  }
  const route = classifyInboundRequest({
    httpMethod: "POST",
    protocolVersionHeader,
    mcpMethodHeader,
    mcpNameHeader,
    body,
  });
  if (route.kind !== "modern" || route.messageKind !== "request") return undefined;
  if (route.classification.revision !== DIRECT_REVISION) return undefined;
  return { id, tool, args };
}

/**
 * The result's keys in the order of the SDK's result schema (`content`, `structuredContent`, `isError`, then any
 * other), which is the order the SDK's own validation writes them in.
 */
function wireOrder(result: CallToolResult): Record<string, unknown> {
  const { content, structuredContent, isError, ...rest } = result;
  return {
    content,
    ...(structuredContent !== undefined && { structuredContent }),
    ...(isError !== undefined && { isError }),
    ...rest,
  };
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}

function keysWithin(value: Record<string, unknown>, allowed: ReadonlySet<string>): boolean {
  for (const key in value) if (!allowed.has(key)) return false;
  return true;
}

function isRequestId(id: unknown): id is string | number {
  return typeof id === "string" || (typeof id === "number" && Number.isSafeInteger(id));
}
