/**
 * The direct answer to the commonest MCP request: one `tools/call` of protocol revision 2026-07-28, in the plain
 * shape every client sends (name, arguments and the per-request envelope, nothing else).
 *
 * The SDK serves such a call by building a server, a transport and a request context per request, validating the
 * message against its wire schemas several times and closing everything again; that machinery cost more than the
 * tool itself (bench:mcp: ~110 µs of ~330 µs per `get_property`). Here the SDK still classifies the request (its
 * exported `classifyInboundRequest`: era, envelope, header cross-checks), and the tool's own schemas validate the
 * arguments and the structured content exactly as the SDK applies them; the answer is the one the SDK would give,
 * byte for byte (`tests/mcp_direct_call_test.ts` compares both on the same requests).
 *
 * Anything else is left to the SDK: other methods and eras, batches, extra params or envelope keys (progress
 * tokens, request state, input responses), headers that differ from the body even by white space, arguments
 * that fail the input schema (the SDK words that error), unknown tools.
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
import { callDeclared, type DeclaredTool } from "./tools/define.ts";

/** The protocol revision answered directly. */
export const DIRECT_REVISION = "2026-07-28";

/** What a server reports about itself (`serverInfo`), stamped into every result of this revision. */
export interface ServerIdentity {
  name: string;
  title: string;
  version: string;
}

/** The tools of one server, by name, with its identity and its wording of a tool failure. */
export interface DirectServer {
  identity: ServerIdentity;
  tools: ReadonlyMap<string, DeclaredTool>;
  /** The tool result the SDK gives for a failure it words as `message` (see servers.ts, codedToolErrors). */
  toolFailure: (message: string) => CallToolResult;
}

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
 * `tools/call` of a tool of `server` whose arguments pass the tool's input schema; undefined otherwise, and
 * then nothing has run.
 */
export async function directToolCall(
  server: DirectServer,
  headers: Headers,
  body: unknown,
  principal: Principal,
  requestId?: string,
): Promise<Response | undefined> {
  const call = plainCall(server, headers, body);
  if (!call) return undefined;
  const input = await call.tool.spec.input["~standard"].validate(call.args ?? {});
  if (input.issues) return undefined;
  const result = await checkedOutput(
    server,
    call.tool,
    await callDeclared(call.tool, input.value, principal, requestId),
  );
  const message = {
    result: {
      ...wireOrder(result),
      resultType: "complete",
      _meta: { [SERVER_INFO_META_KEY]: server.identity },
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
function plainCall(server: DirectServer, headers: Headers, body: unknown): PlainCall | undefined {
  if (!isPlainObject(body) || !keysWithin(body, BODY_KEYS)) return undefined;
  const { jsonrpc, id, method, params } = body;
  if (jsonrpc !== "2.0" || method !== "tools/call" || !isRequestId(id)) return undefined;
  if (!isPlainObject(params) || !keysWithin(params, PARAM_KEYS)) return undefined;
  const { name, arguments: args, _meta: meta } = params;
  if (typeof name !== "string" || (args !== undefined && !isPlainObject(args))) return undefined;
  if (!isPlainObject(meta) || !keysWithin(meta, ENVELOPE_KEYS)) return undefined;
  if (meta[PROTOCOL_VERSION_META_KEY] !== DIRECT_REVISION) return undefined;
  const tool = server.tools.get(name);
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
 * `result` when it is an error or its structured content passes the tool's output schema; otherwise the failure
 * the SDK reports for content that does not match (worded as the SDK words it).
 */
async function checkedOutput(
  server: DirectServer,
  tool: DeclaredTool,
  result: CallToolResult,
): Promise<CallToolResult> {
  if (result.isError) return result;
  const name = tool.spec.name;
  if (result.structuredContent === undefined) {
    return server.toolFailure(
      `Output validation error: Tool ${name} has an output schema but no structured content was provided`,
    );
  }
  const output = await tool.spec.output["~standard"].validate(result.structuredContent);
  if (!output.issues) return result;
  const issues = output.issues.map(formatIssue).join(", ");
  return server.toolFailure(
    `Output validation error: Invalid structured content for tool ${name}: ${issues}`,
  );
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

/** An issue as the SDK prints it: `path.to.field: message`, or the message alone at the root. */
function formatIssue(
  issue: { message: string; path?: ReadonlyArray<PropertyKey | { key: PropertyKey }> },
): string {
  if (!issue.path?.length) return issue.message;
  const path = issue.path.map((p) => String(typeof p === "object" ? p.key : p)).join(".");
  return `${path}: ${issue.message}`;
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
