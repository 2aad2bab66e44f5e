/**
 * The agent's workspace (`/anbieter`) over HTTP: the pages of a member's office; the isolation table (seekers,
 * members of another office, malformed and unknown ids: one and the same 404, nothing changed, rows compared
 * before and after); web actions against their MCP tools (same rows, same outbox event, whole rows compared but
 * ids, times and the app origin); form errors that name the field and write nothing.
 */
import assert from "node:assert/strict";
import { sql } from "kysely";
import { createApiKey } from "../auth/api_keys.ts";
import { createPerson } from "../auth/accounts.ts";
import { act } from "../deps.ts";
import { endMembership, startMembership } from "../db/accounts.ts";
import { insertListings, type NewListing } from "../db/listings.ts";
import { ensureOffice } from "../db/offices.ts";
import { bookViewing, createViewingSlots } from "../viewings/viewings.ts";
import {
  closeAfterAll,
  officeWho,
  openTestDb,
  request,
  seekerWho,
  sendInquiryAs,
  serveTestApp,
  testApp,
} from "./helpers.ts";
import { connectClient } from "./mcp_helpers.ts";

const PASSWORD = "werkbank-geheim-789";
const tdb = await openTestDb();
const db = tdb.db;
const served = await serveTestApp(db);
const { origin, app: a } = served;
closeAfterAll(served, tdb);

const officeA = await ensureOffice(db, "Büro Werkbank A");
const officeB = await ensureOffice(db, "Büro Werkbank B");

async function person(email: string, role: "provider" | "seeker", office?: string): Promise<string> {
  const id = await createPerson(a.auth, db, { email, name: email.split("@")[0]!, password: PASSWORD, role });
  if (office) await startMembership(db, id, office);
  return id;
}
const agentA = await person("agentin.a@example.org", "provider", officeA);
const agentB = await person("agent.b@example.org", "provider", officeB);
const seeker = await person("suchend.w@example.org", "seeker");

function row(title: string, p: Partial<NewListing> = {}): NewListing {
  return {
    status: "published",
    reference: null,
    title,
    description: "intern",
    city: "Werkstadt",
    postal_code: "10115",
    property_type: "apartment",
    transaction_type: "rent",
    asked_price: 900,
    total_rooms: 3,
    square_meters: 70,
    latitude: null,
    longitude: null,
    beispiel: false,
    published_at: new Date("2026-10-01T12:00:00Z"),
    ...p,
  };
}
const [listingA, listingA2] = await insertListings(db, officeA, [row("Wohnung A"), row("Wohnung A2")]);
const [listingB] = await insertListings(db, officeB, [row("Wohnung B")]);

const viaKey = () => ({ apiKeyId: crypto.randomUUID() });

async function inquire(listingId: string, name: string, email: string, seekerId: string | null = null) {
  return await sendInquiryAs(a.deps, {
    listingId,
    inquirer: { seekerId, name, email, phone: null },
    message: `Hallo, ich interessiere mich (${name}).`,
    origin: null,
  });
}
const inqA = await inquire(listingA!, "Gustav Gast", "gustav@example.org");
const inqB = await inquire(listingB!, "Berta Bremen", "berta@example.org");
const future = (h: number) => new Date(a.now() + h * 3_600_000).toISOString();
const slotsB = await act(
  a.deps,
  officeWho(officeB, agentB, viaKey()),
  (x) => createViewingSlots(x, listingB!, [{ start: future(48), end: future(49), places: 2 }]),
);
const slotB = slotsB.items[0]!.id;
const proposalB =
  (await sql<{ id: string }>`select id from proposals where office_id = ${officeB}`.execute(db.kysely))
    .rows[0]!.id;

