/**
 * The social inbox end to end (issue 7 item 3): Meta-style webhook deliveries over real HTTP to the served app —
 * the subscription check (right and wrong token), X-Hub-Signature-256 (valid, wrong secret, altered body, missing
 * header, wrong prefix), replays, a page that is not connected, listings named by link and by reference (exactly
 * one of the page's office, whatever its status), list_social_messages through a real MCP client (OAuth app),
 * social.received at a verifying HTTPS receiver, and the operator task `deno task social:connect` as a child
 * process.
 */
import assert from "node:assert/strict";
import { prng, sampleListing } from "../catalogue/sample.ts";
import { insertListings } from "../db/listings.ts";
import { ensureOffice } from "../db/offices.ts";
import { listOutbox } from "../db/outbox.ts";
import { connectedOffices, listSocialEntries } from "../db/social.ts";
import { EVENT_DATA } from "../events/catalogue.ts";
import { listSocialMessages } from "../social/inbox.ts";
import { connectSocialPage } from "../social/pages.ts";
import { hubSignature } from "../social/signature.ts";
import {
  connectApp,
  type ConnectedApp,
  eventsWorld,
  newSecret,
  subscribeParams,
  until,
} from "./events_support.ts";
import { request, testApp } from "./helpers.ts";
import { runDeno, serviceDb, withDb } from "./service_process.ts";

const APP_SECRET = "test-app-secret-0123456789abcdef";
const VERIFY_TOKEN = "test-verify-token-0123456789";
const SOCIAL_ENV = { SOCIAL_APP_SECRET: APP_SECRET, SOCIAL_VERIFY_TOKEN: VERIFY_TOKEN };
const PATH = "/api/inbound/social";
const FB_PAGE = "1000001";
const IG_ACCOUNT = "17841400000000001";
const OTHER_PAGE = "2000002";
const UNCONNECTED_PAGE = "3000003";

const enc = (s: string) => new TextEncoder().encode(s);
const sec = () => Math.floor(Date.now() / 1000);

/** A Facebook page comment (feed change). */
function fbComment(page: string, commentId: string, message: string, extra: Record<string, unknown> = {}) {
  return {
    object: "page",
    entry: [{
      id: page,
      time: sec(),
      changes: [{
        field: "feed",
        value: {
          item: "comment",
          verb: "add",
          comment_id: commentId,
          post_id: `${page}_42`,
          message,
          from: { id: "fbuser1", name: "Erika Muster" },
          created_time: sec(),
          ...extra,
        },
      }],
    }],
  };
}

/** A message to a page (Messenger) or an Instagram account. */
function message(object: "page" | "instagram", page: string, mid: string, text: string, extra = {}) {
  return {
    object,
    entry: [{
      id: page,
      time: Date.now(),
      messaging: [{
        sender: { id: "psid-77" },
        recipient: { id: page },
        timestamp: Date.now(),
        message: { mid, text, ...extra },
      }],
    }],
  };
}

/** An Instagram comment. */
function igComment(account: string, id: string, text: string) {
  return {
    object: "instagram",
    entry: [{
      id: account,
      time: sec(),
      changes: [{
        field: "comments",
        value: { id, text, from: { id: "iguser1", username: "erika.m" }, media: { id: "m-9" } },
      }],
    }],
  };
}

