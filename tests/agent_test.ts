/**
 * The service's agent (issue 7 item 1) through real MCP clients connected over OAuth, with running event delivery
 * and a real HTTPS receiver that verifies with standardwebhooks AND svix: a draft reply for each new inquiry (any
 * quelle) from the listing's facts, its FREE viewing slots and the office's template; rejections when a listing is
 * withdrawn or reserved; a property change from a processed document (a `files` row written by SQL, the hook
 * called in a transaction). Approving does exactly what is proposed, once (a second and concurrent approvals are
 * `conflict` and send nothing); discarding sends nothing; `geht_hinaus` is true only where something goes out;
 * another office's proposals are `not_found`; proposal.pending reaches the receiver with objekt_id and anfrage_id
 * filters; a proposal the agent makes inside an app's call is not sent back to that app (docs/contract.md §6.4).
 */
import assert from "node:assert/strict";
import { sql } from "kysely";
import { proposeForDocument } from "../agent/hooks.ts";
import { createPerson } from "../auth/accounts.ts";
import { prng, sampleListing } from "../catalogue/sample.ts";
import { startMembership } from "../db/accounts.ts";
import { insertListings } from "../db/listings.ts";
import { createOffice } from "../db/offices.ts";
import { listOutbox, type OutboxRow } from "../db/outbox.ts";
import { EVENT_DATA } from "../events/catalogue.ts";
import {
  connectApp,
  type ConnectedApp,
  eventsWorld,
  newSecret,
  subscribeParams,
  until,
} from "./events_support.ts";
import { PASSWORD } from "./oauth_support.ts";
import { officeWho, sendInquiryAs } from "./helpers.ts";
import { act } from "../deps.ts";

// deno-lint-ignore no-explicit-any
type Json = any;

const HOUR = 3_600_000;
const BERLIN_DAY = new Intl.DateTimeFormat("de-DE", {
  timeZone: "Europe/Berlin",
  day: "2-digit",
  month: "2-digit",
  year: "numeric",
});
const BERLIN_TIME = new Intl.DateTimeFormat("de-DE", {
  timeZone: "Europe/Berlin",
  hour: "2-digit",
  minute: "2-digit",
});
/** How a slot start appears in a draft: its German date and its local start time. */
const shown = (iso: string) => [BERLIN_DAY.format(new Date(iso)), BERLIN_TIME.format(new Date(iso))];

