/**
 * Mails to inquirers and their answers (issue 21), through the real paths: the listing page's form, MCP SDK
 * clients with API keys, the job queue that sends after commit, a fake SMTP server speaking real SMTP
 * (tests/smtp_server.ts), the inbound e-mail endpoint, and a verifying webhook receiver subscribed by the provider's
 * app.
 *
 * World 1 (event delivery running, the real clock): a guest inquires on the listing page → the provider replies
 * with `reply_to_inquiry` → the mail arrives with Reply-To, title, text, stop link and List-Unsubscribe, and nothing
 * about the provider → the guest's answer (with a quoted part) to the Reply-To address becomes a message in the
 * thread without the quote and `message.received` reaches the receiver; forged token, unknown inquiry and malformed
 * address are refused with nothing written; a repeat is a duplicate; a rejection mail, and an answer to the
 * rejected inquiry refused; a moved viewing mails a seeker with an account, and none once they switched such mails
 * off on `/konto/benachrichtigungen`; the stop link (GET changes nothing, POST and one-click POST stop).
 *
 * World 2 (its own clock): the SMTP server refuses, then accepts; after the back-off the sweep sends the mail,
 * recorded once. Then `deno task mail:outbox` lists unsent and given-up mails and retries one.
 */
import assert from "node:assert/strict";
import { sql } from "kysely";
import { createApiKey } from "../auth/api_keys.ts";
import { MAIL_RETRY_DELAYS_MS, sendDueMails, sendMail } from "../auth/mail.ts";
import { startBackground } from "../background.ts";
import { prng, sampleListing } from "../catalogue/sample.ts";
import { insertUser } from "../db/accounts.ts";
import { insertListings } from "../db/listings.ts";
import { ensureOffice } from "../db/offices.ts";
import type { Db } from "../db/connection.ts";
import { replyToInquiry } from "../inquiries/messages.ts";
import { withoutQuote } from "../inquiries/inquirer_mail.ts";
import { inquiryAddress, newMailToken, replyAddress, stopUrl } from "../inquiries/inquiry_address.ts";
import {
  connectApp,
  connectWithToken,
  eventsWorld,
  newSecret,
  subscribeParams,
  until,
} from "./events_support.ts";
import { officeWho, openTestDb, request, sendInquiryAs, type TestApp, testApp } from "./helpers.ts";
import { act } from "../deps.ts";
import { PASSWORD } from "./oauth_support.ts";
import { runDeno, serviceDb } from "./service_process.ts";
import { closedPort, decodeHeader, type Fake, fakeSmtp, received } from "./smtp_server.ts";

const SECRET = "inquiry-mail-test-secret-0123456789abcdef";
const DOMAIN = "antwort.example.org";
const SMTP_FROM = "Immobilienkatalog <noreply@katalog.example>";
const REPLY_TO = new RegExp(`^anfrage-([0-9a-f]{32})-([a-z2-7]{20})@${DOMAIN.replaceAll(".", "\\.")}$`);

/** A cookie jar over the app (no redirects followed). */
class Jar {
  readonly cookies = new Map<string, string>();
  constructor(readonly t: TestApp) {}

  async send(path: string, init: RequestInit = {}) {
    const headers = new Headers(init.headers);
    if (this.cookies.size) headers.set("cookie", [...this.cookies].map(([k, v]) => `${k}=${v}`).join("; "));
    const res = await request(this.t.app, path, { ...init, headers });
    for (const c of res.headers.getSetCookie()) {
      const [pair] = c.split(";");
      const eq = pair!.indexOf("=");
      this.cookies.set(pair!.slice(0, eq).trim(), pair!.slice(eq + 1).trim());
    }
    return { status: res.status, html: await res.text(), headers: res.headers };
  }

  /** POSTs `fields` as a form with the `_csrf` token of page `from`. */
  async post(path: string, fields: Record<string, string>, from: string) {
    const csrf = /name="_csrf" value="([^"]+)"/.exec(from)?.[1] ?? "";
    return await this.send(path, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ _csrf: csrf, ...fields }),
    });
  }
}

