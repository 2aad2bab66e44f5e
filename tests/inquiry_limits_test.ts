/**
 * The inquiry limits of docs/contract.md §9, exact at the window edges and shared by the send_inquiry tool and direct calls
 * of `sendInquiry` (the form): 5 per person in 10 minutes, 5 per e-mail address in 24 hours, 30 per listing in
 * one hour. A refusal writes no inquiry, message or outbox row; concurrent senders cannot overshoot. Also the
 * input errors of `sendInquiry`.
 */
import assert from "node:assert/strict";
import { sql } from "kysely";
import { createApiKey } from "../auth/api_keys.ts";
import { prng, sampleListing } from "../catalogue/sample.ts";
import { insertUser } from "../db/accounts.ts";
import { insertListings } from "../db/listings.ts";
import { AppError } from "../errors.ts";
import type { Inquirer, SendInquiryInput } from "../inquiries/inquiries.ts";
import { codedError } from "../mcp/tools/tool_error.ts";
import { connectClient, mcpWorld } from "./mcp_helpers.ts";
import { fileWorld, sendInquiryAs } from "./helpers.ts";

const MIN = 60_000;
const HOUR = 60 * MIN;
const DAY = 24 * HOUR;
const w = await fileWorld(() => mcpWorld());
const db = w.tdb.db;
const deps = w.t.deps;

const listings = await insertListings(
  db,
  w.officeId,
  Array.from({ length: 40 }, (_, i) => ({
    ...sampleListing(100 + i, prng(500 + i), Date.now()),
    beispiel: true,
    status: "published" as const,
    published_at: new Date(),
  })),
);
let nextListing = 0;
/** A listing no earlier step has used. */
function freshListing(): string {
  const id = listings[nextListing++];
  assert.ok(id, "enough listings");
  return id;
}

/** Numbers of inquiries, messages and outbox rows. */
async function counts(): Promise<{ inquiries: number; messages: number; outbox: number }> {
  const n = async (table: "inquiries" | "inquiry_messages" | "event_outbox") =>
    (await db.kysely.selectFrom(table).select(sql<number>`count(*)::int`.as("n")).executeTakeFirstOrThrow())
      .n;
  return {
    inquiries: await n("inquiries"),
    messages: await n("inquiry_messages"),
    outbox: await n("event_outbox"),
  };
}

/** An anonymous inquirer (the listing page's form). */
function anonymous(email: string): Inquirer {
  return { seekerId: null, name: "Form Nutzer", email, phone: null };
}

/** Sends one inquiry through `sendInquiry`. */
async function send(listingId: string, inquirer: Inquirer): Promise<string> {
  const r = await sendInquiryAs(deps, {
    listingId,
    inquirer,
    message: "Ist das Objekt noch frei?",
    origin: null,
  });
  return r.inquiryId;
}

/** Asserts that `p` fails with AppError `code`. */
async function rejectsWith(p: Promise<unknown>, code: string): Promise<void> {
  await assert.rejects(p, (e: unknown) => e instanceof AppError && e.code === code);
}

/** Asserts that sending is refused with rate_limited and writes nothing. */
async function refused(listingId: string, inquirer: Inquirer): Promise<void> {
  const before = await counts();
  await rejectsWith(send(listingId, inquirer), "rate_limited");
  assert.deepEqual(await counts(), before, "a refusal writes nothing");
}

Deno.test("per person: the 6th inquiry within 10 minutes is refused, accepted once the first leaves the window", async () => {
  const person = await insertUser(db, { email: "person@example.org", name: "Person", role: "seeker" });
  // Different e-mail addresses and listings each time, so only the per-person limit can refuse.
  const inquirer = (i: number): Inquirer => ({
    seekerId: person,
    name: "Person",
    email: `p${i}@example.org`,
    phone: null,
  });
  const start = w.t.now();
  for (let i = 0; i < 5; i++) {
    if (i > 0) w.t.advance(2 * MIN);
    await send(freshListing(), inquirer(i));
  }
  w.t.advance(start + 10 * MIN - 1 - w.t.now()); // the first is 1 ms inside the window
  await refused(freshListing(), inquirer(5));
  w.t.advance(1); // the first now lies exactly 10 minutes back: outside (now − 10 min, now]
  await send(freshListing(), inquirer(6));
  await refused(freshListing(), inquirer(7)); // the window is full again
});

