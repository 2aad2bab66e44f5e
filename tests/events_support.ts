/**
 * Event test support: an {@linkcode OAuthWorld} whose event delivery runs (KV queue listener + sweep), with
 * HTTPS receivers on loopback (allowed by `WEBHOOK_LOOPBACK_PORTS`, trusted through `WEBHOOK_CA_FILE`), and MCP
 * clients of both protocol eras connected through a real OAuth connection (an "app").
 */
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { z } from "zod";
import { startBackground } from "../background.ts";
import { base64 } from "../crypto.ts";
import { type OAuthWorld, oauthWorld, register, tokensFor } from "./oauth_support.ts";
import { type Receiver, type ReceiverOptions, startReceiver, testCa } from "./webhook_receiver.ts";

/** A fresh webhook secret: `whsec_` + standard Base64 of `bytes` random bytes. */
export function newSecret(bytes = 32): string {
  return `whsec_${base64(crypto.getRandomValues(new Uint8Array(bytes)))}`;
}

/** A world with running event delivery and receivers. */
export interface EventsWorld extends OAuthWorld {
  receivers: Receiver[];
  /** Secrets each receiver trusts (tests push and remove). */
  secrets: string[][];
  /** Stops delivery, receivers, server, KV and database. */
  close(): Promise<void>;
}

/** Options of {@linkcode eventsWorld}. */
export interface EventsWorldOptions {
  /** One receiver per entry (its `secrets` default to the world's list for it). */
  receivers?: Array<Partial<ReceiverOptions>>;
  /** Extra configuration (e.g. `EVENTS_RETRY_DELAYS_MS`). */
  env?: Record<string, string>;
  /** Whether to start delivery (default true). */
  deliver?: boolean;
}

/** Starts receivers, then the app with loopback allowed on exactly their ports, then delivery. */
export async function eventsWorld(opts: EventsWorldOptions = {}): Promise<EventsWorld> {
  const ca = await testCa();
  const caFile = await Deno.makeTempFile({ suffix: ".pem" });
  await Deno.writeTextFile(caFile, ca.caPem);
  const specs = opts.receivers ?? [{}];
  const secrets: string[][] = specs.map(() => []);
  const receivers: Receiver[] = [];
  for (const [i, spec] of specs.entries()) {
    receivers.push(await startReceiver({ secrets: () => secrets[i]!, ...spec }));
  }
  const w = await oauthWorld({
    WEBHOOK_LOOPBACK_PORTS: receivers.map((r) => r.port).join(","),
    WEBHOOK_CA_FILE: caFile,
    EVENTS_RETRY_DELAYS_MS: "0,300,600,900",
    EVENTS_SWEEP_MS: "1000",
    ...opts.env,
  });
  const delivery = opts.deliver === false
    ? { stop: () => Promise.resolve() }
    : await startBackground(w.t.deps);
  return {
    ...w,
    receivers,
    secrets,
    async close() {
      await delivery.stop();
      w.t.deps.events?.client.close();
      for (const r of receivers) await r.close();
      await w.close();
      await Deno.remove(caFile).catch(() => {});
    },
  };
}

/** A JSON-RPC error as the client saw it. */
export interface RpcError {
  code: number;
  message: string;
  data: unknown;
}

/** An app connected for one person over OAuth, with an MCP client of one era. */
export interface ConnectedApp {
  clientId: string;
  accessToken: string;
  /** Calls a method; resolves to its result. */
  call(method: string, params: Record<string, unknown>): Promise<Record<string, unknown>>;
  /** Calls a method that must fail; resolves to its JSON-RPC error (rejects when it succeeds). */
  fail(method: string, params: Record<string, unknown>): Promise<RpcError>;
  // deno-lint-ignore no-explicit-any
  callTool(name: string, args: Record<string, unknown>): Promise<any>;
  close(): Promise<void>;
}

/** The two protocol eras of the event tests. */
export type Era = "v2-modern" | "v2-legacy";

/** Both eras. */
export const ERAS: Era[] = ["v2-modern", "v2-legacy"];

/** Registers an app, runs the OAuth flow for `email` and connects an MCP client of `era` with the token. */
export async function connectApp(
  w: OAuthWorld,
  email: string,
  era: Era,
  opts: { scope?: string; clientId?: string } = {},
): Promise<ConnectedApp> {
  const clientId = opts.clientId ?? await register(w.origin);
  const scope = opts.scope ?? (email === w.provider.email ? "lesen offline_access" : "suchen offline_access");
  const tokens = await tokensFor(w, clientId, email, scope);
  return await connectWithToken(w, clientId, tokens.access_token as string, era);
}

/** Connects an MCP client of `era` with `accessToken` (an OAuth access token or an API key). */
export async function connectWithToken(
  w: OAuthWorld,
  clientId: string,
  accessToken: string,
  era: Era,
): Promise<ConnectedApp> {
  const client = new Client(
    { name: "events-test", version: "1.0.0" },
    era === "v2-modern" ? { versionNegotiation: { mode: { pin: "2026-07-28" } } } : {},
  );
  await client.connect(
    new StreamableHTTPClientTransport(new URL(w.resource), {
      requestInit: { headers: { Authorization: `Bearer ${accessToken}` } },
    }),
  );
  const any = z.looseObject({});
  const call = (method: string, params: Record<string, unknown>) =>
    client.request({ method, params } as never, any) as Promise<Record<string, unknown>>;
  return {
    clientId,
    accessToken,
    call,
    async fail(method, params) {
      try {
        await call(method, params);
      } catch (err) {
        const e = err as { code?: number; message?: string; data?: unknown };
        if (typeof e.code !== "number") throw err;
        return { code: e.code, message: e.message ?? "", data: e.data };
      }
      throw new Error(`${method} succeeded but was expected to fail`);
    },
    callTool: (name, args) => client.callTool({ name, arguments: args }),
    close: () => client.close(),
  };
}

/** events/subscribe params for `name` to `url` with `secret`. */
export function subscribeParams(
  name: string,
  url: string,
  secret: string,
  args: Record<string, unknown> = {},
  extra: Record<string, unknown> = {},
): Record<string, unknown> {
  return { name, arguments: args, delivery: { mode: "webhook", url, secret }, ...extra };
}

/** Waits until `check` holds, polling every 20 ms; rejects after `timeoutMs`. */
export async function until(check: () => boolean | Promise<boolean>, timeoutMs = 10_000, what = "condition") {
  const end = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}