/** A cookie jar over `app.request` (no redirects followed). */
class Jar {
  readonly cookies = new Map<string, string>();
  async send(
    path: string,
    init: RequestInit = {},
  ): Promise<{ status: number; html: string; headers: Headers }> {
    const headers = new Headers(init.headers);
    if (this.cookies.size) headers.set("cookie", [...this.cookies].map(([k, v]) => `${k}=${v}`).join("; "));
    headers.set("accept-language", "de-DE");
    const res = await request(a.app, path, { ...init, headers });
    for (const c of res.headers.getSetCookie()) {
      const [pair] = c.split(";");
      const eq = pair!.indexOf("=");
      const value = pair!.slice(eq + 1).trim();
      if (/max-age=0/i.test(c) || value === "") this.cookies.delete(pair!.slice(0, eq).trim());
      else this.cookies.set(pair!.slice(0, eq).trim(), value);
    }
    return { status: res.status, html: await res.text(), headers: res.headers };
  }
  /** POSTs a form with the jar's CSRF token. */
  post(path: string, fields: Record<string, string>) {
    return this.send(path, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ _csrf: this.cookies.get("immo_csrf") ?? "", ...fields }),
    });
  }
  async signIn(email: string): Promise<this> {
    await this.send("/anmelden");
    const res = await this.post("/anmelden", { email, password: PASSWORD });
    assert.equal(res.status, 303, res.html);
    await this.send("/anbieter/objekte"); // sets the CSRF cookie
    return this;
  }
}

const janeA = await new Jar().signIn("agentin.a@example.org");
const sam = await new Jar().signIn("suchend.w@example.org");

const TABLES = [
  "listings",
  "listing_contacts",
  "inquiries",
  "inquiry_messages",
  "proposals",
  "office_templates",
  "viewing_slots",
  "viewing_bookings",
  "files",
  "event_outbox",
  "mail_outbox",
];

/** Every row of the workspace's tables, as JSON text, sorted. */
async function snapshot(): Promise<Record<string, string[]>> {
  const out: Record<string, string[]> = {};
  for (const t of TABLES) {
    const r = await sql<{ j: string }>`select row_to_json(x)::text as j from ${sql.table(t)} x`.execute(
      db.kysely,
    );
    out[t] = r.rows.map((x) => x.j).sort();
  }
  return out;
}

Deno.test("workspace: a member sees the office's overview, stock, inquiries, viewings and proposals", async () => {
  const home = await janeA.send("/anbieter");
  assert.equal(home.status, 200);
  assert.match(home.html, /^<!DOCTYPE html>|^<html/i);
  assert.match(home.html, /data-status="published"><b>2<\/b>/);
  assert.match(home.html, /data-count="inquiries">\(1\)/);
  assert.match(home.html, /data-count="proposals">\(1\)/);
  const stock = await janeA.send("/anbieter/objekte");
  assert.ok(stock.html.includes(listingA!) && stock.html.includes(listingA2!));
  assert.ok(!stock.html.includes(listingB!));
  const found = await janeA.send("/anbieter/objekte?q=a2");
  assert.ok(found.html.includes(listingA2!) && !found.html.includes(`data-listing-id="${listingA}"`));
  const list = await janeA.send("/anbieter/anfragen");
  assert.ok(list.html.includes(inqA.inquiryId));
  assert.ok(!list.html.includes(inqB.inquiryId));
  assert.match(list.html, /data-channel="website"/);
  const thread = await janeA.send(`/anbieter/anfragen/${inqA.inquiryId}`);
  assert.equal(thread.status, 200);
  assert.match(thread.html, /gustav@example\.org/);
  assert.match(thread.html, /data-kind="reply"/);
  const slots = await janeA.send(`/anbieter/termine`);
  assert.ok(!slots.html.includes(slotB));
  const proposals = await janeA.send("/anbieter/vorschlaege");
  assert.ok(!proposals.html.includes(proposalB));
  for (const path of ["/anbieter/objekte/neu", "/anbieter/objekte/import", `/anbieter/objekte/${listingA}`]) {
    const page = await janeA.send(path);
    assert.equal(page.status, 200, path);
    assert.match(page.html, /name="_csrf"/);
  }
});

Deno.test("workspace: not signed in goes to the sign-in page", async () => {
  const res = await new Jar().send("/anbieter/objekte");
  assert.equal(res.status, 303);
  assert.equal(res.headers.get("location"), "/anmelden");
});

Deno.test("the header links to the workspace only for a member: a former member is not sent to a 404", async () => {
  const formerId = await person("ehemalig.w@example.org", "provider", officeA);
  await endMembership(db, formerId);
  const former = await new Jar().signIn("ehemalig.w@example.org");
  for (const path of ["/", "/objekte", `/objekte/${listingA}`, "/konto/apps"]) {
    const page = await former.send(path, { headers: { accept: "text/html" } });
    assert.equal(page.status, 200, path);
    assert.doesNotMatch(page.html, /href="\/anbieter"/, `${path} links a former member to the workspace`);
    const member = await janeA.send(path, { headers: { accept: "text/html" } });
    assert.match(member.html, /href="\/anbieter"/, `${path} links a member to the workspace`);
  }
  assert.equal((await former.send("/anbieter")).status, 404);
});