/** The messages the fake server received for `to`, in order. */
function mailsFor(fake: Fake, to: string) {
  return fake.sessions.filter((s) => s.rcptTo.includes(`TO:<${to}>`) && s.data.length === 1).map(received);
}

/** A raw mail with CRLF line ends. */
function rawMail(h: { from: string; to: string; messageId: string; subject?: string }, body: string): string {
  return [
    `From: ${h.from}`,
    `To: ${h.to}`,
    `Subject: ${h.subject ?? "Re: Ihre Anfrage"}`,
    `Message-ID: ${h.messageId}`,
    "MIME-Version: 1.0",
    "Content-Type: text/plain; charset=utf-8",
    "Content-Transfer-Encoding: 8bit",
    "",
    body,
  ].join("\r\n").replaceAll(/(?<!\r)\n/g, "\r\n");
}

/** Row counts of every table an answer or an action writes. */
async function counts(db: Db) {
  const r = await sql<Record<string, number>>`select
    (select count(*)::int from inquiries) as inquiries,
    (select count(*)::int from inquiry_messages) as messages,
    (select count(*)::int from intake_messages) as intake,
    (select count(*)::int from event_outbox) as outbox,
    (select count(*)::int from mail_outbox) as mails`.execute(db.kysely);
  return r.rows[0]!;
}

/** Mails recorded about inquiry `id`. */
async function mailRows(db: Db, id: string) {
  return await db.kysely.selectFrom("mail_outbox").select(["id", "subject", "sent_at", "attempts"])
    .where("inquiry_id", "=", id).orderBy("created_at").execute();
}

