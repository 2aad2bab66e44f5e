/**
 * JSON-RPC batches on `/mcp` (docs/contract.md §4.1 and §9.1): every message of a batch counts in the account's
 * MCP bucket, as if it had been sent alone.
 *
 * Which revisions allow batches: 2025-03-26 requires servers to receive them (and 2024-11-05 inherits them from
 * JSON-RPC 2.0); 2025-06-18 removed them (its streamable HTTP body "MUST be a single JSON-RPC request,
 * notification, or response"), and neither 2025-11-25 nor 2026-07-28 brought them back. A stateless server knows
 * the negotiated revision from the `MCP-Protocol-Version` header, which 2025-06-18 and later require on every
 * request; without it the revision is 2025-03-26, as that spec and the SDK assume. The SDK 2.4 itself serves
 * all-legacy batches whatever the header says, so the refusal is ours: HTTP 400 with the JSON-RPC error -32600
 * (Invalid Request) and `id: null`, as those revisions allow for input the server cannot accept.
 *
 * A batch the SDK refuses as a whole anyway (empty, over 100 messages, an invalid or 2026-era element, an
 * `initialize` among other messages) is left to it and costs one token like any request.
 */
import {
  classifyInboundRequest,
  INVALID_REQUEST,
  isInitializeRequest,
  isJSONRPCRequest,
  type JSONRPCErrorResponse,
  SUPPORTED_PROTOCOL_VERSIONS,
} from "@modelcontextprotocol/server";
import { DIRECT_REVISION } from "./direct_call.ts";

/** The revision assumed when a request names none (2025-06-18 §"Protocol Version Header"; the SDK's default). */
const DEFAULT_REVISION = "2025-03-26";
/** The first revision without batches. */
const FIRST_WITHOUT_BATCHES = "2025-06-18";
/** Most messages the SDK takes in one batch (its transport refuses more with -32600). */
const MAX_BATCH = 100;
const KNOWN_REVISIONS: ReadonlySet<string> = new Set([...SUPPORTED_PROTOCOL_VERSIONS, DIRECT_REVISION]);

/** The JSON-RPC error code of a batch message beyond the bucket (implementation-defined server error). */
export const BATCH_RATE_LIMITED_CODE = -32000;

/** What `/mcp` does with a posted JSON body. */
export type BatchPlan =
  /** Not a batch, or one the SDK refuses as a whole: served as usual, one token. */
  | { kind: "single" }
  /** A batch under a revision without batches: refused with {@linkcode batchRefused}, one token. */
  | { kind: "refused"; revision: string }
  /** A batch to serve: one token per message. */
  | { kind: "batch"; messages: unknown[] };

/** The plan for `body` (parsed JSON) posted with `headers`. */
export function planBatch(body: unknown, headers: Headers): BatchPlan {
  if (!Array.isArray(body)) return { kind: "single" };
  const revision = headers.get("mcp-protocol-version")?.trim() || DEFAULT_REVISION;
  if (!KNOWN_REVISIONS.has(revision)) return { kind: "single" }; // the SDK answers the unknown revision
  if (revision >= FIRST_WITHOUT_BATCHES) return { kind: "refused", revision };
  if (body.length > MAX_BATCH || (body.length > 1 && body.some(isInitializeRequest))) {
    return { kind: "single" };
  }
  const route = classifyInboundRequest({ httpMethod: "POST", body });
  return route.kind === "legacy" ? { kind: "batch", messages: body } : { kind: "single" };
}

/** The answer to a batch under `revision`, which has no batches: 400 with -32600 and `id: null`. */
export function batchRefused(revision: string): Response {
  const message = `Invalid Request: JSON-RPC batches are not allowed in protocol revision ${revision} ` +
    `(removed in ${FIRST_WITHOUT_BATCHES}); send each message in its own POST`;
  return Response.json({ jsonrpc: "2.0", error: { code: INVALID_REQUEST, message }, id: null }, {
    status: 400,
  });
}

/**
 * The first `granted` messages of a batch, served as usual, and the errors answering the requests beyond them
 * (notifications and responses beyond them are dropped: they get no answer in JSON-RPC).
 */
export function splitBatch(
  messages: unknown[],
  granted: number,
): { served: unknown[]; refusals: JSONRPCErrorResponse[] } {
  const refusals = messages.slice(granted).filter(isJSONRPCRequest).map((m): JSONRPCErrorResponse => ({
    jsonrpc: "2.0",
    id: m.id,
    error: {
      code: BATCH_RATE_LIMITED_CODE,
      message: "Rate limited: the account's MCP bucket had no token left for this message of the batch",
      data: { error: "rate_limited" },
    },
  }));
  return { served: messages.slice(0, granted), refusals };
}

/**
 * The SDK's answer to the served part with the refusals added: as first events of its SSE stream, into its JSON
 * array, or (when it accepted notifications only, 202) as a JSON array of their own. An answer refusing the
 * served part as a whole is returned unchanged.
 */
export async function withRefusals(res: Response, refusals: JSONRPCErrorResponse[]): Promise<Response> {
  if (refusals.length === 0) return res;
  if (res.status === 202) {
    await res.body?.cancel();
    return Response.json(refusals);
  }
  const type = res.headers.get("content-type") ?? "";
  if (res.status !== 200 || res.body === null) return res;
  if (type.startsWith("text/event-stream")) {
    const events = new TextEncoder().encode(
      refusals.map((m) => `event: message\ndata: ${JSON.stringify(m)}\n\n`).join(""),
    );
    const body = res.body.pipeThrough(new TransformStream({ start: (c) => c.enqueue(events) }));
    return new Response(body, { status: 200, headers: res.headers });
  }
  const answered = await res.json();
  return Response.json([...(Array.isArray(answered) ? answered : [answered]), ...refusals], {
    headers: res.headers,
  });
}
