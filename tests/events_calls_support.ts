/**
 * Support of the event-call tests (events_subscribe_test.ts, events_refusals_test.ts, events_verification_test.ts):
 * a file's {@linkcode EventsWorld} with its receivers and fixtures, and {@linkcode callsTest} / {@linkcode eraTest},
 * which give each test the MCP clients it opens (closed when it ends), so every test runs alone and in any order.
 */
import assert from "node:assert/strict";
import { sql } from "kysely";
import { createPerson } from "../auth/accounts.ts";
import { createApiKey } from "../auth/api_keys.ts";
import { prng, sampleListing } from "../catalogue/sample.ts";
import { startMembership } from "../db/accounts.ts";
import { insertListings } from "../db/listings.ts";
import { ensureOffice } from "../db/offices.ts";
import { EventCallError } from "../errors.ts";
import { MAX_SUBSCRIPTIONS } from "../events/subscriptions.ts";
import {
  connectApp,
  type ConnectedApp,
  connectWithToken,
  type Era,
  ERAS,
  type EventsWorld,
  eventsWorld,
} from "./events_support.ts";
import { PASSWORD } from "./oauth_support.ts";
import type { Receiver } from "./webhook_receiver.ts";

/** One hour in ms. */
export const HOUR = 60 * 60_000;
/** One day in ms. */
export const DAY = 24 * HOUR;
/** The text of the inquiries the tests send. */
export const MESSAGE = "Hallo, ist die Wohnung noch frei? Ich würde sie gern besichtigen.";

/** Receivers of the world, by role (index into `w.receivers`). */
export const R = { main: 0, wrong: 1, status500: 2, noJson: 3, hang: 4, closed: 5 } as const;

/** A parsed JSON value. */
// deno-lint-ignore no-explicit-any
export type Json = any;

/** An ISO time of `ms`. */
export const iso = (ms: number): string => new Date(ms).toISOString();

/** The world of an event-call test file: receivers (see {@linkcode R}), fixtures and refusal checks. */
export interface CallsWorld extends EventsWorld {
  /** The receiver that answers challenges correctly. */
  main: Receiver;
  /** A receiver port that is allowed (WEBHOOK_LOOPBACK_PORTS) but closed: connection_refused. */
  closed: Receiver;
  /** A published listing of another office (never "in the account" of the world's provider). */
  foreignListing: string;
  /** MAX_SUBSCRIPTIONS draft listings of the provider's office (as many different filters). */
  ownListings: string[];
  /** An inquiry and a saved search of another seeker. */
  foreignInquiry: string;
  foreignSearch: string;
  /** A second provider of the world's office (tests end her membership or change her role, then restore it). */
  provider2: { email: string; userId: string };
  /** API keys of the world's provider and seeker. */
  providerKey: string;
  seekerKey: string;
  /** Makes the receiver `r` (default main) trust `secret`. */
  trust(secret: string, r?: number): void;
  /** The numbers of subscription and verification rows. */
  counts(): Promise<{ subs: number; verifications: number }>;
  /** Subscribing with `params` fails with exactly `code` and `data`, and writes nothing. */
  refused(
    app: ConnectedApp,
    params: Record<string, unknown>,
    code: number,
    data: Record<string, unknown>,
    what: string,
  ): Promise<void>;
  /** The domain call `run` throws an EventCallError with exactly `code` and `data`, and writes nothing. */
  domainRefuses(run: () => unknown, code: number, data: Record<string, unknown>, what: string): Promise<void>;
}

/** Opens the world of an event-call test file (with {@linkcode fileWorld} of helpers.ts). */
export async function callsWorld(): Promise<CallsWorld> {
  const w = await eventsWorld({
    receivers: [{}, { challenge: "wrong" }, { challenge: "status500" }, { challenge: "no-answer-json" }, {
      challenge: "hang",
    }, {}],
  });
  try {
    return { ...w, ...await fixtures(w) };
  } catch (e) {
    await w.close();
    throw e;
  }
}