Deno.test("inquiry mails: reply by mail, answer by mail, rejection, viewings, settings, stop link", async (t) => {
  const fake = fakeSmtp();
  const w = await eventsWorld({
    env: {
      INTAKE_SECRET: SECRET,
      INTAKE_MAIL_DOMAIN: DOMAIN,
      SMTP_URL: `smtp://127.0.0.1:${fake.port}`,
      SMTP_FROM,
    },
  });
  const db = w.tdb.db;
  const app = w.t.app;
  const pk = await createApiKey(db, w.provider.userId, "Anbieter-App");
  const provider = await connectWithToken(w, "api-key", pk.key, "v2-modern");
  const sk = await createApiKey(db, w.seeker.userId, "Suche-App");
  const seeker = await connectWithToken(w, "api-key", sk.key, "v2-modern");
  const title = (await db.kysely.selectFrom("listings").select("title").where("id", "=", w.listingId)
    .executeTakeFirstOrThrow()).title!;
  const tool = async (c: typeof provider, name: string, args: Record<string, unknown>) => {
    const r = await c.callTool(name, args);
    assert.notEqual(r.isError, true, `${name}: ${JSON.stringify(r.content)}`);
    return r.structuredContent;
  };
  const postMail = (raw: string) =>
    request(app, "/api/inbound/email", {
      method: "POST",
      headers: { "content-type": "message/rfc822", "x-intake-secret": SECRET },
      body: raw,
    });
  const guest = "gast.person@example.net";
  let inquiryId = "";
  let replyTo = "";
  let stopLink = "";
  let seq = 0;
  try {
    await t.step(
      "guest inquiry → MCP reply → mail → answer by mail → thread and message.received",
      async () => {
        const anon = new Jar(w.t);
        const page = await anon.send(`/objekte/${w.listingId}`);
        assert.equal(page.status, 200);
        const sent = await anon.post(`/objekte/${w.listingId}/anfrage`, {
          name: "Gerda Gast",
          email: guest,
          phone: "",
          message: "Ist die Wohnung noch frei?",
        }, page.html);
        assert.equal(sent.status, 303, sent.html);
        const row = await db.kysely.selectFrom("inquiries").select("id").where("email", "=", guest)
          .executeTakeFirstOrThrow();
        inquiryId = row.id;

        const app = await connectApp(w, w.provider.email, "v2-modern");
        const secret = newSecret();
        w.secrets[0]!.push(secret);
        const rx = w.receivers[0]!;
        await app.call(
          "events/subscribe",
          subscribeParams("message.received", `${rx.url}/mail`, secret, { anfrage_id: inquiryId }),
        );
        await app.close();

        const text = "Guten Tag, ja, die Wohnung ist frei.\nBesichtigung am Dienstag möglich.";
        await tool(provider, "reply_to_inquiry", { inquiry_id: inquiryId, message: text });
        await until(() => mailsFor(fake, guest).length === 1, 15_000, "the reply mail");
        const m = mailsFor(fake, guest)[0]!;
        assert.equal(m.from, SMTP_FROM);
        assert.equal(m.to, guest);
        assert.match(m.contentType, /^text\/plain/i);
        replyTo = decodeHeader(m.headers.get("reply-to") ?? "").trim();
        const parts = REPLY_TO.exec(replyTo);
        assert.ok(parts, `Reply-To ${replyTo}`);
        assert.equal(parts[1], inquiryId.replaceAll("-", ""));
        assert.ok(replyTo.split("@")[0]!.length <= 64);
        assert.ok(m.subject.includes(title), m.subject);
        assert.ok(m.body.includes(title), "the listing's title");
        assert.ok(m.body.includes(text), "the provider's text");
        const link = new RegExp(`${w.origin}/anfrage-mails/abbestellen/[0-9a-f]{32}-[a-z2-7]{20}`).exec(
          m.body,
        );
        assert.ok(link, `a stop link in ${m.body}`);
        stopLink = link[0];
        assert.equal(decodeHeader(m.headers.get("list-unsubscribe") ?? "").trim(), `<${stopLink}>`);
        assert.equal(m.headers.get("list-unsubscribe-post"), "List-Unsubscribe=One-Click");
        for (const about of [w.provider.email, "Anbieterin", "Büro OAuth"]) {
          assert.ok(!JSON.stringify(m).includes(about), `nothing about the provider: ${about}`);
        }
        assert.deepEqual((await mailRows(db, inquiryId)).map((r) => r.attempts), [1], "recorded once");

        const answer = rawMail(
          { from: `Gerda Gast <${guest}>`, to: replyTo, messageId: `<antwort-${++seq}@example.net>` },
          "Dienstag passt gut, 17 Uhr?\n\n" +
            "Am 24.11.2026 um 10:00 schrieb Immobilienkatalog <noreply@katalog.example>:\n" +
            "> Guten Tag, ja, die Wohnung ist frei.\n> Besichtigung am Dienstag möglich.\n",
        );
        const res = await postMail(answer);
        assert.equal(res.status, 201, await res.clone().text());
        assert.deepEqual(await res.json(), { anfrage_id: inquiryId });
        const thread = await tool(provider, "get_inquiry", { inquiry_id: inquiryId });
        assert.equal(thread.status, "open");
        const last = thread.messages.at(-1);
        assert.deepEqual([last.sender, last.body], ["seeker", "Dienstag passt gut, 17 Uhr?"]);
        await until(
          () => rx.deliveries.some((d) => (d.json as { name?: string })?.name === "message.received"),
          15_000,
          "message.received",
        );
        const d = rx.deliveries.find((d) => (d.json as { name?: string })?.name === "message.received")!;
        assert.deepEqual(d.verified, { standardwebhooks: true, svix: true });
        const data = (d.json as { data: Record<string, unknown> }).data;
        assert.equal(data.anfrage_id, inquiryId);
        assert.equal(data.nachricht_id, last.id);

        const before = await counts(db);
        const again = await postMail(answer);
        assert.equal(again.status, 200);
        assert.deepEqual(await again.json(), { status: "duplicate", anfrage_id: inquiryId });
        assert.deepEqual(await counts(db), before, "a repeated Message-ID writes nothing");
      },
    );

    await t.step("forged token, unknown inquiry, malformed address: not_found, nothing written", async () => {
      const [, hex, token] = REPLY_TO.exec(replyTo)!;
      const other = token!.startsWith("a") ? `b${token!.slice(1)}` : `a${token!.slice(1)}`;
      const unknown = crypto.randomUUID().replaceAll("-", "");
      const before = await counts(db);
      for (
        const to of [
          `anfrage-${hex}-${other}@${DOMAIN}`,
          `anfrage-${unknown}-${token}@${DOMAIN}`,
          `anfrage-${hex}@${DOMAIN}`,
          `anfrage-${hex}-${token}x@${DOMAIN}`,
          `anfrage-zz${hex!.slice(2)}-${token}@${DOMAIN}`,
        ]
      ) {
        const res = await postMail(
          rawMail({ from: guest, to, messageId: `<forged-${++seq}@example.net>` }, "Hallo"),
        );
        assert.equal(res.status, 404, to);
        assert.deepEqual(await res.json(), { error: "not_found" });
      }
      assert.deepEqual(await counts(db), before);
    });

    await t.step(
      "rejection: a mail with the text; an answer to the rejected inquiry is refused",
      async () => {
        await tool(provider, "reject_inquiry", { inquiry_id: inquiryId, message: "Leider schon vergeben." });
        await until(() => mailsFor(fake, guest).length === 2, 15_000, "the rejection mail");
        const m = mailsFor(fake, guest)[1]!;
        assert.match(m.subject, /^Absage/);
        assert.ok(m.body.includes("Leider schon vergeben."));
        assert.equal(decodeHeader(m.headers.get("reply-to") ?? "").trim(), replyTo, "the same reply address");
        const before = await counts(db);
        const res = await postMail(
          rawMail({ from: guest, to: replyTo, messageId: `<late-${++seq}@example.net>` }, "Schade!"),
        );
        assert.equal(res.status, 409);
        assert.deepEqual(await res.json(), { error: "conflict" });
        assert.deepEqual(await counts(db), before);
      },
    );

    await t.step("viewing moved: a mail to a seeker with an account, none once switched off", async () => {
      const sent = await tool(seeker, "send_inquiry", { listing_id: w.listingId, message: "Besichtigung?" });
      const id = sent.inquiry_id as string;
      const start = Date.now() + 3 * 86_400_000;
      const iso = (ms: number) => new Date(ms).toISOString();
      const slots = await tool(provider, "create_viewing_slots", {
        listing_id: w.listingId,
        slots: [{ start: iso(start), end: iso(start + 3_600_000), places: 3 }],
      });
      const slotId = slots.items[0].id as string;
      await tool(seeker, "book_viewing", { inquiry_id: id, slot_id: slotId });
      const moved = await tool(provider, "move_viewing_slot", {
        slot_id: slotId,
        start: iso(start + 86_400_000),
        end: iso(start + 86_400_000 + 3_600_000),
      });
      assert.equal(moved.bookings_affected, 1);
      await until(() => mailsFor(fake, w.seeker.email).length === 1, 15_000, "the viewing mail");
      const m = mailsFor(fake, w.seeker.email)[0]!;
      assert.match(m.subject, /^Besichtigung verlegt/);
      assert.ok(m.body.includes(title));
      assert.match(m.body, /verlegt/);

      const jar = new Jar(w.t);
      const signIn = await jar.send("/anmelden");
      const signedIn = await jar.post(
        "/anmelden",
        { email: w.seeker.email, password: PASSWORD },
        signIn.html,
      );
      assert.equal(signedIn.status, 303, signedIn.html);
      const settings = await jar.send("/konto/benachrichtigungen");
      assert.equal(settings.status, 200);
      assert.match(settings.html, /name="anfrage_mails" value="an" checked/);
      const forged = await jar.send("/konto/benachrichtigungen", {
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded" },
        body: new URLSearchParams({ _csrf: "falsch", gesendet: "1" }),
      });
      assert.equal(forged.status, 403, "a wrong CSRF token is 403 like on every other form; nothing changed");
      assert.match(forged.html, /Formular ist abgelaufen|form has expired/);
      assert.match((await jar.send("/konto/benachrichtigungen")).html, /value="an" checked/);
      const off = await jar.post("/konto/benachrichtigungen", { gesendet: "1" }, settings.html);
      assert.equal(off.status, 303);
      assert.equal(off.headers.get("location"), "/konto/benachrichtigungen?gespeichert=1");
      const saved = await jar.send("/konto/benachrichtigungen?gespeichert=1");
      assert.match(saved.html, /Gespeichert/);
      assert.doesNotMatch(saved.html, /value="an" checked/);

      const rows = (await mailRows(db, id)).length;
      const back = await tool(provider, "move_viewing_slot", {
        slot_id: slotId,
        start: iso(start),
        end: iso(start + 3_600_000),
      });
      assert.equal(back.bookings_affected, 1);
      assert.equal((await mailRows(db, id)).length, rows, "no mail recorded once switched off");
    });

    await t.step("stop link: GET asks, POST stops; one-click POST; no further mails", async () => {
      const path = new URL(stopLink).pathname;
      const bad = await request(app, `${path.slice(0, -1)}${path.endsWith("a") ? "b" : "a"}`);
      assert.equal(bad.status, 404);
      const ask = await request(app, path);
      assert.equal(ask.status, 200);
      assert.match(await ask.text(), new RegExp(`<form method="post" action="${path}"`));
      const oneClick = rawMail(
        {
          from: "x@example.net",
          to: `objekt-${w.listingId}@${DOMAIN}`,
          messageId: `<neu-${++seq}@example.net>`,
        },
        "Noch eine Frage.",
      );
      // A second inquiry of the guest (by mail) gets its own tokens; its stop link is used one-click.
      const created = await postMail(oneClick.replace("From: x@example.net", `From: ${guest}`));
      assert.equal(created.status, 201);
      const second = (await created.json()).anfrage_id as string;
      const before = (await mailRows(db, second)).length;
      await act(
        w.t.deps,
        officeWho(w.officeId, w.provider.userId),
        (a) => replyToInquiry(a, second, "Antwort 1"),
      );
      await until(() => mailsFor(fake, guest).length === 3, 15_000, "the second inquiry's mail");
      const link = /http:\/\/\S+\/anfrage-mails\/abbestellen\/\S+/.exec(mailsFor(fake, guest)[2]!.body)![0];
      assert.notEqual(link, stopLink);
      const unsub = await request(app, new URL(link).pathname, {
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded" },
        body: "List-Unsubscribe=One-Click",
      });
      assert.equal(unsub.status, 200, "one-click POST without cookies");
      await act(
        w.t.deps,
        officeWho(w.officeId, w.provider.userId),
        (a) => replyToInquiry(a, second, "Antwort 2"),
      );
      assert.equal((await mailRows(db, second)).length, before + 1, "only the mail before the stop");
      const foreign = await request(app, path, {
        method: "POST",
        headers: { origin: "https://evil.example" },
      });
      assert.equal(foreign.status, 403, "a foreign Origin is refused");
      const stop = await request(app, path, { method: "POST" });
      assert.equal(stop.status, 200);
      assert.match(await stop.text(), /keine weiteren E-Mails/);
    });
  } finally {
    await provider.close();
    await seeker.close();
    await w.close();
    await fake.close();
  }
});

