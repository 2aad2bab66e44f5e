/**
 * Inquiry tools on both MCP servers through real clients of every kind: the whole thread (seeker sends, provider
 * lists, reads and replies, seeker reads and writes again, provider rejects, further messages refused), the exact
 * outbox row of every triggering action (name, whole `data`, owner, origin) and nothing more, anonymous inquirers
 * (no reply.received), and isolation: foreign, malformed and unknown ids all answer the same `not_found` and
 * change nothing.
 */
import assert from "node:assert/strict";
import { sql } from "kysely";
import { createApiKey } from "../auth/api_keys.ts";
import { prng, sampleListing } from "../catalogue/sample.ts";
import { insertUser, startMembership } from "../db/accounts.ts";
import { insertListings } from "../db/listings.ts";
import { ensureOffice } from "../db/offices.ts";
import { listOutbox, type OutboxRow } from "../db/outbox.ts";
import { codedError } from "../mcp/tools/tool_error.ts";
import { CLIENT_KINDS, connectClient, type ConnectedClient, mcpWorld } from "./mcp_helpers.ts";
import { fileWorld, sendInquiryAs } from "./helpers.ts";

const DAY = 86_400_000;
const w = await fileWorld(() => mcpWorld());
const db = w.tdb.db;
const deps = w.t.deps;
const SEEKER_NAME = "Suchende";
const SEEKER_EMAIL = "suchende@example.org";

// A second office with its own provider, key and published listing; a second seeker with a key; a draft listing.
const office2 = await ensureOffice(db, "Zweites Büro");
const provider2 = await insertUser(db, {
  email: "anbieter2@example.org",
  name: "Anbieter Zwei",
  role: "seeker",
});
await startMembership(db, provider2, office2);
const provider2Key = await createApiKey(db, provider2, "Anbieter 2");
const seeker2 = await insertUser(db, {
  email: "suchende2@example.org",
  name: "Suchende Zwei",
  role: "seeker",
});
const seeker2Key = await createApiKey(db, seeker2, "Suche 2");
const published = (i: number) => ({
  ...sampleListing(i, prng(100 + i), Date.now()),
  beispiel: true,
  status: "published" as const,
  published_at: new Date(),
});
const [listing2] = await insertListings(db, office2, [published(1)]);
const [draftListing] = await insertListings(db, w.officeId, [{ ...published(2), status: "draft" }]);
const listingTitle = (await db.kysely.selectFrom("listings").select("title").where("id", "=", w.listingId)
  .executeTakeFirstOrThrow()).title!;

// deno-lint-ignore no-explicit-any
type Res = any;

/** The structured content of a successful call. */
function ok(res: Res): Res {
  assert.notEqual(res.isError, true, JSON.stringify(res.content));
  return res.structuredContent;
}

/** The error code of an `isError` result. */
function errorCode(res: Res): string {
  assert.equal(res.isError, true, JSON.stringify(res.structuredContent ?? res.content));
  return JSON.parse(res.content[0].text).error;
}

/** Ids of every outbox row so far. */
async function outboxIds(): Promise<Set<string>> {
  return new Set((await listOutbox(db, { limit: 10_000 })).map((r) => r.id));
}

/** Outbox rows written since `before`. */
async function newRows(before: Set<string>): Promise<OutboxRow[]> {
  return (await listOutbox(db, { limit: 10_000 })).filter((r) =>
    !before.has(r.id) && r.name !== "proposal.pending"
  );
}

/** What one triggering action must have written into the outbox. */
interface Expected {
  name: string;
  data: Record<string, unknown>;
  owner: { office: string } | { seeker: string };
  keyId: string | null;
  /** Texts the `satz` must not contain (message text, names, e-mails). */
  secret: string[];
}