Deno.test("workspace isolation: 36 attempts answer the same 404 and change nothing", async () => {
  const unknown = crypto.randomUUID();
  const reference = await janeA.send(`/anbieter/objekte/${unknown}`);
  assert.equal(reference.status, 404);
  const seekerReference = await sam.send("/anbieter");
  assert.equal(seekerReference.status, 404);
  const ids = { listingB: listingB!, inqB: inqB.inquiryId, slotB, proposalB };
  const bad = ["nicht-eine-id", "00000000-0000-0000-0000-00000000000g", "%27%3B--", unknown];
  type Try = [string, string, Record<string, string>?];
  const memberTries: Try[] = [
    ["GET", `/anbieter/objekte/${ids.listingB}`],
    ["POST", `/anbieter/objekte/${ids.listingB}`, { title: "Übernommen" }],
    ["POST", `/anbieter/objekte/${ids.listingB}/status`, { aktion: "withdraw" }],
    ["POST", `/anbieter/objekte/${ids.listingB}/status`, { aktion: "publish" }],
    ["GET", `/anbieter/anfragen/${ids.inqB}`],
    ["GET", `/anbieter/anfragen?objekt=${ids.listingB}`],
    ["POST", `/anbieter/anfragen/${ids.inqB}/antwort`, { message: "fremd" }],
    ["POST", `/anbieter/anfragen/${ids.inqB}/absage`, { message: "fremd" }],
    ["GET", `/anbieter/termine?objekt=${ids.listingB}`],
    ["POST", `/anbieter/termine/neu`, {
      objekt: ids.listingB,
      date: "2030-01-10",
      start: "10:00",
      minutes: "30",
      count: "2",
      places: "1",
    }],
    ["POST", `/anbieter/termine/${ids.slotB}/verlegen`, { date: "2030-01-10", start: "11:00", end: "12:00" }],
    ["POST", `/anbieter/termine/${ids.slotB}/absagen`, {}],
    ["POST", `/anbieter/vorschlaege/${ids.proposalB}/freigeben`, { text: "fremd" }],
    ["POST", `/anbieter/vorschlaege/${ids.proposalB}/verwerfen`, {}],
    ...bad.flatMap((id): Try[] => [
      ["GET", `/anbieter/objekte/${id}`],
      ["GET", `/anbieter/anfragen/${id}`],
      ["POST", `/anbieter/anfragen/${id}/antwort`, { message: "x" }],
      ["POST", `/anbieter/vorschlaege/${id}/verwerfen`, {}],
      ["POST", `/anbieter/termine/${id}/absagen`, {}],
    ]),
  ];
  const seekerTries: Try[] = [
    ["GET", "/anbieter/objekte"],
    ["GET", `/anbieter/objekte/${listingA}`],
    ["GET", `/anbieter/anfragen/${inqA.inquiryId}`],
    ["POST", `/anbieter/anfragen/${inqA.inquiryId}/antwort`, { message: "ich bin kein Büro" }],
    ["POST", `/anbieter/objekte/neu`, { title: "Seeker-Objekt" }],
    ["GET", "/anbieter/vorschlaege"],
    ["GET", "/anbieter/termine"],
  ];
  assert.ok(memberTries.length + seekerTries.length >= 30);
  const before = await snapshot();
  for (
    const [jar, tries, ref] of [[janeA, memberTries, reference], [sam, seekerTries, seekerReference]] as const
  ) {
    for (const [method, path, form] of tries) {
      const res = method === "GET" ? await jar.send(path) : await jar.post(path, form ?? {});
      assert.equal(res.status, 404, `${method} ${path}`);
      assert.equal(res.html, ref.html, `${method} ${path}: the one 404 page`);
    }
  }
  assert.deepEqual(await snapshot(), before);
});

/** A row without the keys that differ between two equal actions (ids, times, the app origin). */
function bare(r: Record<string, unknown>, drop: string[]): Record<string, unknown> {
  const keep = { ...r };
  for (const k of [...drop, "id", "created_at", "updated_at", "origin_client_id", "origin_api_key_id"]) {
    delete keep[k];
  }
  return keep;
}