Deno.test("per person through the tool and the form together: the 6th is refused over MCP and nothing is sent", async () => {
  w.t.advance(DAY);
  const person = await insertUser(db, { email: "werkzeug@example.org", name: "Werkzeug", role: "seeker" });
  const key = await createApiKey(db, person, "Limit");
  for (let i = 0; i < 3; i++) {
    await send(freshListing(), {
      seekerId: person,
      name: "Werkzeug",
      email: `form${i}@example.org`,
      phone: null,
    });
  }
  const client = await connectClient("v2-modern", w.url, key.key);
  try {
    for (let i = 0; i < 2; i++) {
      const res = await client.callTool("send_inquiry", {
        listing_id: freshListing(),
        message: "Noch frei?",
      });
      assert.notEqual(res.isError, true, JSON.stringify(res.content));
    }
    const before = await counts();
    const res = await client.callTool("send_inquiry", { listing_id: freshListing(), message: "Noch frei?" });
    assert.equal(res.isError, true);
    assert.deepEqual(res.content, codedError("rate_limited").content);
    assert.deepEqual(await counts(), before, "a refusal writes nothing");
    // The form path counts the tool's inquiries too.
    await refused(freshListing(), {
      seekerId: person,
      name: "Werkzeug",
      email: "form9@example.org",
      phone: null,
    });
  } finally {
    await client.close();
  }
});

Deno.test("per e-mail: the 6th anonymous inquiry within 24 hours is refused (any spelling of the address)", async () => {
  w.t.advance(DAY);
  const start = w.t.now();
  const spellings = [
    "anon@example.org",
    "Anon@Example.org",
    " ANON@example.ORG ",
    "anon@EXAMPLE.org",
    "anon@example.org",
  ];
  for (const [i, email] of spellings.entries()) {
    if (i > 0) w.t.advance(5 * HOUR);
    await send(freshListing(), anonymous(email));
  }
  w.t.advance(start + DAY - 1 - w.t.now());
  await refused(freshListing(), anonymous("anon@example.org"));
  await send(freshListing(), anonymous("other@example.org")); // another address is not affected
  w.t.advance(1);
  await send(freshListing(), anonymous("ANON@example.org"));
});

Deno.test("per listing: the 31st inquiry within an hour is refused (31 different anonymous e-mails)", async () => {
  w.t.advance(DAY);
  const listing = freshListing();
  const start = w.t.now();
  for (let i = 0; i < 30; i++) {
    if (i > 0) w.t.advance(MIN);
    await send(listing, anonymous(`l${i}@example.org`));
  }
  w.t.advance(start + HOUR - 1 - w.t.now());
  await refused(listing, anonymous("l30@example.org"));
  await send(freshListing(), anonymous("l30@example.org")); // another listing is not affected
  w.t.advance(1);
  await send(listing, anonymous("l31@example.org"));
});

Deno.test("concurrency: 10 inquiries of one person at once, exactly 5 succeed", async () => {
  w.t.advance(DAY);
  const person = await insertUser(db, { email: "eilig@example.org", name: "Eilig", role: "seeker" });
  const before = await counts();
  const results = await Promise.allSettled(
    Array.from(
      { length: 10 },
      (_, i) =>
        send(listings[i]!, { seekerId: person, name: "Eilig", email: `eilig${i}@example.org`, phone: null }),
    ),
  );
  const ok = results.filter((r) => r.status === "fulfilled");
  const failed = results.filter((r): r is PromiseRejectedResult => r.status === "rejected");
  assert.equal(ok.length, 5);
  for (const f of failed) {
    assert.ok(f.reason instanceof AppError && f.reason.code === "rate_limited", String(f.reason));
  }
  const stored = await db.kysely.selectFrom("inquiries").select(sql<number>`count(*)::int`.as("n"))
    .where("seeker_id", "=", person).executeTakeFirstOrThrow();
  assert.equal(stored.n, 5);
  assert.deepEqual(await counts(), {
    inquiries: before.inquiries + 5,
    messages: before.messages + 5,
    outbox: before.outbox + 10, // inquiry.received and the agent's proposal.pending each
  });
});

Deno.test("input errors: unpublished or malformed listing, bad e-mail, empty or over-long message", async () => {
  w.t.advance(DAY);
  const before = await counts();
  const [draft] = await insertListings(db, w.officeId, [{
    ...sampleListing(999, prng(99), Date.now()),
    beispiel: true,
    status: "draft",
    published_at: null,
  }]);
  const input = (over: Partial<SendInquiryInput>) =>
    sendInquiryAs(deps, {
      listingId: w.listingId,
      inquirer: anonymous("fehler@example.org"),
      message: "Hallo",
      origin: null,
      ...over,
    });
  await rejectsWith(input({ listingId: draft! }), "not_found");
  await rejectsWith(input({ listingId: crypto.randomUUID() }), "not_found");
  await rejectsWith(input({ listingId: "kein-objekt" }), "not_found");
  await rejectsWith(input({ inquirer: anonymous("keine-adresse") }), "invalid_request");
  await rejectsWith(input({ inquirer: anonymous("a b@example.org") }), "invalid_request");
  await rejectsWith(input({ message: "   " }), "invalid_request");
  await rejectsWith(input({ message: "x".repeat(10_001) }), "invalid_request");
  await rejectsWith(
    input({ inquirer: { ...anonymous("fehler@example.org"), name: "n".repeat(201) } }),
    "invalid_request",
  );
  assert.deepEqual(await counts(), before);
  await input({ message: "x".repeat(10_000) });
});