Deno.test("inquiry mails: a refused send is retried after the back-off, recorded once; a stop holds it", async () => {
  const fake = fakeSmtp({ rcptReply: "451 4.3.0 try again later" });
  const tdb = await openTestDb();
  const t = await testApp(tdb.db, { SMTP_URL: `smtp://127.0.0.1:${fake.port}`, EVENTS_SWEEP_MS: "200" });
  const jobs = await startBackground(t.deps);
  try {
    const office = { id: await ensureOffice(tdb.db, "Büro Retry") };
    const userId = await insertUser(tdb.db, {
      email: "makler@example.org",
      name: "Makler",
      role: "provider",
    });
    const [listingId] = await insertListings(tdb.db, office.id, [
      { ...sampleListing(9, prng(9), Date.now()), beispiel: true, status: "published" },
    ]);
    const inquire = async (email: string) => {
      const { inquiryId } = await sendInquiryAs(t.deps, {
        listingId: listingId!,
        inquirer: { seekerId: null, name: "Retry", email, phone: null },
        message: "Hallo",
        origin: null,
      });
      await act(t.deps, officeWho(office.id, userId), (a) => replyToInquiry(a, inquiryId, "Antwort"));
      return inquiryId;
    };
    const inquirer = "retry@example.net";
    const stopper = "stopper@example.net";
    const inquiryId = await inquire(inquirer);
    const stoppedId = await inquire(stopper);
    await until(
      () => fake.sessions.filter((s) => s.rcptTo.length > 0).length === 2,
      10_000,
      "first attempts",
    );
    for (const id of [inquiryId, stoppedId]) {
      const [first] = await mailRows(tdb.db, id);
      assert.equal(first!.sent_at, null);
      assert.equal(first!.attempts, 1);
    }
    // The second inquirer uses the stop link while their mail waits for its retry.
    const tokens = await tdb.db.kysely.selectFrom("inquiry_mail_tokens").select("stop_token")
      .where("inquiry_id", "=", stoppedId).executeTakeFirstOrThrow();
    const stop = await request(
      t.app,
      new URL(stopUrl(t.config.baseUrl, stoppedId, tokens.stop_token)).pathname,
      {
        method: "POST",
      },
    );
    assert.equal(stop.status, 200);
    fake.options.rcptReply = undefined; // the server accepts from now on
    await new Promise((r) => setTimeout(r, 300));
    assert.equal(mailsFor(fake, inquirer).length, 0, "nothing before the back-off");
    t.advance(MAIL_RETRY_DELAYS_MS[0]);
    await until(() => mailsFor(fake, inquirer).length === 1, 10_000, "the retry");
    await until(async () => (await mailRows(tdb.db, inquiryId))[0]!.sent_at !== null, 5_000, "sent_at");
    const rows = await mailRows(tdb.db, inquiryId);
    assert.equal(rows.length, 1, "recorded once");
    assert.equal(rows[0]!.attempts, 2);
    t.advance(MAIL_RETRY_DELAYS_MS[4]);
    await new Promise((r) => setTimeout(r, 300));
    assert.equal(mailsFor(fake, inquirer).length, 1, "sent once");
    assert.equal(mailsFor(fake, stopper).length, 0, "a stopped inquiry's waiting mail is not sent");
    const held = await tdb.db.kysely.selectFrom("mail_outbox").select([
      "sent_at",
      "next_attempt_at",
      "last_error",
    ])
      .where("inquiry_id", "=", stoppedId).executeTakeFirstOrThrow();
    assert.deepEqual(held, { sent_at: null, next_attempt_at: null, last_error: "stopped by the inquirer" });
  } finally {
    await jobs.stop();
    await t.close();
    await tdb.close();
    await fake.close();
  }
});