Deno.test("the service's agent: proposals, approval once, discard, rejections, property changes, events", async (t) => {
  const w = await eventsWorld();
  const db = w.tdb.db;
  const rx = w.receivers[0]!;
  const apps: ConnectedApp[] = [];
  try {
    const provider = await connectApp(w, w.provider.email, "v2-modern");
    const seeker = await connectApp(w, w.seeker.email, "v2-legacy");
    // A second app of the same provider: it subscribes, the first one acts, so every proposal is another app's.
    const observer = await connectApp(w, w.provider.email, "v2-legacy");
    apps.push(provider, seeker, observer);
    const A = w.listingId;
    const [B, C] = await insertListings(db, w.officeId, [
      { ...sampleListing(21, prng(21), Date.now()), beispiel: true, status: "published" },
      { ...sampleListing(22, prng(22), Date.now()), beispiel: true, status: "published" },
    ]) as [string, string];

    /** Structured content of a tool call that must succeed. */
    const ok = async (app: ConnectedApp, name: string, args: Record<string, unknown>): Promise<Json> => {
      const res = await app.callTool(name, args);
      assert.notEqual(res.isError, true, `${name}: ${JSON.stringify(res.content)}`);
      return res.structuredContent;
    };
    /** The error code of a tool call that must fail. */
    const fails = async (app: ConnectedApp, name: string, args: Record<string, unknown>): Promise<string> => {
      const res = await app.callTool(name, args);
      assert.equal(res.isError, true, `${name} should fail: ${JSON.stringify(res.structuredContent)}`);
      return JSON.parse(res.content[0].text).error;
    };
    /** The proposals of one inquiry (via the provider's tool). */
    const proposalsOf = async (inquiryId: string): Promise<Json[]> => {
      const all = await ok(provider, "list_proposals", { page_size: 60 });
      return all.items.filter((p: Json) => p.anfrage_id === inquiryId);
    };
    /** reply.received rows of an inquiry. */
    const repliesRecorded = async (inquiryId: string) =>
      (await listOutbox(db, { limit: 10_000, name: "reply.received" })).filter((r) =>
        r.data.inquiry_id === inquiryId
      ).length;
    /** Provider messages of an inquiry as the seeker sees them. */
    const providerMessages = async (inquiryId: string): Promise<Json[]> =>
      (await ok(seeker, "get_inquiry", { inquiry_id: inquiryId })).messages.filter((m: Json) =>
        m.sender === "provider"
      );
    /** An inquiry by someone without an account, as from e-mail or a portal. */
    let anon = 0;
    const anonymous = async (listingId: string, quelle: "email" | "portal" | "service" = "email") => {
      const n = ++anon;
      const r = await sendInquiryAs(w.t.deps, {
        listingId,
        inquirer: { seekerId: null, name: `Erika Muster ${n}`, email: `erika${n}@example.org`, phone: null },
        message: "Ist das Objekt noch zu haben?",
        quelle,
        origin: null,
      });
      return { id: r.inquiryId, name: `Erika Muster ${n}` };
    };

    // Known facts of listing A; its area is empty so a document can complete it.
    const listingA = await ok(provider, "update_property", {
      id: A,
      total_rooms: 3,
      square_meters: null,
      asked_price: 350_000,
      transaction_type: "buy",
    });

    // proposal.pending subscriptions: one filtered to listing A (now), one to an inquiry (after it exists).
    const subs: Array<
      { id: string; filter: Record<string, string>; before: Set<string>; app: ConnectedApp }
    > = [];
    /** Subscribes once every earlier event is dispatched, so exactly the later ones are its to receive. */
    const subscribe = async (filter: Record<string, string>, app = observer) => {
      await until(
        async () => (await listOutbox(db, { limit: 1, pendingOnly: true })).length === 0,
        15_000,
        "outbox drained",
      );
      const before = new Set((await listOutbox(db, { limit: 100_000 })).map((r) => r.id));
      const secret = newSecret();
      w.secrets[0]!.push(secret);
      const r = await app.call(
        "events/subscribe",
        subscribeParams("proposal.pending", `${rx.url}/p${subs.length}`, secret, filter),
      );
      subs.push({ id: r.id as string, filter, before, app });
    };
    await subscribe({ objekt_id: A });

    const base = Math.ceil(w.t.now() / HOUR) * HOUR;
    const created = await ok(provider, "create_viewing_slots", {
      listing_id: A,
      slots: [
        {
          start: new Date(base + 3 * HOUR).toISOString(),
          end: new Date(base + 4 * HOUR).toISOString(),
          places: 1,
        },
        {
          start: new Date(base + 29 * HOUR).toISOString(),
          end: new Date(base + 30 * HOUR).toISOString(),
          places: 4,
        },
      ],
    });
    const [slotFull, slotFree] = created.items as [Json, Json];

    let X = "";
    let firstReply: Json;
    await t.step("a draft reply for each new inquiry, from facts, free slots and template", async () => {
      const sent = await ok(seeker, "send_inquiry", { listing_id: A, message: "Ist die Wohnung noch frei?" });
      X = sent.inquiry_id;
      const [p] = await proposalsOf(X);
      assert.equal((await proposalsOf(X)).length, 1);
      assert.equal(p.vorschlag_art, "reply");
      assert.equal(p.geht_hinaus, true);
      assert.equal(p.status, "offen");
      assert.equal(p.objekt_id, A);
      assert.equal(p.datei_id, null);
      assert.equal(p.aenderungen, null);
      assert.equal(p.decided_at, null);
      assert.ok(p.text.includes("Sucher"), "addresses the inquirer by name");
      assert.ok(p.text.includes(`„${listingA.title}“`), "names the listing");
      assert.ok(p.text.includes("Kaufpreis 350.000\u00a0€"), "states the price in whole euros");
      assert.ok(p.text.includes("3 Zimmer"), "states the rooms");
      for (const s of [slotFull, slotFree]) {
        for (const part of shown(s.start)) assert.ok(p.text.includes(part));
      }
      firstReply = p;
      assert.deepEqual(await ok(provider, "get_proposal", { vorschlag_id: p.vorschlag_id }), p);
      // The event names it (data: IDs + satz only).
      const rows = (await listOutbox(db, { limit: 100, name: "proposal.pending" }))
        .filter((r) => r.data.vorschlag_id === p.vorschlag_id);
      assert.equal(rows.length, 1);
      assert.deepEqual({ ...rows[0]!.data, satz: "" }, {
        vorschlag_id: p.vorschlag_id,
        vorschlag_art: "reply",
        geht_hinaus: true,
        anfrage_id: X,
        objekt_id: A,
        satz: "",
      });
      assert.equal(rows[0]!.ownerOfficeId, w.officeId);
      assert.equal(rows[0]!.originClientId, seeker.clientId, "the agent acted inside the seeker app's call");
      const satz = String(rows[0]!.data.satz);
      assert.ok(!satz.includes("Sucher") && !satz.includes("frei?"), "no names or message text");

      // The seeker books the one place of the first slot: a later draft names only the free slot.
      await ok(seeker, "book_viewing", { inquiry_id: X, slot_id: slotFull.id });
      for (const quelle of ["email", "portal"] as const) {
        const e = await anonymous(A, quelle);
        const ps = await proposalsOf(e.id);
        assert.equal(ps.length, 1, `one draft for quelle ${quelle}`);
        assert.ok(ps[0].text.includes(e.name));
        for (const part of shown(slotFree.start)) assert.ok(ps[0].text.includes(part));
        assert.ok(!ps[0].text.includes(shown(slotFull.start)[1]!), "a full slot is not offered");
      }
      await subscribe({ anfrage_id: X });
    });

    await t.step("the office's template is used; null restores the built-in one", async () => {
      const own = await ok(provider, "set_proposal_template", {
        art: "reply",
        text: "Hallo {name}, zu {titel}: {termine} {unbekannt}",
      });
      assert.equal(own.eigene, true);
      const e = await anonymous(A);
      const [p] = await proposalsOf(e.id);
      assert.ok(p.text.startsWith(`Hallo ${e.name}, zu „${listingA.title}“:`), p.text);
      assert.ok(p.text.includes("{unbekannt}"), "unknown placeholders stay");
      for (const part of shown(slotFree.start)) assert.ok(p.text.includes(part));
      const reset = await ok(provider, "set_proposal_template", { art: "reply", text: null });
      assert.equal(reset.eigene, false);
      assert.ok(reset.text.includes("{termine}"));
      assert.equal(
        await fails(provider, "set_proposal_template", { art: "reply", text: "   " }),
        "invalid_request",
      );
      assert.equal(
        await fails(provider, "set_proposal_template", { art: "other", text: "x" }),
        "invalid_arguments",
      );
    });

    await t.step("approving sends exactly once; a second approve is conflict and sends nothing", async () => {
      const r = await ok(provider, "approve_proposal", { vorschlag_id: firstReply.vorschlag_id });
      assert.equal(r.vorschlag.status, "freigegeben");
      assert.ok(r.vorschlag.decided_at);
      assert.equal(typeof r.nachricht_id, "string");
      const msgs = await providerMessages(X);
      assert.deepEqual(msgs.map((m) => [m.id, m.body]), [[r.nachricht_id, firstReply.text]]);
      assert.equal(await repliesRecorded(X), 1);
      for (const tool of ["approve_proposal", "discard_proposal"]) {
        assert.equal(await fails(provider, tool, { vorschlag_id: firstReply.vorschlag_id }), "conflict");
      }
      assert.equal(
        await fails(provider, "edit_and_approve_proposal", {
          vorschlag_id: firstReply.vorschlag_id,
          text: "Neu",
        }),
        "conflict",
      );
      assert.equal((await providerMessages(X)).length, 1, "the seeker sees exactly one reply");
      assert.equal(await repliesRecorded(X), 1, "reply.received recorded once");
      const inquiry = await ok(seeker, "get_inquiry", { inquiry_id: X });
      assert.equal(inquiry.status, "answered");
    });

    await t.step("concurrent approvals: exactly one sends", async () => {
      const sent = await ok(seeker, "send_inquiry", {
        listing_id: A,
        message: "Noch eine Frage zum Keller.",
      });
      const [p] = await proposalsOf(sent.inquiry_id);
      const results = await Promise.all(
        Array.from(
          { length: 5 },
          () => provider.callTool("approve_proposal", { vorschlag_id: p.vorschlag_id }),
        ),
      );
      const good = results.filter((res) => res.isError !== true);
      assert.equal(good.length, 1);
      for (const res of results.filter((res) => res.isError === true)) {
        assert.equal(JSON.parse(res.content[0].text).error, "conflict");
      }
      assert.equal((await providerMessages(sent.inquiry_id)).length, 1);
      assert.equal(await repliesRecorded(sent.inquiry_id), 1);
    });

    await t.step("discarding sends nothing; edit_and_approve sends the edited text", async () => {
      const sent = await ok(seeker, "send_inquiry", { listing_id: B, message: "Gibt es einen Stellplatz?" });
      const [p] = await proposalsOf(sent.inquiry_id);
      const d = await ok(provider, "discard_proposal", { vorschlag_id: p.vorschlag_id });
      assert.equal(d.status, "verworfen");
      assert.equal((await providerMessages(sent.inquiry_id)).length, 0);
      assert.equal(await repliesRecorded(sent.inquiry_id), 0);
      assert.equal((await ok(seeker, "get_inquiry", { inquiry_id: sent.inquiry_id })).status, "open");
      assert.equal(await fails(provider, "approve_proposal", { vorschlag_id: p.vorschlag_id }), "conflict");
      assert.equal(await fails(provider, "discard_proposal", { vorschlag_id: p.vorschlag_id }), "conflict");

      const e = await anonymous(B);
      const [q] = await proposalsOf(e.id);
      // An edit that does not fit a reply changes nothing.
      assert.equal(
        await fails(provider, "edit_and_approve_proposal", {
          vorschlag_id: q.vorschlag_id,
          aenderungen: { asked_price: 1 },
        }),
        "invalid_request",
      );
      assert.equal(
        await fails(provider, "edit_and_approve_proposal", { vorschlag_id: q.vorschlag_id, text: " " }),
        "invalid_request",
      );
      assert.deepEqual(await ok(provider, "get_proposal", { vorschlag_id: q.vorschlag_id }), q);
      const edited = `Guten Tag ${e.name}, gern zeigen wir Ihnen das Objekt am Samstag.`;
      const r = await ok(provider, "edit_and_approve_proposal", {
        vorschlag_id: q.vorschlag_id,
        text: edited,
      });
      assert.equal(r.vorschlag.text, edited);
      assert.equal(r.vorschlag.status, "freigegeben");
      const thread = await ok(provider, "get_inquiry", { inquiry_id: e.id });
      assert.deepEqual(
        thread.messages.filter((m: Json) => m.sender === "provider").map((m: Json) => [m.id, m.body]),
        [[r.nachricht_id, edited]],
      );
      assert.equal(thread.status, "answered");
    });

    await t.step(
      "a property change from a processed document; geht_hinaus false; approved once",
      async () => {
        const file = async (sorte: string, angaben: Record<string, unknown>, failed = false) => {
          const id = crypto.randomUUID();
          const hash = Array.from(
            crypto.getRandomValues(new Uint8Array(32)),
            (b) => b.toString(16).padStart(2, "0"),
          )
            .join("");
          const at = new Date(w.t.now());
          await sql`insert into files (id, listing_id, office_id, name, sorte, content, size_bytes, sha256, status,
            fehler, angaben, uploaded_at, due_at, processed_at)
          values (${id}, ${A}, ${w.officeId}, 'expose.pdf', ${sorte}, decode('255044462d', 'hex'), 5, ${hash},
            ${failed ? "failed" : "processed"}, ${failed ? "encrypted" : null},
            ${JSON.stringify(angaben)}::text::jsonb, ${at}, ${at}, ${at})`.execute(db.kysely);
          await act(w.t.deps, officeWho(w.officeId), (a) => proposeForDocument(a, id));
          const all = await ok(provider, "list_proposals", { objekt_id: A, page_size: 60 });
          return all.items.filter((p: Json) => p.datei_id === id);
        };
        // Same rooms, new price, an area for the empty field.
        const [p, ...more] = await file("brochure", { zimmer: 3, wohnflaeche_m2: 81.5, preis_eur: 365_000 });
        assert.equal(more.length, 0);
        assert.equal(p.vorschlag_art, "property_change");
        assert.equal(p.geht_hinaus, false);
        assert.equal(p.anfrage_id, null);
        assert.equal(p.text, null);
        assert.deepEqual(p.aenderungen, {
          square_meters: { alt: null, neu: 81.5 },
          asked_price: { alt: 350_000, neu: 365_000 },
        });
        const ev = (await listOutbox(db, { limit: 100, name: "proposal.pending" }))
          .find((r) => r.data.vorschlag_id === p.vorschlag_id)!;
        assert.deepEqual({ ...ev.data, satz: "" }, {
          vorschlag_id: p.vorschlag_id,
          vorschlag_art: "property_change",
          geht_hinaus: false,
          anfrage_id: null,
          objekt_id: A,
          satz: "",
        });
        // Nothing new: same values, an energy certificate, a failed document.
        assert.deepEqual(await file("brochure", { zimmer: 3, preis_eur: 350_000 }), []);
        assert.deepEqual(
          await file("energy_certificate", { energieeffizienzklasse: "B", baujahr: 1990 }),
          [],
        );
        assert.deepEqual(await file("brochure", { zimmer: 9 }, true), []);

        const outboxBefore = (await listOutbox(db, { limit: 10_000 })).length;
        assert.equal(
          await fails(provider, "edit_and_approve_proposal", {
            vorschlag_id: p.vorschlag_id,
            aenderungen: { title: 1 },
          }),
          "invalid_request",
        );
        assert.equal(
          await fails(provider, "edit_and_approve_proposal", { vorschlag_id: p.vorschlag_id, text: "x" }),
          "invalid_request",
        );
        const r = await ok(provider, "edit_and_approve_proposal", {
          vorschlag_id: p.vorschlag_id,
          aenderungen: { asked_price: 360_000 },
        });
        assert.equal(r.nachricht_id, null);
        assert.deepEqual(r.vorschlag.aenderungen, {
          square_meters: { alt: null, neu: 81.5 },
          asked_price: { alt: 350_000, neu: 360_000 },
        });
        const after = await ok(provider, "get_property", { id: A });
        assert.equal(after.square_meters, 81.5);
        assert.equal(after.asked_price, 360_000);
        assert.equal(after.total_rooms, 3);
        assert.equal(after.status, "published");
        assert.equal(await fails(provider, "approve_proposal", { vorschlag_id: p.vorschlag_id }), "conflict");
        assert.equal((await listOutbox(db, { limit: 10_000 })).length, outboxBefore, "sends nothing");

        // A brochure with more rooms: approved as proposed.
        const [q] = await file("brochure", { zimmer: "3,5" });
        assert.deepEqual(q.aenderungen, { total_rooms: { alt: 3, neu: 3.5 } });
        await ok(provider, "approve_proposal", { vorschlag_id: q.vorschlag_id });
        assert.equal((await ok(provider, "get_property", { id: A })).total_rooms, 3.5);
      },
    );

    await t.step("another office sees none of them", async () => {
      const office2 = await createOffice(db, "Anderes Büro");
      const email = "andere@example.org";
      const other = await createPerson(w.t.auth, db, {
        email,
        name: "Andere",
        password: PASSWORD,
        role: "provider",
      });
      await startMembership(db, other, office2);
      const app2 = await connectApp(w, email, "v2-modern", { scope: "lesen offline_access" });
      apps.push(app2);
      const [open] = (await ok(provider, "list_proposals", { status: "offen" })).items;
      assert.ok(open);
      for (const tool of ["get_proposal", "approve_proposal", "discard_proposal"]) {
        assert.equal(await fails(app2, tool, { vorschlag_id: open.vorschlag_id }), "not_found");
        assert.equal(await fails(provider, tool, { vorschlag_id: "kein-uuid" }), "not_found");
        assert.equal(await fails(provider, tool, { vorschlag_id: crypto.randomUUID() }), "not_found");
      }
      assert.equal(
        await fails(app2, "edit_and_approve_proposal", { vorschlag_id: open.vorschlag_id, text: "x" }),
        "not_found",
      );
      assert.equal((await ok(app2, "list_proposals", {})).total, 0);
      assert.equal(await fails(app2, "list_proposals", { objekt_id: A }), "not_found");
      assert.equal((await ok(provider, "get_proposal", { vorschlag_id: open.vorschlag_id })).status, "offen");
    });

    await t.step("withdrawing or reserving a listing proposes a rejection per ongoing inquiry", async () => {
      // C: an open inquiry, an answered one, a rejected one.
      const c1 = await anonymous(C);
      const c2 = await anonymous(C);
      const c3 = await anonymous(C);
      await ok(provider, "reply_to_inquiry", { inquiry_id: c2.id, message: "Gern." });
      await ok(provider, "reject_inquiry", { inquiry_id: c3.id });
      assert.equal(await fails(provider, "reserve_property", { id: crypto.randomUUID() }), "not_found");
      // The acting app subscribes to C too: the rejections its own call causes must not come back to it.
      await subscribe({ objekt_id: C }, provider);
      await subscribe({ objekt_id: C });
      const reserved = await ok(provider, "reserve_property", { id: C });
      assert.equal(reserved.status, "reserved");
      assert.equal((await fetch(`${w.origin}/api/public/properties/${C}`)).status, 404, "not shown publicly");
      const rejections = async (id: string) =>
        (await proposalsOf(id)).filter((p: Json) => p.vorschlag_art === "rejection");
      for (const e of [c1, c2]) {
        const [r, ...more] = await rejections(e.id);
        assert.equal(more.length, 0);
        assert.equal(r.geht_hinaus, true);
        assert.ok(r.text.includes("reserviert") && r.text.includes(e.name), r.text);
      }
      assert.deepEqual(await rejections(c3.id), []);
      // Reserving again, or withdrawing now, adds no second open rejection.
      await ok(provider, "reserve_property", { id: C });
      assert.equal((await ok(provider, "withdraw_property", { id: C })).status, "withdrawn");
      for (const e of [c1, c2]) assert.equal((await rejections(e.id)).length, 1);
      assert.equal(await fails(provider, "reserve_property", { id: C }), "conflict", "only published");

      // Approving a rejection rejects the inquiry with its text; the inquiry's reply draft can no longer be sent.
      const [rej] = await rejections(c1.id);
      const r = await ok(provider, "approve_proposal", { vorschlag_id: rej.vorschlag_id });
      const thread = await ok(provider, "get_inquiry", { inquiry_id: c1.id });
      assert.equal(thread.status, "rejected");
      assert.deepEqual(
        thread.messages.filter((m: Json) => m.sender === "provider").map((m: Json) => [m.id, m.body]),
        [[r.nachricht_id, rej.text]],
      );
      const [draft] = (await proposalsOf(c1.id)).filter((p: Json) => p.vorschlag_art === "reply");
      assert.equal(
        await fails(provider, "approve_proposal", { vorschlag_id: draft.vorschlag_id }),
        "conflict",
      );
      assert.deepEqual(
        await ok(provider, "get_proposal", { vorschlag_id: draft.vorschlag_id }),
        draft,
        "still open",
      );

      // Withdrawing A: every ongoing inquiry of A gets a rejection (X among them).
      const live = (await ok(provider, "list_inquiries", { listing_id: A, page_size: 60 })).items
        .filter((i: Json) => i.status === "open" || i.status === "answered");
      const w1 = await ok(provider, "withdraw_property", { id: A });
      assert.equal(w1.status, "withdrawn");
      for (const i of live) assert.equal((await rejections(i.id)).length, 1, i.id);
      assert.ok(live.some((i: Json) => i.id === X));
      const again = (await ok(provider, "publish_property", { id: C })).status;
      assert.equal(again, "published");
    });

    await t.step(
      "proposal.pending reaches the verifying receiver, filtered by objekt_id and anfrage_id",
      async () => {
        const rows = await listOutbox(db, { limit: 10_000, name: "proposal.pending" });
        const ids = rows.map((r) => r.id);
        await until(
          async () => {
            const pending = await db.kysely.selectFrom("event_outbox").select("id").where("id", "in", ids)
              .where("dispatched_at", "is", null).execute();
            if (pending.length > 0) return false;
            const ds = await db.kysely.selectFrom("event_deliveries").select("state").where(
              "outbox_id",
              "in",
              ids,
            )
              .execute();
            return ds.every((d) => d.state !== "pending" && d.state !== "sending");
          },
          20_000,
          "proposal.pending delivered",
        );
        /** The rows a subscription must get: written after it, matching its filter, not caused by its app. */
        const expected = (s: (typeof subs)[number], r: OutboxRow) =>
          !s.before.has(r.id) && Object.entries(s.filter).every(([k, v]) => r.data[k] === v) &&
          r.originClientId !== s.app.clientId;
        // Every rejection of C was proposed inside the acting app's call and carries it as origin.
        const ofC = rows.filter((r) => r.data.objekt_id === C && r.data.vorschlag_art === "rejection");
        assert.ok(ofC.length >= 2);
        assert.deepEqual(new Set(ofC.map((r) => r.originClientId)), new Set([provider.clientId]));
        for (const s of subs) {
          const want = rows.filter((r) => expected(s, r)).map((r) => `evt_${r.id.replaceAll("-", "")}`)
            .sort();
          const got = rx.deliveries.filter((d) => d.headers["x-mcp-subscription-id"] === s.id);
          if (s.app === provider) {
            assert.deepEqual(
              got.map((d) => (d.json as Json).data.vorschlag_art),
              [],
              "no echo to the acting app",
            );
            continue;
          }
          assert.ok(want.length > 0, `${JSON.stringify(s.filter)}: something to deliver`);
          assert.deepEqual(got.map((d) => d.headers["webhook-id"]).sort(), want, JSON.stringify(s.filter));
          for (const d of got) {
            assert.deepEqual(d.verified, { standardwebhooks: true, svix: true });
            const body = d.json as Json;
            assert.equal(body.name, "proposal.pending");
            const row = rows.find((r) => `evt_${r.id.replaceAll("-", "")}` === body.eventId)!;
            assert.deepEqual(body.data, row.data);
            EVENT_DATA["proposal.pending"].parse(body.data);
          }
        }
        // The anfrage_id subscription got X's rejection only.
        const xs = rx.deliveries.filter((d) => d.headers["x-mcp-subscription-id"] === subs[1]!.id)
          .map((d) => (d.json as Json).data);
        assert.deepEqual(xs.map((d: Json) => [d.anfrage_id, d.vorschlag_art, d.geht_hinaus]), [[
          X,
          "rejection",
          true,
        ]]);
      },
    );
  } finally {
    for (const app of apps) await app.close().catch(() => {});
    await w.close();
  }
});
