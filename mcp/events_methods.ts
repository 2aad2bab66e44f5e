/**
 * The event methods of docs/contract.md §6.1 on both MCP servers (both protocol eras): `events/list`, `events/subscribe`,
 * `events/unsubscribe`, and `events/poll` / `events/stream` (always -32014). A thin adapter: the domain lives in
 * `events/subscriptions.ts`; an {@linkcode EventCallError} becomes a JSON-RPC error with its code and `data`.
 */
import { ProtocolError, type Server, type ServerCapabilities } from "@modelcontextprotocol/server";
import { z } from "zod";
import { EventCallError } from "../errors.ts";
import { listEvents, subscribe, unsubscribe, unsupportedMode } from "../events/subscriptions.ts";
import type { AppDeps } from "../deps.ts";
import { principalOf } from "./context.ts";

/**
 * The capability advertised in `initialize` and `server/discover` (the SDK's types do not know `events` yet; the
 * value passes through to the wire unchanged).
 */
export const EVENTS_CAPABILITY = { events: { listChanged: false } } as unknown as ServerCapabilities;

// Params are checked by the domain (so each failure gets the code and data of docs/contract.md §8.4), not by the SDK.
const anyParams = z.looseObject({});

/** Registers the event methods on `s` (a fresh per-request server). */
export function registerEventMethods(s: Server, deps: AppDeps): void {
  s.setRequestHandler(
    "events/list",
    { params: anyParams },
    (_params, ctx) => rpc(() => listEvents(principalOf(ctx))),
  );
  s.setRequestHandler(
    "events/subscribe",
    { params: anyParams },
    (params, ctx) => rpc(() => subscribe(deps, principalOf(ctx), params)),
  );
  s.setRequestHandler(
    "events/unsubscribe",
    { params: anyParams },
    (params, ctx) => rpc(() => unsubscribe(deps, principalOf(ctx), params)),
  );
  s.setRequestHandler("events/poll", { params: anyParams }, () => rpc(() => unsupportedMode("events/poll")));
  s.setRequestHandler(
    "events/stream",
    { params: anyParams },
    () => rpc(() => unsupportedMode("events/stream")),
  );
}

// deno-lint-ignore no-explicit-any
async function rpc<T>(run: () => T | Promise<T>): Promise<any> {
  try {
    return await run();
  } catch (err) {
    if (err instanceof EventCallError) throw new ProtocolError(err.code, err.message, err.data);
    throw err;
  }
}