Deno.test("deno task mail:outbox lists unsent and given-up mails and retries one", async () => {
  const sdb = await serviceDb();
  let waiting = "", givenUp = "";
  try {
    const db = await sdb.open();
    const t = await testApp(db, { SMTP_URL: `smtp://127.0.0.1:${closedPort()}` });
    try {
      waiting =
        (await sendMail(t.deps, { to: "wartet@example.net", subject: "Wartet", body: "geheim 1" })).id;
      givenUp =
        (await sendMail(t.deps, { to: "aufgegeben@example.net", subject: "Aufgegeben", body: "geheim 2" }))
          .id;
      // Set-up: the first mail waits far in the future, so only the second runs through every retry.
      await db.kysely.updateTable("mail_outbox").set({
        next_attempt_at: new Date(t.now() + 365 * 86_400_000),
      })
        .where("id", "=", waiting).execute();
      for (const delay of MAIL_RETRY_DELAYS_MS) {
        t.advance(delay);
        assert.equal(await sendDueMails(t.deps), 1);
      }
      t.advance(86_400_000);
      assert.equal(await sendDueMails(t.deps), 0, "given up: nothing more is due");
    } finally {
      await t.close();
      await db.close();
    }
    const env = { ...sdb.env, NO_COLOR: "1" };
    const list = await runDeno(["task", "-q", "mail:outbox", "--json"], env);
    assert.equal(list.code, 0, list.stderr);
    const mails = JSON.parse(list.stdout) as Array<Record<string, unknown>>;
    const byId = new Map(mails.map((m) => [m.id, m]));
    assert.equal(byId.get(waiting)?.givenUpAt, null);
    assert.ok(byId.get(waiting)?.nextAttemptAt);
    assert.ok(byId.get(givenUp)?.givenUpAt, "given up after six attempts");
    assert.equal(byId.get(givenUp)?.attempts, MAIL_RETRY_DELAYS_MS.length + 1);
    assert.match(String(byId.get(givenUp)?.lastError), /ECONNREFUSED|refused/i);
    assert.ok(!list.stdout.includes("geheim"), "never the text");
    const lines = await runDeno(["task", "-q", "mail:outbox"], env);
    assert.equal(lines.code, 0, lines.stderr);
    assert.match(lines.stdout, new RegExp(`^${givenUp}  aufgegeben@example.net  #6  given up `, "m"));
    const retry = await runDeno(["task", "-q", "mail:outbox", "--retry", givenUp], env);
    assert.equal(retry.code, 0, retry.stderr);
    const unknown = await runDeno(["task", "-q", "mail:outbox", "--retry", crypto.randomUUID()], env);
    assert.equal(unknown.code, 1);
    const bad = await runDeno(["task", "-q", "mail:outbox", "--retry", "nope"], env);
    assert.equal(bad.code, 2);
    const after = JSON.parse((await runDeno(["task", "-q", "mail:outbox", "--json"], env)).stdout) as Array<
      Record<string, unknown>
    >;
    const retried = after.find((m) => m.id === givenUp)!;
    assert.deepEqual([retried.givenUpAt, retried.attempts], [null, 0]);
    assert.ok(retried.nextAttemptAt);
  } finally {
    await sdb.cleanup();
  }
});