Deno.test("social inbox: webhook checks, replays, listings, list_social_messages, social.received, task", async (t) => {
  const w = await eventsWorld({ env: SOCIAL_ENV });
  const db = w.tdb.db;
  const rx = w.receivers[0]!;
  const apps: ConnectedApp[] = [];
  const [refListing] = await insertListings(db, w.officeId, [
    { ...sampleListing(7, prng(5), Date.now()), beispiel: false, reference: "AB-123", status: "draft" },
  ]);
  const otherOffice = await ensureOffice(db, "Anderes Büro");
  const [otherListing] = await insertListings(db, otherOffice, [
    { ...sampleListing(8, prng(6), Date.now()), beispiel: false, reference: "XY-999", status: "published" },
  ]);
  const at = new Date();
  await connectSocialPage(db, { office: w.officeId, netz: "facebook", pageId: FB_PAGE, name: "Büro FB", at });
  await connectSocialPage(db, { office: w.officeId, netz: "instagram", pageId: IG_ACCOUNT, at });
  await connectSocialPage(db, { office: otherOffice, netz: "facebook", pageId: OTHER_PAGE, at });

  /** POSTs `body` (or `raw`) over HTTP, signed with `secret` unless `header` is given (null: no header). */
  const post = async (body: unknown, o: { secret?: string; header?: string | null; raw?: string } = {}) => {
    const raw = o.raw ?? JSON.stringify(body);
    const sig = o.header !== undefined
      ? o.header
      : `sha256=${await hubSignature(o.secret ?? APP_SECRET, enc(raw))}`;
    const headers: Record<string, string> = { "content-type": "application/json" };
    if (sig !== null) headers["x-hub-signature-256"] = sig;
    w.t.advance(1000);
    const res = await fetch(`${w.origin}${PATH}`, { method: "POST", headers, body: raw });
    return { status: res.status, body: await res.json() };
  };
  const entries = async (officeId = w.officeId) =>
    (await listSocialEntries(db, officeId, {}, { limit: 100, offset: 0 })).rows;
  const socialEvents = async () => await listOutbox(db, { limit: 1000, name: "social.received" });

  let app!: ConnectedApp;
  const subs = { all: "", ref: "" };
  const secret = newSecret();
  await t.step("an app subscribes to social.received (all, and filtered by objekt_id)", async () => {
    app = await connectApp(w, w.provider.email, "v2-modern");
    apps.push(app);
    w.secrets[0]!.push(secret);
    const all = await app.call(
      "events/subscribe",
      subscribeParams("social.received", `${rx.url}/all`, secret),
    );
    const ref = await app.call(
      "events/subscribe",
      subscribeParams("social.received", `${rx.url}/ref`, secret, { objekt_id: refListing }),
    );
    subs.all = all.id as string;
    subs.ref = ref.id as string;
  });

  await t.step("endpoint off without secrets: 404 not_found", async () => {
    const off = await testApp(db);
    try {
      const q = `?hub.mode=subscribe&hub.verify_token=${VERIFY_TOKEN}&hub.challenge=1`;
      for (
        const res of [await request(off.app, PATH + q), await request(off.app, PATH, { method: "POST" })]
      ) {
        assert.equal(res.status, 404);
        assert.deepEqual(await res.json(), { error: "not_found" });
      }
    } finally {
      off.kv.close();
    }
  });

  await t.step("subscription check: the challenge for the right token, 403 otherwise", async () => {
    const get = (q: Record<string, string>) => fetch(`${w.origin}${PATH}?${new URLSearchParams(q)}`);
    let res = await get({
      "hub.mode": "subscribe",
      "hub.verify_token": VERIFY_TOKEN,
      "hub.challenge": "1158201444",
    });
    assert.equal(res.status, 200);
    assert.match(res.headers.get("content-type") ?? "", /^text\/plain/);
    assert.equal(await res.text(), "1158201444");
    for (const token of [VERIFY_TOKEN + "x", VERIFY_TOKEN.slice(0, -1), "", "falsch"]) {
      res = await get({ "hub.mode": "subscribe", "hub.verify_token": token, "hub.challenge": "1158201444" });
      assert.equal(res.status, 403, token);
      assert.deepEqual(await res.json(), { error: "forbidden" });
    }
    res = await get({ "hub.mode": "subscribe", "hub.challenge": "5" });
    assert.equal(res.status, 403);
    await res.body?.cancel();
    const incomplete: Array<Record<string, string>> = [
      { "hub.verify_token": VERIFY_TOKEN, "hub.challenge": "5" },
      { "hub.mode": "subscribe", "hub.verify_token": VERIFY_TOKEN },
      { "hub.mode": "unsubscribe", "hub.verify_token": VERIFY_TOKEN, "hub.challenge": "5" },
    ];
    for (const q of incomplete) {
      res = await get(q);
      assert.equal(res.status, 400);
      assert.equal((await res.json()).error, "invalid_request");
    }
  });

  await t.step(
    "signatures: wrong secret, altered body, missing header, wrong prefix are refused",
    async () => {
      const body = fbComment(FB_PAGE, "c-sig", "Ist die Wohnung noch frei?");
      const raw = JSON.stringify(body);
      const good = `sha256=${await hubSignature(APP_SECRET, enc(raw))}`;
      const refusals = [
        await post(body, { secret: "another-secret-0123456789" }),
        await post(body, { raw: raw.replace("frei", "FREI"), header: good }),
        await post(body, { header: null }),
        await post(body, { header: good.replace("sha256=", "sha1=") }),
        await post(body, { header: good.slice("sha256=".length) }),
        await post(body, { header: "sha256=xyz" }),
      ];
      for (const r of refusals) assert.deepEqual(r, { status: 401, body: { error: "invalid_signature" } });
      assert.equal((await entries()).length, 0);
      assert.equal((await socialEvents()).length, 0);
      // Signed but not JSON / not a webhook body: 400, nothing stored.
      for (const bad of ["{nope", "[]", '{"object":"page"}']) {
        const r = await post(null, { raw: bad });
        assert.equal(r.status, 400);
        assert.equal(r.body.error, "invalid_request");
      }
      const ok = await post(null, { raw, header: good.toUpperCase().replace("SHA256=", "sha256=") });
      assert.deepEqual(ok, { status: 200, body: { stored: 1, duplicates: 0, unconnected: 0, ignored: 0 } });
      const [e] = await entries();
      assert.equal(e?.text, "Ist die Wohnung noch frei?");
      assert.equal(e?.authorName, "Erika Muster");
      assert.equal(e?.art, "comment");
      assert.equal(e?.netz, "facebook");
      assert.equal(e?.listingId, null);
    },
  );

  await t.step("replays store nothing and record no second event", async () => {
    const body = fbComment(FB_PAGE, "c-sig", "Ist die Wohnung noch frei?");
    const before = (await socialEvents()).length;
    assert.equal(before, 1);
    const again = await post(body);
    assert.deepEqual(again.body, { stored: 0, duplicates: 1, unconnected: 0, ignored: 0 });
    const altered = await post(fbComment(FB_PAGE, "c-sig", "anderer Text"));
    assert.deepEqual(altered.body, { stored: 0, duplicates: 1, unconnected: 0, ignored: 0 });
    const twice = message("page", FB_PAGE, "m-twice", "Hallo");
    twice.entry.push(structuredClone(twice.entry[0]!));
    assert.deepEqual((await post(twice)).body, { stored: 1, duplicates: 1, unconnected: 0, ignored: 0 });
    assert.equal((await entries()).length, 2);
    assert.equal((await socialEvents()).length, before + 1);
  });

  await t.step("a page that is not connected: 200, nothing stored, logged without content", async () => {
    const before = (await socialEvents()).length;
    const r = await post(message("page", UNCONNECTED_PAGE, "m-unconnected", "Geheimer Inhalt 4711"));
    assert.deepEqual(r, { status: 200, body: { stored: 0, duplicates: 0, unconnected: 1, ignored: 0 } });
    assert.equal((await socialEvents()).length, before);
    assert.equal((await entries()).some((e) => e.pageId === UNCONNECTED_PAGE), false);
    const line = w.t.logs.find((l) => l.msg === "social webhook for an unconnected page");
    assert.equal(line?.level, "info");
    assert.deepEqual(line?.fields, { netz: "facebook", page_id: UNCONNECTED_PAGE });
    assert.equal(JSON.stringify(w.t.logs).includes("4711"), false);
  });

  await t.step("other items are ignored with 200", async () => {
    const edit = fbComment(FB_PAGE, "c-edit", "geändert", { verb: "edited" });
    const reaction = {
      object: "page",
      entry: [{ id: FB_PAGE, changes: [{ field: "feed", value: { item: "reaction", verb: "add" } }] }],
    };
    const own = fbComment(FB_PAGE, "c-own", "Danke!", { from: { id: FB_PAGE, name: "Büro FB" } });
    const echo = message("page", FB_PAGE, "m-echo", "Antwort", { is_echo: true });
    const other = { object: "user", entry: [{ id: "1", changes: [] }] };
    for (const body of [edit, reaction, own, echo, other]) {
      const r = await post(body);
      assert.equal(r.status, 200);
      assert.equal(r.body.stored, 0);
      assert.equal(r.body.ignored, 1);
    }
    assert.equal((await entries()).length, 2);
  });

  await t.step("listings named by link or reference of the page's office, else none", async () => {
    const cases: Array<[unknown, string | null]> = [
      [fbComment(FB_PAGE, "c-link", `Gesehen auf ${w.origin}/objekte/${w.listingId} – frei?`), w.listingId],
      [
        message("page", FB_PAGE, "m-rest", `${w.origin}/api/public/properties/${w.listingId.toUpperCase()}`),
        w.listingId,
      ],
      [igComment(IG_ACCOUNT, "ig-c-ref", "Infos zu Ref. AB-123 bitte"), refListing!],
      [message("instagram", IG_ACCOUNT, "ig-m-ref", "Objekt ab-123, Besichtigung möglich?"), refListing!],
      [fbComment(FB_PAGE, "c-ref-glued", "(Ref.AB-123)."), refListing!],
      [fbComment(FB_PAGE, "c-foreign-link", `${w.origin}/objekte/${otherListing}`), null],
      [fbComment(FB_PAGE, "c-foreign-ref", "Ref. XY-999"), null],
      [message("page", FB_PAGE, "m-none", "Haben Sie noch Wohnungen mit 3 Zimmern?"), null],
      // Any link form of catalogue/named_listing.ts, on any host.
      [fbComment(FB_PAGE, "c-props-link", `https://portal.example/properties/${w.listingId}`), w.listingId],
      // Two of the office's listings named: filed under none, never under a guessed one.
      [
        fbComment(FB_PAGE, "c-two-links", `${w.origin}/objekte/${w.listingId} oder /objekte/${refListing}?`),
        null,
      ],
      // Another office's reference does not make it two.
      [fbComment(FB_PAGE, "c-ref-and-foreign", "AB-123 oder XY-999?"), refListing!],
    ];
    for (const [body, listing] of cases) {
      const r = await post(body);
      assert.equal(r.body.stored, 1, JSON.stringify(body));
      assert.equal((await entries())[0]?.listingId ?? null, listing, JSON.stringify(body));
    }
    const r = await post(
      fbComment(OTHER_PAGE, "c-other-office", `Ref. XY-999 ${w.origin}/objekte/${w.listingId}`),
    );
    assert.equal(r.body.stored, 1);
    const [o] = await entries(otherOffice);
    assert.equal(o?.listingId, otherListing);
    assert.equal((await entries()).some((e) => e.id === o?.id), false);
  });

  await t.step("list_social_messages through a real MCP client", async () => {
    const all = await entries();
    assert.equal(all.length, 13);
    const res = await app.callTool("list_social_messages", {});
    assert.notEqual(res.isError, true);
    const sc = res.structuredContent;
    assert.equal(sc.total, all.length);
    assert.deepEqual(sc.items.map((i: { id: string }) => i.id), all.map((e) => e.id));
    const times = sc.items.map((i: { received_at: string }) => i.received_at);
    assert.deepEqual(times, [...times].sort().reverse());
    const first = sc.items[0];
    assert.deepEqual(Object.keys(first).sort(), [
      "art",
      "author_id",
      "author_name",
      "id",
      "netz",
      "objekt_id",
      "page_id",
      "page_name",
      "post_id",
      "received_at",
      "text",
    ]);
    const sig = sc.items.find((i: { text: string }) => i.text === "Ist die Wohnung noch frei?");
    assert.equal(sig.page_name, "Büro FB");
    assert.equal(sig.post_id, `${FB_PAGE}_42`);
    const byRef = await app.callTool("list_social_messages", { objekt_id: refListing });
    assert.equal(byRef.structuredContent.total, all.filter((e) => e.listingId === refListing).length);
    assert.equal(byRef.structuredContent.total, 4);
    const ig = await app.callTool("list_social_messages", { netz: "instagram" });
    assert.equal(ig.structuredContent.total, 2);
    const igMessages = await app.callTool("list_social_messages", { netz: "instagram", art: "message" });
    assert.equal(igMessages.structuredContent.total, 1);
    assert.equal(igMessages.structuredContent.items[0].author_name, null);
    const page2 = await app.callTool("list_social_messages", { page: 2, page_size: 4 });
    assert.deepEqual(
      page2.structuredContent.items.map((i: { id: string }) => i.id),
      all.slice(4, 8).map((e) => e.id),
    );
    for (const objekt_id of [otherListing!, "kein-uuid", crypto.randomUUID()]) {
      const bad = await app.callTool("list_social_messages", { objekt_id });
      assert.equal(bad.isError, true);
      assert.match(JSON.stringify(bad.content), /not_found/);
    }
    const otherTexts = (await listSocialMessages({ db }, otherOffice, { page: 1, page_size: 60 })).items;
    assert.equal(otherTexts.length, 1);
  });

  await t.step("social.received reaches the verifying receiver, without content", async () => {
    const rows = (await socialEvents()).filter((r) => r.ownerOfficeId === w.officeId);
    assert.equal(rows.length, 13);
    const to = (sub: string) =>
      rx.deliveries.filter((d) =>
        d.headers["x-mcp-subscription-id"] === sub && (d.json as { name?: string }).name === "social.received"
      );
    await until(
      () => to(subs.all).length >= 13 && to(subs.ref).length >= 4,
      20_000,
      "social.received deliveries",
    );
    const deliveries = [...to(subs.all), ...to(subs.ref)];
    assert.equal(to(subs.all).length, 13);
    assert.equal(to(subs.ref).length, 4);
    for (const d of deliveries) {
      assert.deepEqual(d.verified, { standardwebhooks: true, svix: true });
      const body = d.json as { name: string; data: Record<string, unknown> };
      assert.equal(body.name, "social.received");
      EVENT_DATA["social.received"].parse(body.data);
      assert.deepEqual(Object.keys(body.data).sort(), ["art", "eingang_id", "netz", "objekt_id", "satz"]);
      for (const secretText of ["frei", "Hallo", "AB-123", "Zimmern", "Erika"]) {
        assert.equal(d.raw.includes(secretText), false, secretText);
      }
    }
    const ids = new Set((await entries()).map((e) => e.id));
    const dataOf = (d: { json: unknown }) =>
      (d.json as { data: { eingang_id: string; objekt_id: string } }).data;
    assert.deepEqual(new Set(to(subs.all).map((d) => dataOf(d).eingang_id)), ids);
    assert.equal(to(subs.ref).every((d) => dataOf(d).objekt_id === refListing), true);
    assert.equal(new Set(to(subs.ref).map((d) => dataOf(d).eingang_id)).size, 4);
    const sample = deliveries.find((d) => (d.json as { data: { art: string } }).data.art === "message");
    assert.match(
      (sample?.json as { data: { satz: string } }).data.satz,
      /^Neue Nachricht auf (Facebook|Instagram)/,
    );
  });

  await t.step("operator task: deno task social:connect as a child process", async () => {
    const sdb = await serviceDb();
    try {
      const [a, b] = await withDb(
        sdb,
        async (d) => [await ensureOffice(d, "Büro A"), await ensureOffice(d, "Büro B")],
      );
      const task = (...args: string[]) => runDeno(["task", "-q", "social:connect", ...args], sdb.env);
      const bad: string[][] = [
        ["--netz", "facebook", "--page", "555"],
        ["--office", a!, "--netz", "twitter", "--page", "555"],
        ["--office", a!, "--netz", "facebook", "--page", "5 5", "--name", "x"],
        ["--office", a!, "--netz", "facebook", "--page", "555", "--bogus"],
        ["--office", crypto.randomUUID(), "--netz", "facebook", "--page", "555"],
      ];
      for (const args of bad) {
        const r = await task(...args);
        assert.equal(r.code, 2, `${args.join(" ")}: ${r.stderr}`);
        assert.notEqual(r.stderr.trim(), "");
      }
      let r = await task("--office", a!, "--netz", "facebook", "--page", "555", "--name", "Seite A");
      assert.equal(r.code, 0, r.stderr);
      assert.match(r.stdout, /connected: facebook page 555/);
      r = await task("--office", "Büro B", "--netz", "facebook", "--page", "555");
      assert.equal(r.code, 0, r.stderr);
      assert.match(r.stdout, new RegExp(`moved from office ${a}`));
      await withDb(sdb, async (d) => {
        assert.deepEqual(await connectedOffices(d.kysely, "facebook", ["555"]), new Map([["555", b!]]));
        const app = await testApp(d, SOCIAL_ENV);
        try {
          const raw = JSON.stringify(fbComment("555", "c-task", "Hallo Büro B"));
          const res = await request(app.app, PATH, {
            method: "POST",
            headers: { "x-hub-signature-256": `sha256=${await hubSignature(APP_SECRET, enc(raw))}` },
            body: raw,
          });
          assert.equal((await res.json()).stored, 1);
          assert.equal((await listSocialMessages(app.deps, b!, { page: 1, page_size: 10 })).total, 1);
          assert.equal((await listSocialMessages(app.deps, a!, { page: 1, page_size: 10 })).total, 0);
        } finally {
          app.kv.close();
        }
      });
      r = await task("--office", a!, "--netz", "facebook", "--page", "555", "--disconnect");
      assert.equal(r.code, 0, r.stderr);
      assert.match(r.stdout, /not connected/);
      r = await task("--netz", "facebook", "--page", "555", "--disconnect");
      assert.equal(r.code, 0, r.stderr);
      assert.match(r.stdout, new RegExp(`disconnected: facebook page 555 \\(was office ${b}\\)`));
    } finally {
      await sdb.cleanup();
    }
  });

  for (const a of apps) await a.close();
  await w.close();
});