async function rowsOf(q: ReturnType<typeof sql<Record<string, unknown>>>) {
  return (await q.execute(db.kysely)).rows;
}

Deno.test("workspace: a web action and its MCP tool write the same rows and the same outbox event", async () => {
  const key = await createApiKey(db, agentA, "Vergleich");
  const client = await connectClient("v2-modern", `${origin}/mcp`, key.key);
  try {
    // Reply: two inquiries of seeker accounts, one answered on the web, one with reply_to_inquiry.
    const one = await inquire(listingA2!, "Sina Suche", "suchend.w@example.org", seeker);
    const two = await inquire(listingA2!, "Sina Suche", "suchend.w@example.org", seeker);
    const web = await janeA.post(`/anbieter/anfragen/${one.inquiryId}/antwort`, { message: "Gern, Termin?" });
    assert.equal(web.status, 303, web.html);
    const mcp = await client.callTool("reply_to_inquiry", {
      inquiry_id: two.inquiryId,
      message: "Gern, Termin?",
    });
    assert.ok(!mcp.isError, JSON.stringify(mcp));
    const msgs = await rowsOf(sql`select * from inquiry_messages where sender = 'provider'
      and inquiry_id in (${one.inquiryId}, ${two.inquiryId}) order by inquiry_id = ${one.inquiryId} desc`);
    assert.equal(msgs.length, 2);
    assert.deepEqual(bare(msgs[0]!, ["inquiry_id"]), bare(msgs[1]!, ["inquiry_id"]));
    const inqs = await rowsOf(sql`select * from inquiries where id in (${one.inquiryId}, ${two.inquiryId})
      order by id = ${one.inquiryId} desc`);
    assert.deepEqual(bare(inqs[0]!, ["last_message_at"]), bare(inqs[1]!, ["last_message_at"]));
    const events = await rowsOf(sql`select * from event_outbox where name = 'reply.received'
      and data->>'inquiry_id' in (${one.inquiryId}, ${two.inquiryId}) order by data->>'inquiry_id' = ${one.inquiryId} desc`);
    assert.equal(events.length, 2);
    const ev = (r: Record<string, unknown>) => {
      const d = { ...(typeof r.data === "string" ? JSON.parse(r.data) : r.data) as Record<string, unknown> };
      delete d.inquiry_id;
      return { ...bare(r, ["dispatched_at"]), data: d };
    };
    assert.deepEqual(ev(events[0]!), ev(events[1]!));
    assert.equal(events[0]!.origin_client_id, null);
    assert.equal(events[0]!.origin_api_key_id, null, "a web action has no app origin");
    assert.equal(events[1]!.origin_api_key_id, key.id);

    // Create: the same fields on the web and with create_property give the same listing row.
    const fields = {
      title: "Vergleichshaus",
      city: "Werkstadt",
      postal_code: "10117",
      asked_price: "450000",
    };
    const made = await janeA.post("/anbieter/objekte/neu", {
      ...fields,
      property_type: "house",
      transaction_type: "buy",
    });
    assert.equal(made.status, 303, made.html);
    const webId = made.headers.get("location")!.split("/").pop()!.split("?")[0]!;
    const viaMcp = await client.callTool("create_property", {
      ...fields,
      asked_price: 450000,
      property_type: "house",
      transaction_type: "buy",
    });
    const mcpId = viaMcp.structuredContent.id as string;
    const listings = await rowsOf(
      sql`select * from listings where id in (${webId}, ${mcpId}) order by id = ${webId} desc`,
    );
    assert.deepEqual(bare(listings[0]!, ["published_at"]), bare(listings[1]!, ["published_at"]));

    // Withdraw: two published listings with one live inquiry each; the web and withdraw_property give the same
    // rows and events.
    const [wA, wB] = await insertListings(db, officeA, [row("Rückzug Web"), row("Rückzug Web")]);
    for (const id of [wA!, wB!]) await inquire(id, "Walter Weg", `walter.${id.slice(0, 8)}@example.org`);
    const wd = await janeA.post(`/anbieter/objekte/${wA}/status`, { aktion: "withdraw" });
    assert.equal(wd.status, 303, JSON.stringify(a.logs.filter((l) => l.level === "error")));
    const viaTool = await client.callTool("withdraw_property", { id: wB });
    assert.ok(!viaTool.isError, JSON.stringify(viaTool));
    const after = await rowsOf(
      sql`select * from listings where id in (${wA}, ${wB}) order by id = ${wA} desc`,
    );
    assert.equal(after[0]!.status, "withdrawn");
    assert.deepEqual(bare(after[0]!, ["published_at"]), bare(after[1]!, ["published_at"]));
    const rejections = await rowsOf(sql`select * from proposals where vorschlag_art = 'rejection'
      and listing_id in (${wA}, ${wB}) order by listing_id = ${wA} desc`);
    assert.equal(rejections.length, 2);
    assert.deepEqual(
      bare(rejections[0]!, ["listing_id", "inquiry_id", "text"]),
      bare(rejections[1]!, ["listing_id", "inquiry_id", "text"]),
    );
    const pending = await rowsOf(sql`select * from event_outbox where name = 'proposal.pending'
      and data->>'objekt_id' in (${wA}, ${wB}) and data->>'vorschlag_art' = 'rejection'
      order by data->>'objekt_id' = ${wA} desc`);
    assert.equal(pending.length, 2);
    const pev = (r: Record<string, unknown>) => {
      const d = { ...(typeof r.data === "string" ? JSON.parse(r.data) : r.data) as Record<string, unknown> };
      for (const k of ["objekt_id", "vorschlag_id", "anfrage_id"]) delete d[k];
      return { ...bare(r, ["dispatched_at"]), data: d };
    };
    assert.deepEqual(pev(pending[0]!), pev(pending[1]!));
    assert.equal(pending[0]!.origin_api_key_id, null);

    // Move: a booked slot moved on the web and with move_viewing_slot gives the same viewing.changed.
    const slots = await act(
      a.deps,
      officeWho(officeA, agentA, viaKey()),
      (x) =>
        createViewingSlots(x, listingA2!, [
          { start: future(30), end: future(31), places: 1 },
          { start: future(30), end: future(31), places: 1 },
        ]),
    );
    const seekerP = seekerWho(seeker, viaKey());
    await act(a.deps, seekerP, (x) => bookViewing(x, one.inquiryId, slots.items[0]!.id));
    await act(a.deps, seekerP, (x) => bookViewing(x, two.inquiryId, slots.items[1]!.id));
    const moved = await janeA.post(`/anbieter/termine/${slots.items[0]!.id}/verlegen`, {
      date: "2030-03-05",
      start: "14:00",
      end: "14:30",
    });
    assert.equal(moved.status, 303, moved.html);
    assert.ok(
      !(await client.callTool("move_viewing_slot", {
        slot_id: slots.items[1]!.id,
        start: "2030-03-05T14:00:00+01:00",
        end: "2030-03-05T14:30:00+01:00",
      })).isError,
    );
    const changed = await rowsOf(sql`select * from event_outbox where name = 'viewing.changed'
      and data->>'inquiry_id' in (${one.inquiryId}, ${two.inquiryId}) order by data->>'inquiry_id' = ${one.inquiryId} desc`);
    assert.equal(changed.length, 2);
    assert.deepEqual(ev(changed[0]!), ev(changed[1]!));
    assert.equal(changed[0]!.origin_api_key_id, null);
    const slotRows = await rowsOf(
      sql`select * from viewing_slots where id in (${slots.items[0]!.id}, ${slots.items[1]!.id})
      order by id = ${slots.items[0]!.id} desc`,
    );
    assert.deepEqual(bare(slotRows[0]!, []), bare(slotRows[1]!, []));
  } finally {
    await client.close();
  }
});