/** Asserts that exactly one outbox row was written since `before` and that it is `e`. */
async function expectOneEvent(before: Set<string>, e: Expected): Promise<void> {
  const rows = await newRows(before);
  assert.equal(rows.length, 1, `exactly one outbox row, got ${rows.map((r) => r.name).join(", ")}`);
  const row = rows[0]!;
  assert.equal(row.name, e.name);
  const satz = row.data.satz;
  assert.equal(typeof satz, "string");
  assert.ok((satz as string).length > 0);
  for (const s of e.secret) assert.ok(!(satz as string).includes(s), `satz must not contain ${s}: ${satz}`);
  assert.deepEqual(row.data, { ...e.data, satz });
  assert.equal(row.server, "office" in e.owner ? "anbieter" : "suche");
  assert.equal(row.ownerOfficeId, "office" in e.owner ? e.owner.office : null);
  assert.equal(row.ownerUserId, "seeker" in e.owner ? e.owner.seeker : null);
  assert.equal(row.originApiKeyId, e.keyId);
  assert.equal(row.originClientId, null);
  assert.equal(row.createdAt.getTime(), w.t.now());
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

/** The stored inquiry row. */
async function inquiryRow(id: string) {
  return await db.kysely.selectFrom("inquiries").selectAll().where("id", "=", id).executeTakeFirstOrThrow();
}

const SEEKER_TOOLS = ["send_inquiry", "list_inquiries", "get_inquiry", "send_message"];
const PROVIDER_TOOLS = ["list_inquiries", "get_inquiry", "reply_to_inquiry", "reject_inquiry"];
const READS = { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false };
const WRITES = { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false };
const REJECT = { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: false };
const ANNOTATIONS: Record<string, typeof READS> = {
  send_inquiry: WRITES,
  list_inquiries: READS,
  get_inquiry: READS,
  send_message: WRITES,
  reply_to_inquiry: WRITES,
  reject_inquiry: REJECT,
};

/** Asserts that `client` lists `names` with their annotations and an output schema. */
async function assertTools(client: ConnectedClient, names: string[]): Promise<void> {
  const { tools } = await client.listTools();
  for (const name of names) {
    const tool = tools.find((t) => t.name === name);
    assert.ok(tool, `${name} is listed`);
    const a = tool.annotations ?? {};
    assert.deepEqual(
      {
        readOnlyHint: a.readOnlyHint,
        destructiveHint: a.destructiveHint,
        idempotentHint: a.idempotentHint,
        openWorldHint: a.openWorldHint,
      },
      ANNOTATIONS[name],
      name,
    );
    assert.ok(tool.outputSchema, `${name} has an output schema`);
  }
}

for (const kind of CLIENT_KINDS) {
  Deno.test(`${kind}: the whole inquiry thread on both servers, with its outbox rows`, async (t) => {
    w.t.advance(DAY + 1); // a new day: earlier inquiries do not count against the limits
    const seeker = await connectClient(kind, w.url, w.seeker.key);
    const provider = await connectClient(kind, w.url, w.provider.key);
    const tag = `${kind}-${crypto.randomUUID().slice(0, 8)}`;
    const first = `Ist die Wohnung noch frei? (${tag})`;
    const reply = `Ja, gerne. Termin am Montag? (${tag})`;
    const again = `Montag passt gut. (${tag})`;
    const refusal = `Leider schon vergeben. (${tag})`;
    const phone = "+49 30 1234567";
    const secret = (msg: string) => [msg, SEEKER_NAME, SEEKER_EMAIL, phone];
    let inquiryId = "";
    let firstMessageId = "";
    try {
      await t.step("both servers list their inquiry tools with fitting annotations", async () => {
        await assertTools(seeker, SEEKER_TOOLS);
        await assertTools(provider, PROVIDER_TOOLS);
      });

      await t.step("seeker: send_inquiry stores an open inquiry and writes inquiry.received", async () => {
        const before = await outboxIds();
        const data = ok(
          await seeker.callTool("send_inquiry", { listing_id: w.listingId, message: first, phone }),
        );
        inquiryId = data.inquiry_id;
        firstMessageId = data.message_id;
        assert.deepEqual(data, {
          inquiry_id: inquiryId,
          message_id: firstMessageId,
          listing_id: w.listingId,
        });
        const row = await inquiryRow(inquiryId);
        assert.deepEqual(
          {
            listing: row.listing_id,
            office: row.office_id,
            quelle: row.quelle,
            seeker: row.seeker_id,
            name: row.name,
            email: row.email,
            phone: row.phone,
            status: row.status,
            created: new Date(row.created_at).getTime(),
          },
          {
            listing: w.listingId,
            office: w.officeId,
            quelle: "service",
            seeker: w.seeker.userId,
            name: SEEKER_NAME,
            email: SEEKER_EMAIL,
            phone,
            status: "open",
            created: w.t.now(),
          },
        );
        await expectOneEvent(before, {
          name: "inquiry.received",
          data: { anfrage_id: inquiryId, objekt_id: w.listingId, quelle: "service" },
          owner: { office: w.officeId },
          keyId: w.seeker.keyId,
          secret: secret(first),
        });
      });

      await t.step(
        "provider: list_inquiries finds it, with the listing and status filters; reads write nothing",
        async () => {
          const before = await outboxIds();
          const all = ok(await provider.callTool("list_inquiries", {}));
          assert.equal(all.page, 1);
          assert.equal(all.page_size, 24);
          const item = all.items.find((i: Res) => i.id === inquiryId);
          assert.ok(item, "the new inquiry is listed");
          assert.deepEqual(
            { ...item, created_at: undefined, updated_at: undefined, last_message_at: undefined },
            {
              id: inquiryId,
              listing_id: w.listingId,
              listing_title: listingTitle,
              status: "open",
              quelle: "service",
              message_count: 1,
              created_at: undefined,
              updated_at: undefined,
              last_message_at: undefined,
            },
          );
          assert.equal(item.created_at, new Date(w.t.now()).toISOString());
          assert.equal(item.last_message_at, item.created_at);
          const byListing = ok(
            await provider.callTool("list_inquiries", { listing_id: w.listingId, status: "open" }),
          );
          assert.ok(byListing.items.some((i: Res) => i.id === inquiryId));
          assert.ok(byListing.items.every((i: Res) => i.listing_id === w.listingId && i.status === "open"));
          const answered = ok(await provider.callTool("list_inquiries", { status: "answered" }));
          assert.ok(!answered.items.some((i: Res) => i.id === inquiryId));
          const paged = ok(await provider.callTool("list_inquiries", { page: 1, page_size: 1 }));
          assert.equal(paged.items.length, 1);
          assert.equal(paged.total, all.total);
          assert.equal(paged.items[0].id, inquiryId, "newest first");
          assert.equal((await newRows(before)).length, 0);
        },
      );

      await t.step("provider: get_inquiry shows the inquirer's contact and the thread", async () => {
        const thread = ok(await provider.callTool("get_inquiry", { inquiry_id: inquiryId }));
        assert.equal(thread.id, inquiryId);
        assert.equal(thread.name, SEEKER_NAME);
        assert.equal(thread.email, SEEKER_EMAIL);
        assert.equal(thread.phone, phone);
        assert.deepEqual(thread.messages, [
          {
            id: firstMessageId,
            sender: "seeker",
            body: first,
            created_at: new Date(w.t.now()).toISOString(),
          },
        ]);
      });

      await t.step(
        "provider: reply_to_inquiry answers it and writes reply.received for the seeker",
        async () => {
          w.t.advance(60_000);
          const before = await outboxIds();
          const data = ok(
            await provider.callTool("reply_to_inquiry", { inquiry_id: inquiryId, message: reply }),
          );
          assert.equal(data.inquiry_id, inquiryId);
          assert.equal(data.status, "answered");
          assert.equal((await inquiryRow(inquiryId)).status, "answered");
          await expectOneEvent(before, {
            name: "reply.received",
            data: { inquiry_id: inquiryId, listing_id: w.listingId },
            owner: { seeker: w.seeker.userId },
            keyId: w.provider.keyId,
            secret: secret(reply),
          });
        },
      );

      await t.step("seeker: list_inquiries and get_inquiry show the answer in order", async () => {
        const list = ok(await seeker.callTool("list_inquiries", { page_size: 60 }));
        const item = list.items.find((i: Res) => i.id === inquiryId);
        assert.equal(item.status, "answered");
        assert.equal(item.message_count, 2);
        assert.equal(item.last_message_at, new Date(w.t.now()).toISOString());
        assert.ok(list.items.every((i: Res) => i.listing_id === w.listingId), "only own inquiries");
        const thread = ok(await seeker.callTool("get_inquiry", { inquiry_id: inquiryId }));
        assert.deepEqual(thread.messages.map((m: Res) => [m.sender, m.body]), [["seeker", first], [
          "provider",
          reply,
        ]]);
        assert.equal(thread.status, "answered");
      });

      await t.step("seeker: send_message reopens it and writes message.received for the office", async () => {
        w.t.advance(60_000);
        const before = await outboxIds();
        const data = ok(await seeker.callTool("send_message", { inquiry_id: inquiryId, message: again }));
        assert.deepEqual(data, { inquiry_id: inquiryId, message_id: data.message_id, status: "open" });
        assert.equal((await inquiryRow(inquiryId)).status, "open");
        await expectOneEvent(before, {
          name: "message.received",
          data: { anfrage_id: inquiryId, objekt_id: w.listingId, nachricht_id: data.message_id },
          owner: { office: w.officeId },
          keyId: w.seeker.keyId,
          secret: secret(again),
        });
      });

      await t.step(
        "provider: reject_inquiry with a message rejects it and writes reply.received",
        async () => {
          w.t.advance(60_000);
          const before = await outboxIds();
          const data = ok(
            await provider.callTool("reject_inquiry", { inquiry_id: inquiryId, message: refusal }),
          );
          assert.equal(data.status, "rejected");
          assert.equal(typeof data.message_id, "string");
          assert.equal((await inquiryRow(inquiryId)).status, "rejected");
          await expectOneEvent(before, {
            name: "reply.received",
            data: { inquiry_id: inquiryId, listing_id: w.listingId },
            owner: { seeker: w.seeker.userId },
            keyId: w.provider.keyId,
            secret: secret(refusal),
          });
          const thread = ok(await provider.callTool("get_inquiry", { inquiry_id: inquiryId }));
          assert.deepEqual(thread.messages.map((m: Res) => m.body), [first, reply, again, refusal]);
          assert.equal(thread.message_count, 4);
        },
      );

      await t.step(
        "a rejected inquiry refuses every further message with conflict, writing nothing",
        async () => {
          const before = await counts();
          const outbox = await outboxIds();
          assert.equal(
            errorCode(await seeker.callTool("send_message", { inquiry_id: inquiryId, message: "Noch da?" })),
            "conflict",
          );
          assert.equal(
            errorCode(
              await provider.callTool("reply_to_inquiry", { inquiry_id: inquiryId, message: "Doch!" }),
            ),
            "conflict",
          );
          assert.equal(
            errorCode(await provider.callTool("reject_inquiry", { inquiry_id: inquiryId })),
            "conflict",
          );
          assert.deepEqual(await counts(), before);
          assert.equal((await newRows(outbox)).length, 0);
          assert.equal((await inquiryRow(inquiryId)).status, "rejected");
        },
      );

      await t.step("bad arguments: invalid_arguments, nothing written", async () => {
        const before = await counts();
        assert.equal(
          errorCode(await seeker.callTool("send_inquiry", { listing_id: w.listingId, message: "" })),
          "invalid_arguments",
        );
        assert.equal(
          errorCode(
            await seeker.callTool("send_message", { inquiry_id: inquiryId, message: "x".repeat(10_001) }),
          ),
          "invalid_arguments",
        );
        assert.equal(
          errorCode(await provider.callTool("list_inquiries", { status: "erledigt" })),
          "invalid_arguments",
        );
        assert.deepEqual(await counts(), before);
      });
    } finally {
      await seeker.close();
      await provider.close();
    }
  });
}

Deno.test("an anonymous inquiry (form): inquiry.received without origin; replies and rejections notify nobody", async (t) => {
  w.t.advance(DAY + 1);
  const client = await connectClient("v2-modern", w.url, w.provider.key);
  try {
    let inquiryId = "";
    await t.step("sendInquiry stores it with quelle and a normalised e-mail", async () => {
      const before = await outboxIds();
      const r = await sendInquiryAs(deps, {
        listingId: w.listingId,
        inquirer: { seekerId: null, name: "Erika Muster", email: "  Erika.Muster@Example.ORG ", phone: null },
        message: "Bitte um Rückruf.",
        quelle: "portal",
        origin: null,
      });
      inquiryId = r.inquiryId;
      const row = await inquiryRow(inquiryId);
      assert.equal(row.email, "erika.muster@example.org");
      assert.equal(row.seeker_id, null);
      assert.equal(row.quelle, "portal");
      await expectOneEvent(before, {
        name: "inquiry.received",
        data: { anfrage_id: inquiryId, objekt_id: w.listingId, quelle: "portal" },
        owner: { office: w.officeId },
        keyId: null,
        secret: ["Rückruf", "Erika", "erika.muster@example.org"],
      });
    });

    await t.step("reply and rejection write the messages but no outbox row", async () => {
      const before = await outboxIds();
      ok(await client.callTool("reply_to_inquiry", { inquiry_id: inquiryId, message: "Gern, wann?" }));
      const rejected = ok(await client.callTool("reject_inquiry", { inquiry_id: inquiryId }));
      assert.deepEqual(rejected, { inquiry_id: inquiryId, message_id: null, status: "rejected" });
      assert.equal((await newRows(before)).length, 0);
      const thread = ok(await client.callTool("get_inquiry", { inquiry_id: inquiryId }));
      assert.equal(thread.name, "Erika Muster");
      assert.equal(thread.email, "erika.muster@example.org");
      assert.equal(thread.phone, null);
      assert.equal(thread.status, "rejected");
      assert.deepEqual(thread.messages.map((m: Res) => m.sender), ["seeker", "provider"]);
      assert.ok(
        thread.messages[0].created_at < thread.messages[1].created_at,
        "strict order with a still clock",
      );
    });
  } finally {
    await client.close();
  }
});

for (const kind of CLIENT_KINDS) {
  Deno.test(`${kind}: foreign, malformed and unknown ids answer the same not_found and change nothing`, async () => {
    w.t.advance(DAY + 1);
    // An open inquiry of seeker 1 in office 1, and one of seeker 2 in office 2.
    const foreign = await sendInquiryAs(deps, {
      listingId: w.listingId,
      inquirer: { seekerId: w.seeker.userId, name: SEEKER_NAME, email: SEEKER_EMAIL, phone: null },
      message: "Fremde Anfrage",
      origin: null,
    });
    const own2 = await sendInquiryAs(deps, {
      listingId: listing2!,
      inquirer: { seekerId: seeker2, name: "Suchende Zwei", email: "suchende2@example.org", phone: null },
      message: "Eigene Anfrage",
      origin: null,
    });
    const foreignRow = await inquiryRow(foreign.inquiryId);
    const seeker = await connectClient(kind, w.url, seeker2Key.key);
    const provider = await connectClient(kind, w.url, provider2Key.key);
    const notFound = codedError("not_found").content;
    const before = await counts();
    const outbox = await outboxIds();
    const unknown = crypto.randomUUID();
    const attempts: Array<[ConnectedClient, string, Record<string, unknown>]> = [
      [seeker, "get_inquiry", { inquiry_id: foreign.inquiryId }],
      [seeker, "get_inquiry", { inquiry_id: foreign.inquiryId.toUpperCase() }],
      [seeker, "send_message", { inquiry_id: foreign.inquiryId, message: "Hallo?" }],
      [seeker, "get_inquiry", { inquiry_id: "keine-uuid" }],
      [seeker, "get_inquiry", { inquiry_id: unknown }],
      [seeker, "send_message", { inquiry_id: "../../x", message: "Hallo?" }],
      [seeker, "send_message", { inquiry_id: unknown, message: "Hallo?" }],
      [seeker, "send_inquiry", { listing_id: "kein-objekt", message: "Hallo?" }],
      [seeker, "send_inquiry", { listing_id: unknown, message: "Hallo?" }],
      [seeker, "send_inquiry", { listing_id: draftListing!, message: "Hallo?" }],
      [provider, "get_inquiry", { inquiry_id: foreign.inquiryId }],
      [provider, "reply_to_inquiry", { inquiry_id: foreign.inquiryId, message: "Antwort" }],
      [provider, "reject_inquiry", { inquiry_id: foreign.inquiryId, message: "Nein" }],
      [provider, "reject_inquiry", { inquiry_id: foreign.inquiryId }],
      [provider, "list_inquiries", { listing_id: w.listingId }],
      [provider, "list_inquiries", { listing_id: draftListing! }],
      [provider, "list_inquiries", { listing_id: unknown }],
      [provider, "list_inquiries", { listing_id: "' or 1=1 --" }],
      [provider, "get_inquiry", { inquiry_id: "" }],
      [provider, "reply_to_inquiry", { inquiry_id: unknown, message: "Antwort" }],
      [provider, "reject_inquiry", { inquiry_id: "nicht-da" }],
    ];
    try {
      for (const [client, tool, args] of attempts) {
        const res = await client.callTool(tool, args);
        const label = `${tool} ${JSON.stringify(args)}`;
        assert.equal(res.isError, true, label);
        assert.deepEqual(res.content, notFound, label);
        assert.equal(res.structuredContent, undefined, label);
      }
      assert.deepEqual(await counts(), before);
      assert.equal((await newRows(outbox)).length, 0);
      assert.deepEqual(await inquiryRow(foreign.inquiryId), foreignRow);

      const seekerList = ok(await seeker.callTool("list_inquiries", { page_size: 60 }));
      assert.ok(seekerList.items.some((i: Res) => i.id === own2.inquiryId));
      assert.ok(seekerList.items.every((i: Res) => i.listing_id === listing2), "only own inquiries");
      const providerList = ok(await provider.callTool("list_inquiries", { page_size: 60 }));
      assert.ok(providerList.items.some((i: Res) => i.id === own2.inquiryId));
      assert.ok(
        providerList.items.every((i: Res) => i.listing_id === listing2),
        "only the office's inquiries",
      );
      assert.equal(providerList.total, providerList.items.length);
    } finally {
      await seeker.close();
      await provider.close();
    }
  });
}