/** Closes the `closed` receiver and makes the fixtures and checks of {@linkcode CallsWorld}. */
async function fixtures(w: EventsWorld): Promise<Omit<CallsWorld, keyof EventsWorld>> {
  const db = w.tdb.db;
  const closed = w.receivers[R.closed]!;
  await closed.close();
  // w.close() closes every receiver again; this one is already closed.
  w.receivers[R.closed] = { ...closed, close: () => Promise.resolve() };

  const otherOffice = await ensureOffice(db, "Anderes Büro Events");
  const [foreignListing] = await insertListings(db, otherOffice, [
    { ...sampleListing(7, prng(71), Date.now()), beispiel: true, status: "published" },
  ]);
  const ownListings = await insertListings(
    db,
    w.officeId,
    Array.from({ length: MAX_SUBSCRIPTIONS }, (_, i) => ({
      ...sampleListing(100 + i, prng(100 + i), Date.now()),
      beispiel: true,
      status: "draft" as const,
    })),
  );
  assert.equal(ownListings.length, MAX_SUBSCRIPTIONS);

  // Another seeker with an inquiry and a saved search (through an API key: tools only need sign-in).
  const otherSeekerId = await createPerson(w.t.auth, db, {
    email: "zweite-sucherin@example.org",
    name: "Zweite Sucherin",
    password: PASSWORD,
    role: "seeker",
  });
  const otherSeeker = await connectWithToken(
    w,
    "api-key",
    (await createApiKey(db, otherSeekerId, "Zweite")).key,
    "v2-legacy",
  );
  let foreignInquiry: string, foreignSearch: string;
  try {
    foreignInquiry =
      (await otherSeeker.callTool("send_inquiry", { listing_id: w.listingId, message: MESSAGE }))
        .structuredContent.inquiry_id;
    foreignSearch = (await otherSeeker.callTool("create_saved_search", { filters: { max_price: 900_000 } }))
      .structuredContent.id;
  } finally {
    await otherSeeker.close();
  }
  assert.match(foreignInquiry, /^[0-9a-f-]{36}$/);
  assert.match(foreignSearch, /^[0-9a-f-]{36}$/);

  const provider2 = { email: "zweite-anbieterin@example.org", userId: "" };
  provider2.userId = await createPerson(w.t.auth, db, {
    ...provider2,
    name: "Zweite Anbieterin",
    password: PASSWORD,
    role: "provider",
  });
  await startMembership(db, provider2.userId, w.officeId);

  const counts = async () => {
    const r = await sql<{ subs: number; verifications: number }>`select
        (select count(*)::int from event_subscriptions) as subs,
        (select count(*)::int from webhook_verifications) as verifications`.execute(db.kysely);
    return r.rows[0]!;
  };
  return {
    main: w.receivers[R.main]!,
    closed,
    foreignListing: foreignListing!,
    ownListings,
    foreignInquiry,
    foreignSearch,
    provider2,
    providerKey: (await createApiKey(db, w.provider.userId, "Anbieter-Schlüssel")).key,
    seekerKey: (await createApiKey(db, w.seeker.userId, "Sucher-Schlüssel")).key,
    trust: (secret, r = R.main) => void w.secrets[r]!.push(secret),
    counts,
    async refused(app, params, code, data, what) {
      const before = await counts();
      const err = await app.fail("events/subscribe", params);
      assert.deepEqual({ code: err.code, data: err.data }, { code, data }, what);
      assert.equal(typeof err.message, "string", what);
      assert.deepEqual(await counts(), before, `${what}: nothing written`);
    },
    async domainRefuses(run, code, data, what) {
      const before = await counts();
      await assert.rejects(async () => await run(), (err: unknown) => {
        assert.ok(err instanceof EventCallError, `${what}: ${err}`);
        assert.deepEqual({ code: err.code, data: err.data }, { code, data }, what);
        return true;
      });
      assert.deepEqual(await counts(), before, `${what}: nothing written`);
    },
  };
}

/** What a test opens through: MCP clients that are closed when the test ends. */
export interface CallsContext {
  /** An app (a new OAuth client) connected for `email` over `era`. */
  app(email: string, era: Era, opts?: { scope?: string }): Promise<ConnectedApp>;
  /** A client of `era` connected with an API key. */
  keyApp(key: string, era: Era): Promise<ConnectedApp>;
}

/** A test of `w` named `name`; the clients it opens through the context are closed when it ends. */
export function callsTest(w: CallsWorld, name: string, fn: (c: CallsContext) => Promise<void>): void {
  Deno.test(name, async () => {
    const open: ConnectedApp[] = [];
    const keep = (app: ConnectedApp) => (open.push(app), app);
    try {
      await fn({
        app: async (email, era, opts) => keep(await connectApp(w, email, era, opts)),
        keyApp: async (key, era) => keep(await connectWithToken(w, "api-key", key, era)),
      });
    } finally {
      for (const app of open) await app.close().catch(() => {});
    }
  });
}

/** One {@linkcode callsTest} per protocol era, named `<era>: <name>`. */
export function eraTest(
  w: CallsWorld,
  name: string,
  fn: (c: CallsContext, era: Era) => Promise<void>,
): void {
  for (const era of ERAS) callsTest(w, `${era}: ${name}`, (c) => fn(c, era));
}

/**
 * A result without `_meta`: in the 2026-07-28 era every result carries
 * `_meta["io.modelcontextprotocol/serverInfo"]` (added by the SDK, not by the event methods).
 */
export function withoutMeta(result: Record<string, unknown>): Record<string, unknown> {
  const { _meta: _drop, ...rest } = result;
  return rest;
}

/** A 2026-07-28 `server/discover` request. */
export function discoverRequest() {
  return {
    jsonrpc: "2.0",
    id: 3,
    method: "server/discover",
    params: {
      _meta: {
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientInfo": { name: "raw-events-test", version: "1.0.0" },
        "io.modelcontextprotocol/clientCapabilities": {},
      },
    },
  };
}

/** A TCP port that is not one of the receivers' (so not in WEBHOOK_LOOPBACK_PORTS). */
export function notListedPort(receivers: Receiver[]): number {
  const taken = new Set(receivers.map((r) => r.port));
  let port = 1;
  while (taken.has(port)) port++;
  return port;
}