Deno.test("workspace forms: a bad field is marked and named, and nothing is written", async () => {
  const before = await snapshot();
  const res = await janeA.post("/anbieter/objekte/neu", {
    title: "Fehlerhaft",
    postal_code: "1011",
    asked_price: "viel",
  });
  assert.equal(res.status, 400);
  assert.match(res.html, /id="postal_code"[^>]*aria-invalid="true"/);
  assert.match(res.html, /id="asked_price"[^>]*aria-invalid="true"/);
  assert.match(res.html, /href="#postal_code">PLZ</);
  const lines = await janeA.post("/anbieter/objekte/neu", { title: "Zeile eins\r\nZeile zwei" });
  assert.equal(lines.status, 400, "a title is one line");
  assert.match(lines.html, /id="title"[^>]*aria-invalid="true"/);
  const slot = await janeA.post("/anbieter/termine/neu", {
    objekt: listingA!,
    date: "2020-01-01",
    start: "10:00",
    minutes: "30",
    count: "2",
    places: "1",
  });
  assert.equal(slot.status, 400);
  assert.match(slot.html, /id="start"[^>]*aria-invalid="true"/);
  const forged = await janeA.send("/anbieter/objekte/neu", {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({ _csrf: "falsch", title: "Gefälscht" }),
  });
  assert.equal(forged.status, 403);
  assert.deepEqual(await snapshot(), before);
});

