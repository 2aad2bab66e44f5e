/**
 * A reply or rejection the office writes itself closes the agent's open drafts of that inquiry in the same action
 * (issue 31 item 6; `agent/hooks.ts`): a stale draft can no longer send a second answer. Approving one draft
 * closes the inquiry's other drafts; property changes and other inquiries' drafts stay open; a write that fails
 * leaves every draft open; a hand reply racing an approval ends without a deadlock, and a draft the hand reply
 * closed sends nothing. Runs on PGlite and, with DATABASE_URL, on the real Postgres server.
 */
import assert from "node:assert/strict";
import { sql } from "kysely";
import { approveProposal } from "../agent/proposals.ts";
import { createPerson } from "../auth/accounts.ts";
import { reserveListing } from "../catalogue/office_listings.ts";
import { act } from "../deps.ts";
import { startMembership } from "../db/accounts.ts";
import { insertListings, type NewListing } from "../db/listings.ts";
import { ensureOffice } from "../db/offices.ts";
import { AppError } from "../errors.ts";
import { rejectInquiry, replyToInquiry } from "../inquiries/messages.ts";
import { closeAfterAll, officeWho, openTestDb, sendInquiryAs, testApp } from "./helpers.ts";

const tdb = await openTestDb();
const db = tdb.db;
const t = await testApp(db);
closeAfterAll(t, tdb);

const office = await ensureOffice(db, "Büro Handantwort");
const agent = await createPerson(t.auth, db, {
  email: "hand.antwort@example.org",
  name: "Hanna Hand",
  password: "hand-antwort-123",
  role: "provider",
});
await startMembership(db, agent, office);
const who = officeWho(office, agent);

function listing(title: string): NewListing {
  return {
    status: "published",
    reference: null,
    title,
    description: null,
    city: "Handstadt",
    postal_code: "10115",
    property_type: "apartment",
    transaction_type: "rent",
    asked_price: 950,
    total_rooms: 2,
    square_meters: 55,
    latitude: null,
    longitude: null,
    beispiel: false,
    published_at: new Date("2026-10-01T12:00:00Z"),
  };
}

let n = 0;
/** A new inquiry on a new listing; the agent drafts a reply to it in the same action. */
async function inquiry(): Promise<{ inquiryId: string; listingId: string }> {
  const [listingId] = await insertListings(db, office, [listing(`Wohnung ${++n}`)]);
  const r = await sendInquiryAs(t.deps, {
    listingId: listingId!,
    inquirer: { seekerId: null, name: `Gast ${n}`, email: `gast${n}@example.org`, phone: null },
    message: "Ist die Wohnung noch frei?",
  });
  return { inquiryId: r.inquiryId, listingId: listingId! };
}

/** The drafts of an inquiry: kind, status and who decided, oldest first. */
async function drafts(inquiryId: string) {
  const r = await sql<{ id: string; vorschlag_art: string; status: string; decided_by: string | null }>`
    select id, vorschlag_art, status, decided_by from proposals where inquiry_id = ${inquiryId}
    order by created_at, id`.execute(db.kysely);
  return r.rows;
}

async function providerMessages(inquiryId: string): Promise<number> {
  const r = await sql<{ n: number }>`select count(*)::int as n from inquiry_messages
    where inquiry_id = ${inquiryId} and sender = 'provider'`.execute(db.kysely);
  return r.rows[0]!.n;
}

async function refusal(p: Promise<unknown>): Promise<string> {
  const e = await p.then(() => undefined, (err) => err);
  assert.ok(e instanceof AppError, `expected a refusal, got ${e}`);
  return `${e.code}:${e.facts.reason ?? ""}`;
}

Deno.test("a reply by hand discards the open draft in its action; approving it afterwards sends nothing", async () => {
  const { inquiryId } = await inquiry();
  const [draft] = await drafts(inquiryId);
  assert.equal(draft?.status, "offen");
  await act(t.deps, who, (a) => replyToInquiry(a, inquiryId, "Ja, gern. Wann passt es Ihnen?"));
  assert.deepEqual(await drafts(inquiryId), [{ ...draft, status: "verworfen", decided_by: agent }]);
  assert.equal(
    await refusal(act(t.deps, who, (a) => approveProposal(a, draft!.id))),
    "conflict:proposal_decided",
  );
  assert.equal(await providerMessages(inquiryId), 1);
});

Deno.test("a rejection by hand discards the open draft reply", async () => {
  const { inquiryId } = await inquiry();
  await act(t.deps, who, (a) => rejectInquiry(a, inquiryId, undefined));
  assert.deepEqual((await drafts(inquiryId)).map((d) => d.status), ["verworfen"]);
});

Deno.test("approving one draft discards the inquiry's other drafts, not those of other inquiries", async () => {
  const { inquiryId, listingId } = await inquiry();
  const other = await inquiry();
  // Reserving the listing makes the agent propose a rejection as well: two open drafts for one inquiry.
  t.advance(1_000);
  await act(t.deps, who, (a) => reserveListing(a, listingId));
  const [reply, rejection] = await drafts(inquiryId);
  assert.deepEqual([reply?.vorschlag_art, rejection?.vorschlag_art], ["reply", "rejection"]);
  await act(t.deps, who, (a) => approveProposal(a, reply!.id));
  assert.deepEqual((await drafts(inquiryId)).map((d) => d.status), ["freigegeben", "verworfen"]);
  assert.deepEqual((await drafts(other.inquiryId)).map((d) => d.status), ["offen"]);
  assert.equal(await providerMessages(inquiryId), 1);
});

Deno.test("a reply that fails leaves the drafts open", async () => {
  const { inquiryId } = await inquiry();
  // The reply is written and the draft discarded, then the action fails: all of it rolls back.
  const failed = act(t.deps, who, async (a) => {
    await replyToInquiry(a, inquiryId, "Gern!");
    throw new AppError("conflict", { reason: "inquiry_closed" });
  });
  assert.equal(await refusal(failed), "conflict:inquiry_closed");
  assert.deepEqual((await drafts(inquiryId)).map((d) => d.status), ["offen"]);
  assert.equal(await providerMessages(inquiryId), 0);
});

Deno.test("a reply by hand racing the draft's approval: no deadlock, and the draft never follows the hand reply", async () => {
  for (let round = 0; round < 5; round++) {
    const { inquiryId } = await inquiry();
    const [draft] = await drafts(inquiryId);
    const results = await Promise.allSettled([
      act(t.deps, who, (a) => approveProposal(a, draft!.id)),
      act(t.deps, who, (a) => replyToInquiry(a, inquiryId, "Von Hand.")),
    ]);
    for (const r of results) {
      if (r.status === "rejected") {
        assert.ok(r.reason instanceof AppError, String(r.reason));
        assert.equal(`${r.reason.code}:${r.reason.facts.reason}`, "conflict:proposal_decided");
      }
    }
    assert.equal(results[1].status, "fulfilled", "the hand reply is always sent");
    const sent = results.filter((r) => r.status === "fulfilled").length;
    assert.equal(await providerMessages(inquiryId), sent);
    const [after] = await drafts(inquiryId);
    assert.equal(after!.status, results[0].status === "fulfilled" ? "freigegeben" : "verworfen");
  }
});