Deno.test("inquiry mails: quoted text is cut off; reply addresses parse strictly", () => {
  const cases: Array<[string, string]> = [
    [
      "Ja gerne.\n\nAm Di., 24. Nov. 2026 um 10:00 Uhr schrieb Immo <\nnoreply@x.de>:\n> alt\n> alt",
      "Ja gerne.",
    ],
    ["Yes.\r\nOn Tue, 24 Nov 2026 at 10:00, Immo <noreply@x.de> wrote:\r\n> old", "Yes."],
    ["Hallo\n-----Ursprüngliche Nachricht-----\nVon: x\nText", "Hallo"],
    ["Hi\n> zitiert\nmehr\n----- Original Message -----\nFrom: x", "Hi\nmehr"],
    ["Am Montag komme ich gern.\nBis dann", "Am Montag komme ich gern.\nBis dann"],
  ];
  for (const [text, expected] of cases) assert.equal(withoutQuote(text), expected, text);
  const id = crypto.randomUUID();
  const token = newMailToken();
  assert.match(token, /^[a-z2-7]{20}$/);
  assert.notEqual(newMailToken(), token);
  const address = replyAddress(id, token, DOMAIN);
  assert.ok(address.split("@")[0]!.length <= 64);
  assert.deepEqual(inquiryAddress(address, DOMAIN), { inquiryId: id, token });
  assert.deepEqual(inquiryAddress(address.toUpperCase(), DOMAIN), { inquiryId: id, token }, "case ignored");
  assert.equal(inquiryAddress(address, "other.example"), undefined, "another domain");
  assert.equal(inquiryAddress(`objekt-${id}@${DOMAIN}`, DOMAIN), undefined, "not an inquiry address");
  for (
    const bad of [`anfrage-${id}-${token}@${DOMAIN}`, `anfrage-@${DOMAIN}`, `anfrage-x-${token}@${DOMAIN}`]
  ) {
    assert.equal(inquiryAddress(bad, DOMAIN), "malformed", bad);
  }
});