/** POSTs a multipart form with one file `datei` and the jar's CSRF token. */
function postFile(jar: Jar, path: string, bytes: Uint8Array, fields: Record<string, string> = {}) {
  const body = new FormData();
  body.set("_csrf", jar.cookies.get("immo_csrf") ?? "");
  for (const [k, v] of Object.entries(fields)) body.set(k, v);
  body.set("datei", new File([bytes as Uint8Array<ArrayBuffer>], "bestand.xml", { type: "text/xml" }));
  return jar.send(path, { method: "POST", body });
}

Deno.test("workspace OpenImmo: a dry run reports and writes nothing; the same file sent again is imported", async () => {
  const bytes = await Deno.readFile(new URL("./fixtures/openimmo/bestand_utf8.xml", import.meta.url));
  const before = await snapshot();
  const dry = await postFile(janeA, "/anbieter/objekte/import", bytes);
  assert.equal(dry.status, 200, dry.html);
  assert.match(dry.html, /data-committed="false"/);
  assert.match(dry.html, /data-n="created">2</);
  assert.deepEqual(await snapshot(), before, "a dry run writes nothing");
  const probe = /name="probe" value="([0-9a-f]{64})"/.exec(dry.html)?.[1];
  assert.ok(probe);
  // Another file with this fingerprint is only dry-run.
  const other = await Deno.readFile(new URL("./fixtures/openimmo/bestand_latin1.xml", import.meta.url));
  const wrong = await postFile(janeA, "/anbieter/objekte/import", other, { probe });
  assert.match(wrong.html, /data-committed="false"/);
  assert.deepEqual(await snapshot(), before);
  const real = await postFile(janeA, "/anbieter/objekte/import", bytes, { probe });
  assert.match(real.html, /data-committed="true"/);
  const made = await sql<{ n: number }>`select count(*)::int as n from listings where office_id = ${officeA}`
    .execute(db.kysely);
  const was = before.listings!.filter((j) => JSON.parse(j).office_id === officeA).length;
  assert.equal(made.rows[0]!.n, was + 2);
  // A seeker cannot import.
  const seekerTry = await postFile(sam, "/anbieter/objekte/import", bytes, { probe });
  assert.equal(seekerTry.status, 404);
});

Deno.test("workspace forms: hostile and malformed input never causes a 500 and writes nothing wrong", async () => {
  const thread = `/anbieter/anfragen/${inqA.inquiryId}`;
  const long = "x".repeat(25_000);
  const tries: Array<[string, Record<string, string>]> = [
    ["/anbieter/objekte/neu", {
      title: long,
      city: "\u0000",
      latitude: "1e5",
      longitude: "NaN",
      asked_price: "-1",
    }],
    ["/anbieter/objekte/neu", { property_type: "castle", transaction_type: "swap", contact_email: "kein@" }],
    ["/anbieter/objekte/neu", { reference: "\ud800", total_rooms: "1,2,3", square_meters: "9".repeat(40) }],
    [`/anbieter/objekte/${listingA}`, { title: "", city: "", postal_code: "" }],
    [`/anbieter/objekte/${listingA}/status`, { aktion: "explode" }],
    [`${thread}/antwort`, { message: "" }],
    [`${thread}/antwort`, { message: "y".repeat(10_001) }],
    ["/anbieter/termine/neu", {
      objekt: listingA!,
      date: "2030-02-30",
      start: "25:99",
      minutes: "0",
      count: "51",
    }],
    ["/anbieter/termine/neu", {
      objekt: listingA!,
      date: "9999-12-31",
      start: "23:59",
      minutes: "720",
      count: "50",
    }],
    ["/anbieter/termine/neu", { objekt: "", date: "", start: "", minutes: "", count: "", places: "" }],
    [`/anbieter/termine/${slotB}/verlegen`, { date: "gestern", start: "x", end: "y" }],
    ["/anbieter/vorschlaege/vorlage", { art: "gedicht", text: "x" }],
    ["/anbieter/vorschlaege/vorlage", { art: "reply", text: "z".repeat(20_000) }],
    ["/anbieter/objekte/import", {}],
  ];
  const before = await snapshot();
  for (const [path, form] of tries) {
    const res = await janeA.post(path, form);
    assert.ok([400, 403, 404].includes(res.status), `${path}: ${res.status}`);
  }
  // A listing published keeps its publication fields (conflict, nothing written).
  const cleared = await janeA.post(`/anbieter/objekte/${listingA}`, { title: "" });
  assert.equal(cleared.status, 400);
  assert.match(cleared.html, /role="alert"/);
  assert.deepEqual(await snapshot(), before);
});

Deno.test("workspace forms count in the write bucket of the account (60 at once, then 429)", async () => {
  const limited = await testApp(db, { BASE_URL: origin, RATE_LIMIT: "on" });
  try {
    const send = (path: string, form?: Record<string, string>, ip = "203.0.113.77") =>
      request(limited.app, path, {
        ...(form
          ? {
            method: "POST",
            headers: {
              "content-type": "application/x-www-form-urlencoded",
              cookie: [...janeA.cookies].map(([k, v]) => `${k}=${v}`).join("; "),
            },
            body: new URLSearchParams({ _csrf: janeA.cookies.get("immo_csrf")!, ...form }),
          }
          : { headers: { cookie: [...janeA.cookies].map(([k, v]) => `${k}=${v}`).join("; ") } }),
      }, ip);
    for (let i = 0; i < 60; i++) {
      const res = await send("/anbieter/vorschlaege/vorlage", { art: "reply", text: `Vorlage ${i}` });
      await res.body?.cancel();
      assert.equal(res.status, 303, `write ${i}`);
    }
    const over = await send("/anbieter/vorschlaege/vorlage", { art: "reply", text: "zu viel" });
    assert.equal(over.status, 429);
    await over.body?.cancel();
    // Spec §8: a signed-in person is counted per account, so another address does not help…
    const elsewhere = await send(
      "/anbieter/vorschlaege/vorlage",
      { art: "reply", text: "woanders" },
      "198.51.100.9",
    );
    assert.equal(elsewhere.status, 429, "the account's bucket, from another address");
    await elsewhere.body?.cancel();
    // …and the address the person used keeps its own bucket for people who are not signed in.
    const anonymous = await request(limited.app, "/anbieter/vorschlaege/vorlage", {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ art: "reply", text: "anonym" }),
    }, "203.0.113.77");
    assert.notEqual(anonymous.status, 429, "the address's bucket is not the account's");
    await anonymous.body?.cancel();
    const page = await send("/anbieter/vorschlaege");
    assert.equal(page.status, 200, "reading is not limited by the write bucket");
    assert.match(await page.text(), /Vorlage 59</);
  } finally {
    await limited.close();
  }
});

Deno.test("workspace forms: a state conflict is explained and the reference clash names its field", async () => {
  const draft = await janeA.post("/anbieter/objekte/neu", { title: "Nur Titel", reference: "REF-1" });
  assert.equal(draft.status, 303, draft.html);
  const id = draft.headers.get("location")!.split("/").pop()!.split("?")[0]!;
  const reserve = await janeA.post(`/anbieter/objekte/${id}/status`, { aktion: "reserve" });
  assert.equal(reserve.status, 400);
  assert.match(reserve.html, /Nur ein veröffentlichtes Objekt kann reserviert werden/);
  const publish = await janeA.post(`/anbieter/objekte/${id}/status`, { aktion: "publish" });
  assert.equal(publish.status, 400);
  assert.match(publish.html, /Für die Veröffentlichung fehlen: Objektart, Vermarktungsart, Ort oder PLZ\./);
  const clash = await janeA.post("/anbieter/objekte/neu", { title: "Zweites", reference: "REF-1" });
  assert.equal(clash.status, 400);
  assert.match(clash.html, /id="reference"[^>]*aria-invalid="true"/);
  assert.match(clash.html, /Diese Referenz hat schon ein anderes Objekt/);
});
