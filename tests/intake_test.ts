/**
 * Inquiries from e-mail and portals (issue 7 item 4): `POST /api/inbound/email` (raw RFC 5322 messages) and
 * `POST /api/inbound/openimmo-feedback` (OpenImmo-Feedback XML), both behind `x-intake-secret`.
 *
 * One world (event delivery running, one verifying HTTPS receiver): `inquiry.received` with quelle email and
 * portal reaches the receiver and verifies with standardwebhooks AND svix; plain, HTML-only, multipart with
 * attachments, ISO-8859-1 quoted-printable, windows-1252 and Base64 UTF-8 mails come out right field by field;
 * duplicates (also two concurrent identical posts) create one inquiry; per-listing and per-office addresses;
 * unknown listings; the limits of docs/contract.md §9 with nothing half-written; 413; feedback in UTF-8 and ISO-8859-1 with
 * several interessenten, malformed XML and unknown listings. The domain clock is never moved (the receiver checks
 * timestamps against the real clock), so every step uses its own listings and addresses.
 */
import assert from "node:assert/strict";
import { sql } from "kysely";
import { prng, sampleListing } from "../catalogue/sample.ts";
import { countIntakeMessages } from "../db/intake.ts";
import { insertListings } from "../db/listings.ts";
import { createOffice } from "../db/offices.ts";
import { getOfficeInquiry, INQUIRY_LIMITS, MESSAGE_MAX } from "../inquiries/inquiries.ts";
import { connectApp, eventsWorld, newSecret, subscribeParams, until } from "./events_support.ts";
import { request, testApp } from "./helpers.ts";

const SECRET = "intake-test-secret-0123456789abcdefghij";
const DOMAIN = "anfragen.example.org";
const EMAIL_PATH = "/api/inbound/email";
const FEEDBACK_PATH = "/api/inbound/openimmo-feedback";

/** A raw mail: headers (in order) and a body, joined with CRLF line ends. */
function mail(headers: Array<[string, string]>, body: string): string {
  const head = headers.map(([k, v]) => `${k}: ${v}`).join("\r\n");
  return `${head}\r\nMIME-Version: 1.0\r\n\r\n${body.replaceAll(/\r?\n/g, "\r\n")}`;
}

/** `text` as ISO-8859-1 bytes (every character must be below U+0100). */
function latin1(text: string): Uint8Array {
  return Uint8Array.from(text, (ch) => {
    const c = ch.charCodeAt(0);
    if (c > 0xff) throw new Error(`not latin1: ${ch}`);
    return c;
  });
}

/** Standard Base64 of UTF-8 `text`, wrapped at 76 characters. */
function b64(text: string | Uint8Array): string {
  const bytes = typeof text === "string" ? new TextEncoder().encode(text) : text;
  return btoa(String.fromCharCode(...bytes)).replace(/.{76}/g, "$&\r\n");
}

Deno.test("intake: inquiries from e-mail and OpenImmo-Feedback", async (t) => {
  const w = await eventsWorld({ env: { INTAKE_SECRET: SECRET, INTAKE_MAIL_DOMAIN: DOMAIN } });
  const db = w.tdb.db;
  const app = w.t.app;
  let seq = 0;

  /** New published listings of `officeId` (each with the given reference, or a unique one). */
  const listings = async (n: number, officeId = w.officeId, refs: Array<string | null> = []) =>
    await insertListings(
      db,
      officeId,
      Array.from({ length: n }, (_, i) => ({
        ...sampleListing(1000 + ++seq, prng(7000 + seq), Date.now()),
        reference: refs[i] === undefined ? `INT-${seq}-${i}` : refs[i]!,
        beispiel: true,
        status: "published" as const,
        published_at: new Date(),
      })),
    );
  const one = async (officeId = w.officeId, ref?: string | null) =>
    (await listings(1, officeId, [ref ?? null]))[0]!;

  /** POSTs `body` to `path` with the intake secret (or the given headers). */
  const post = (
    path: string,
    body: string | Uint8Array,
    type: string,
    headers: Record<string, string> = { "x-intake-secret": SECRET },
  ) =>
    request(app, path, {
      method: "POST",
      headers: { "content-type": type, ...headers },
      body: body as BodyInit,
    });
  const postMail = (raw: string | Uint8Array, headers?: Record<string, string>) =>
    post(EMAIL_PATH, raw, "message/rfc822", headers);
  const postFeedback = (xml: string | Uint8Array, headers?: Record<string, string>) =>
    post(FEEDBACK_PATH, xml, "application/xml", headers);

  /** Rows of every table an inquiry writes. */
  const counts = async () => {
    const n = async (table: "inquiries" | "inquiry_messages" | "event_outbox") =>
      (await db.kysely.selectFrom(table).select(sql<number>`count(*)::int`.as("n")).executeTakeFirstOrThrow())
        .n;
    return {
      inquiries: await n("inquiries"),
      messages: await n("inquiry_messages"),
      outbox: await n("event_outbox"),
      intake: await countIntakeMessages(db.kysely),
    };
  };
  /** Asserts that `res` has `status` and body `{error}` and that nothing was written since `before`. */
  const refusedWith = async (res: Response, status: number, error: string, before: unknown) => {
    assert.equal(res.status, status);
    assert.equal((await res.json()).error, error);
    assert.deepEqual(await counts(), before, "a refusal writes nothing");
  };
  /** The office's view of inquiry `id`. */
  const thread = (id: string, officeId = w.officeId) => getOfficeInquiry(w.t.deps, officeId, id);
  /** A plain mail to `to` from `from` with `text`. */
  const plainMail = (to: string, from: string, text: string, messageId = `<m${++seq}@example.net>`) =>
    mail([
      ["From", from],
      ["To", to],
      ["Subject", "Anfrage"],
      ["Message-ID", messageId],
      ["Content-Type", "text/plain; charset=utf-8"],
      ["Content-Transfer-Encoding", "8bit"],
    ], text);
  const objekt = (id: string) => `objekt-${id}@${DOMAIN}`;
  const buero = (id: string) => `buero-${id}@${DOMAIN}`;
  /** A feedback document (UTF-8 unless the declaration says otherwise). */
  const feedback = (objekte: string, encoding = "UTF-8", sender = "Testportal") =>
    `<?xml version="1.0" encoding="${encoding}"?>\n<openimmo_feedback><version>1.2.5</version>` +
    `<sender><name>${sender}</name></sender>${objekte}</openimmo_feedback>`;
  const interessent = (p: Record<string, string>) =>
    `<interessent>${Object.entries(p).map(([k, v]) => `<${k}>${v}</${k}>`).join("")}</interessent>`;
  const objektXml = (oobjId: string, ...people: string[]) =>
    `<objekt><portal_unique_id>P-${++seq}</portal_unique_id><portal_obj_id>${seq}</portal_obj_id>` +
    `<oobj_id>${oobjId}</oobj_id>${people.join("")}</objekt>`;

  try {
    await t.step("inquiry.received with quelle email and portal reaches a verifying receiver", async () => {
      const listingId = await one(w.officeId, "EV-1");
      const provider = await connectApp(w, w.provider.email, "v2-modern");
      try {
        const secret = newSecret();
        w.secrets[0]!.push(secret);
        const rx = w.receivers[0]!;
        await provider.call(
          "events/subscribe",
          subscribeParams("inquiry.received", `${rx.url}/intake`, secret, { objekt_id: listingId }),
        );
        const viaMail = await postMail(
          plainMail(objekt(listingId), "Ev Mail <ev.mail@example.net>", "Frei?"),
        );
        assert.equal(viaMail.status, 201);
        const mailId = (await viaMail.json()).anfrage_id as string;
        const viaPortal = await postFeedback(
          feedback(
            objektXml(
              "EV-1",
              interessent({ vorname: "Eva", email: "ev.portal@example.net", anfrage: "Frei?" }),
            ),
          ),
        );
        assert.equal(viaPortal.status, 200);
        const portalId = (await viaPortal.json()).created[0].anfrage_id as string;
        const of = (id: string) =>
          rx.deliveries.find((d) => (d.json as { data?: { anfrage_id?: string } })?.data?.anfrage_id === id);
        await until(() => of(mailId) !== undefined && of(portalId) !== undefined, 15_000, "both deliveries");
        for (const [id, quelle] of [[mailId, "email"], [portalId, "portal"]] as const) {
          const d = of(id)!;
          assert.deepEqual(d.verified, { standardwebhooks: true, svix: true });
          const body = d.json as { name: string; data: Record<string, unknown> };
          assert.equal(body.name, "inquiry.received");
          assert.deepEqual({ ...body.data, satz: "" }, {
            anfrage_id: id,
            objekt_id: listingId,
            quelle,
            satz: "",
          });
          assert.match(body.data.satz as string, quelle === "email" ? /per E-Mail/ : /über ein Portal/);
          assert.ok(!(body.data.satz as string).includes("Frei?"), "no message content in the event");
        }
      } finally {
        await provider.close();
      }
    });

    await t.step(
      "the secret: missing or wrong → 401; endpoints off without INTAKE_SECRET → 404",
      async () => {
        const listingId = await one();
        const raw = plainMail(objekt(listingId), "a@example.net", "Hallo");
        const xml = feedback(
          objektXml(listingId, interessent({ vorname: "A", email: "a@example.net", anfrage: "x" })),
        );
        const before = await counts();
        for (
          const headers of [{} as Record<string, string>, { "x-intake-secret": "falsch" }, {
            "x-intake-secret": `${SECRET}x`,
          }]
        ) {
          await refusedWith(await postMail(raw, headers), 401, "unauthorized", before);
          await refusedWith(await postFeedback(xml, headers), 401, "unauthorized", before);
        }
        const off = await testApp(db, { RATE_LIMIT: "off" });
        try {
          for (const path of [EMAIL_PATH, FEEDBACK_PATH]) {
            const res = await request(off.app, path, {
              method: "POST",
              headers: { "content-type": "message/rfc822", "x-intake-secret": SECRET },
              body: raw,
            });
            await refusedWith(res, 404, "not_found", before);
          }
        } finally {
          off.kv.close();
        }
        // Wrong content type, empty and unparseable bodies.
        await refusedWith(
          await post(EMAIL_PATH, raw, "application/json"),
          415,
          "unsupported_media_type",
          before,
        );
        await refusedWith(
          await post(FEEDBACK_PATH, xml, "text/plain"),
          415,
          "unsupported_media_type",
          before,
        );
        await refusedWith(await postMail(""), 400, "invalid_request", before);
        const noFrom = mail([["To", objekt(listingId)], ["Content-Type", "text/plain"]], "Hallo");
        await refusedWith(await postMail(noFrom), 400, "invalid_request", before);
        const noText = mail([["From", "a@example.net"], ["To", objekt(listingId)]], "");
        await refusedWith(await postMail(noText), 400, "invalid_request", before);
      },
    );

    await t.step("plain mail to a per-listing address: Reply-To wins, fields exact", async () => {
      const listingId = await one();
      const before = await counts();
      const raw = mail([
        ["From", "Erika Mustermann <erika@example.net>"],
        ["Reply-To", '"Erika M." <Erika.Privat@Example.NET>'],
        ["To", `Büro <info@example.org>, ${objekt(listingId.toUpperCase())}`],
        ["Subject", "Anfrage"],
        ["Message-ID", "<Plain-1@Example.NET>"],
        ["Content-Type", "text/plain; charset=utf-8"],
        ["Content-Transfer-Encoding", "8bit"],
      ], "Guten Tag,\n\nist die Wohnung noch frei?\nGrüße\n");
      const res = await postMail(raw);
      assert.equal(res.status, 201);
      const body = await res.json();
      assert.deepEqual(Object.keys(body), ["anfrage_id"]);
      const th = await thread(body.anfrage_id);
      assert.equal(th.quelle, "email");
      assert.equal(th.listing_id, listingId);
      assert.equal(th.status, "open");
      assert.equal(th.name, "Erika M.");
      assert.equal(th.email, "erika.privat@example.net");
      assert.equal(th.phone, null);
      assert.deepEqual(th.messages.map((m) => [m.sender, m.body]), [
        ["seeker", "Guten Tag,\n\nist die Wohnung noch frei?\nGrüße"],
      ]);
      const after = await counts();
      assert.equal(after.inquiries, before.inquiries + 1);
      assert.equal(after.messages, before.messages + 1);
      assert.equal(after.intake, before.intake + 1);
      const stored = await sql<{ message_id: string; quelle: string }>`
        select message_id, quelle from intake_messages where inquiry_id = ${body.anfrage_id}`.execute(
        db.kysely,
      );
      assert.deepEqual(stored.rows, [{ message_id: "Plain-1@Example.NET", quelle: "email" }]);
      // Without a display name the address is the name.
      const bare = await postMail(plainMail(objekt(listingId), "bare@example.net", "Hallo"));
      assert.equal(bare.status, 201);
      assert.equal((await thread((await bare.json()).anfrage_id)).name, "bare@example.net");
    });

    await t.step("HTML-only mail: tags stripped, entities decoded, line breaks kept", async () => {
      const listingId = await one();
      const html = "<!DOCTYPE html><html><head><title>Anfrage</title><style>p { color: red }</style></head>" +
        "<body><p>Guten Tag,</p>\n<p>ist die Wohnung &amp; der Keller\n   noch frei?<br>Gr&uuml;&szlig;e &#8211; " +
        "J&#xF6;rg</p><ul><li>Balkon?</li><li>Aufzug?</li></ul><script>alert(1)</script>" +
        "<div>Preis &lt; 500&nbsp;000 &euro;</div><!-- intern --></body></html>";
      const res = await postMail(mail([
        ["From", "=?UTF-8?Q?J=C3=B6rg_K=C3=BChn?= <joerg@example.net>"],
        ["To", objekt(listingId)],
        ["Subject", "HTML"],
        ["Message-ID", `<html-${++seq}@example.net>`],
        ["Content-Type", "text/html; charset=utf-8"],
        ["Content-Transfer-Encoding", "base64"],
      ], b64(html)));
      assert.equal(res.status, 201);
      const th = await thread((await res.json()).anfrage_id);
      assert.equal(th.name, "Jörg Kühn");
      assert.equal(
        th.messages[0]!.body,
        "Guten Tag,\n\nist die Wohnung & der Keller noch frei?\nGrüße – Jörg\n\n- Balkon?\n- Aufzug?\n\n" +
          "Preis < 500 000 €",
      );
    });

    await t.step("multipart with attachments: the text part, attachments ignored", async () => {
      const listingId = await one();
      const before = await counts();
      const pdf = b64(new Uint8Array([0x25, 0x50, 0x44, 0x46, 0x2d, 0x31, 0x2e, 0x37, 0x0a, 0x00, 0xff]));
      const res = await postMail(mail(
        [
          ["From", "Multi Part <multi@example.net>"],
          ["To", objekt(listingId)],
          ["Subject", "Unterlagen"],
          ["Message-ID", `<multi-${++seq}@example.net>`],
          ["Content-Type", 'multipart/mixed; boundary="AUSSEN"'],
        ],
        [
          "--AUSSEN",
          'Content-Type: multipart/alternative; boundary="INNEN"',
          "",
          "--INNEN",
          "Content-Type: text/plain; charset=utf-8",
          "",
          "Anbei meine Unterlagen.",
          "--INNEN",
          "Content-Type: text/html; charset=utf-8",
          "",
          "<p>Anbei <b>meine</b> Unterlagen (HTML).</p>",
          "--INNEN--",
          "--AUSSEN",
          'Content-Type: application/pdf; name="schufa.pdf"',
          'Content-Disposition: attachment; filename="schufa.pdf"',
          "Content-Transfer-Encoding: base64",
          "",
          pdf,
          "--AUSSEN",
          "Content-Type: text/plain; charset=utf-8",
          'Content-Disposition: attachment; filename="notiz.txt"',
          "",
          "GEHEIME NOTIZ",
          "--AUSSEN--",
          "",
        ].join("\n"),
      ));
      assert.equal(res.status, 201);
      const th = await thread((await res.json()).anfrage_id);
      assert.deepEqual(th.messages.map((m) => m.body), ["Anbei meine Unterlagen."]);
      const after = await counts();
      assert.deepEqual(after, {
        inquiries: before.inquiries + 1,
        messages: before.messages + 1,
        outbox: after.outbox,
        intake: before.intake + 1,
      });
      const leaked = await sql<{ n: number }>`select count(*)::int as n from inquiry_messages
        where body like '%GEHEIME%' or body like '%schufa%'`.execute(db.kysely);
      assert.equal(leaked.rows[0]!.n, 0, "attachments are not stored");
    });

    await t.step(
      "non-UTF-8: ISO-8859-1 quoted-printable, windows-1252 8bit, Base64 UTF-8 subject",
      async () => {
        const listingId = await one();
        const qp = latin1(
          mail([
            ["From", "=?ISO-8859-1?Q?J=FCrgen_M=FC=DFig?= <juergen@example.net>"],
            ["To", objekt(listingId)],
            ["Subject", "=?ISO-8859-1?Q?Anfrage_f=FCr_die_Wohnung?="],
            ["Message-ID", `<qp-${++seq}@example.net>`],
            ["Content-Type", "text/plain; charset=ISO-8859-1"],
            ["Content-Transfer-Encoding", "quoted-printable"],
          ], "Sch=F6ne Gr=FC=DFe aus K=F6ln,=\nbitte um R=FCckruf.\nStra=DFe: Hauptstra=DFe 5"),
        );
        const r1 = await postMail(qp);
        assert.equal(r1.status, 201);
        const t1 = await thread((await r1.json()).anfrage_id);
        assert.equal(t1.name, "Jürgen Müßig");
        assert.equal(t1.messages[0]!.body, "Schöne Grüße aus Köln,bitte um Rückruf.\nStraße: Hauptstraße 5");

        const cp = latin1(mail([
          ["From", "Zoe <zoe@example.net>"],
          ["To", objekt(listingId)],
          ["Message-ID", `<cp-${++seq}@example.net>`],
          ["Content-Type", "text/plain; charset=windows-1252"],
          ["Content-Transfer-Encoding", "8bit"],
        ], "Miete max. 900 \x80 \x84warm\x93 \x96 geht das?"));
        const r2 = await postMail(cp);
        assert.equal(r2.status, 201);
        assert.equal(
          (await thread((await r2.json()).anfrage_id)).messages[0]!.body,
          "Miete max. 900 € „warm“ – geht das?",
        );

        const subject = "Anfrage zu Ihrer Wohnung – Ä Ö Ü ß";
        const r3 = await postMail(mail([
          [
            "From",
            `=?UTF-8?B?${
              btoa(String.fromCharCode(...new TextEncoder().encode("Ærøskøbing Ölçer")))
            }?= <oe@example.net>`,
          ],
          ["To", objekt(listingId)],
          ["Subject", `=?UTF-8?B?${btoa(String.fromCharCode(...new TextEncoder().encode(subject)))}?=`],
          ["Message-ID", `<b64-${++seq}@example.net>`],
          ["Content-Type", "text/plain; charset=UTF-8"],
          ["Content-Transfer-Encoding", "base64"],
        ], b64("Grüße aus Düsseldorf – ist 🏠 noch frei?\n")));
        assert.equal(r3.status, 201);
        const t3 = await thread((await r3.json()).anfrage_id);
        assert.equal(t3.name, "Ærøskøbing Ölçer");
        assert.equal(t3.messages[0]!.body, "Grüße aus Düsseldorf – ist 🏠 noch frei?");
      },
    );

    await t.step(
      "duplicates: same Message-ID once, concurrent posts once, no Message-ID by hash",
      async () => {
        const listingId = await one();
        const raw = plainMail(objekt(listingId), "dup@example.net", "Einmal bitte", "<  Dup-1@Example.NET >");
        const first = await postMail(raw);
        assert.equal(first.status, 201);
        const id = (await first.json()).anfrage_id;
        const before = await counts();
        // A resend (other headers, same Message-ID without brackets) is the same message.
        const again = await postMail(
          plainMail(objekt(listingId), "dup@example.net", "Nochmal", "Dup-1@Example.NET"),
        );
        assert.equal(again.status, 200);
        assert.deepEqual(await again.json(), { status: "duplicate", anfrage_id: id });
        assert.deepEqual(await counts(), before);
        // The case of a Message-ID is kept: another case is another message.
        const other = await postMail(
          plainMail(objekt(listingId), "dup@example.net", "Anders", "<dup-1@example.net>"),
        );
        assert.equal(other.status, 201);

        // Two concurrent identical posts create one inquiry.
        const race = plainMail(
          objekt(listingId),
          "race@example.net",
          "Gleichzeitig",
          `<race-${++seq}@example.net>`,
        );
        const b2 = await counts();
        const answers = await Promise.all([postMail(race), postMail(race), postMail(race)]);
        const statuses = answers.map((r) => r.status).sort();
        assert.deepEqual(statuses, [200, 200, 201]);
        const ids = new Set(await Promise.all(answers.map(async (r) => (await r.json()).anfrage_id)));
        assert.equal(ids.size, 1);
        const a2 = await counts();
        assert.equal(a2.inquiries, b2.inquiries + 1);
        assert.equal(a2.intake, b2.intake + 1);

        // Without a Message-ID the raw message's hash identifies it.
        const anon = mail([
          ["From", "anon@example.net"],
          ["To", objekt(listingId)],
          ["Content-Type", "text/plain"],
        ], "Ohne Message-ID");
        const n1 = await postMail(anon);
        assert.equal(n1.status, 201);
        const anonId = (await n1.json()).anfrage_id;
        const n2 = await postMail(anon);
        assert.deepEqual([n2.status, await n2.json()], [200, { status: "duplicate", anfrage_id: anonId }]);
        const key = await sql<{ message_id: string }>`select message_id from intake_messages
        where inquiry_id = ${anonId}`.execute(db.kysely);
        assert.match(key.rows[0]!.message_id, /^sha256:[0-9a-f]{64}$/);
        const n3 = await postMail(anon + " ");
        assert.equal(n3.status, 201, "another raw message is another hash");
      },
    );

    await t.step(
      "per-office address: one listing by reference or link; unknown, several, foreign or withdrawn refused",
      async () => {
        const [a, b] = (await listings(2, w.officeId, ["WHG-0815", "HAUS-42"])) as [string, string];
        const foreignOffice = await createOffice(db, "Fremdbüro");
        const foreign = await one(foreignOffice, "FREMD-1");
        const send = (subject: string, text: string, to = buero(w.officeId)) =>
          postMail(mail([
            ["From", `Office <office${++seq}@example.net>`],
            ["To", to],
            ["Subject", subject],
            ["Message-ID", `<office-${seq}@example.net>`],
            ["Content-Type", "text/plain; charset=utf-8"],
          ], text));
        const listingOf = async (res: Response) => {
          assert.equal(res.status, 201);
          return (await thread((await res.json()).anfrage_id)).listing_id;
        };
        assert.equal(await listingOf(await send("Anfrage zu Objekt whg-0815", "Ist es frei?")), a);
        assert.equal(await listingOf(await send("Anfrage", "Zum Objekt HAUS-42: ist es frei?")), b);
        assert.equal(
          await listingOf(await send("Anfrage", `Gesehen auf ${w.origin}/objekte/${b} – frei?`)),
          b,
        );
        assert.equal(await listingOf(await send("Anfrage", `https://portal.example/properties/${a}`)), a);
        // The subject decides before the text.
        assert.equal(await listingOf(await send("Objekt HAUS-42", "oder doch WHG-0815?")), b);
        // The per-listing address wins over the office address.
        assert.equal(await listingOf(await send("WHG-0815", "x", `${buero(w.officeId)}, ${objekt(b)}`)), b);
        // Delivered-To and X-Original-To count too.
        const viaHeader = await postMail(mail([
          ["From", `hdr${++seq}@example.net`],
          ["To", "Verteiler <liste@example.org>"],
          ["Delivered-To", objekt(a)],
          ["Message-ID", `<hdr-${seq}@example.net>`],
          ["Content-Type", "text/plain"],
        ], "Über Delivered-To"));
        assert.equal(await listingOf(viaHeader), a);

        // Every listing of the office counts when a mail names one: a withdrawn one takes no inquiry, and with a
        // published one it makes two (no guessing which one is meant).
        const old = await one(w.officeId, "ALT-77");
        await db.kysely.updateTable("listings").set({ status: "withdrawn" }).where("id", "=", old).execute();
        const before = await counts();
        const refusals = [
          await send("Anfrage zu ALT-77", "Ist es noch frei?"),
          await send("Anfrage", "WHG-0815 oder ALT-77?"),
          await send("Anfrage", "Kein Objekt genannt."),
          await send("Anfrage", "WHG-08150 ist kein ganzes Wort"),
          await send("WHG-0815 oder HAUS-42?", "beide"),
          await send("FREMD-1", `Link: ${w.origin}/objekte/${foreign}`),
          await send("WHG-0815", "x", buero(foreignOffice).replace(foreignOffice, crypto.randomUUID())),
          await send("WHG-0815", "x", `buero-${w.officeId}@andere-domain.example`),
          await send("WHG-0815", "x", objekt(crypto.randomUUID())),
          await send("WHG-0815", "x", "info@example.org"),
        ];
        for (const res of refusals) await refusedWith(res, 404, "not_found", before);
        // A withdrawn listing takes no inquiries.
        const gone = await one();
        await db.kysely.updateTable("listings").set({ status: "withdrawn" }).where("id", "=", gone).execute();
        await refusedWith(await send("x", "y", objekt(gone)), 404, "not_found", before);
      },
    );

    await t.step(
      "limits of docs/contract.md §9 still apply: per e-mail address and per listing, nothing half-written",
      async () => {
        const perEmail = INQUIRY_LIMITS.perEmail.max;
        const targets = await listings(perEmail + 1);
        for (let i = 0; i < perEmail; i++) {
          const res = await postMail(plainMail(objekt(targets[i]!), "Viel <viel@example.net>", `Nr. ${i}`));
          assert.equal(res.status, 201);
        }
        let before = await counts();
        const over = await postMail(plainMail(objekt(targets[perEmail]!), "VIEL@example.net", "zu viel"));
        await refusedWith(over, 429, "rate_limited", before);
        // The refused message was not recorded (a resend is refused again, not a duplicate), and the feedback
        // endpoint counts the same address.
        const overRaw = plainMail(
          objekt(targets[perEmail]!),
          "viel@example.net",
          "nochmal",
          "<over-1@example.net>",
        );
        await refusedWith(await postMail(overRaw), 429, "rate_limited", before);
        await refusedWith(await postMail(overRaw), 429, "rate_limited", before);
        const fb = await postFeedback(
          feedback(
            objektXml(
              targets[perEmail]!,
              interessent({ vorname: "V", email: "viel@example.net", anfrage: "x" }),
            ),
          ),
        );
        assert.deepEqual((await fb.json()).refused, [{
          index: 0,
          oobj_id: targets[perEmail]!,
          reason: "rate_limited",
        }]);
        assert.deepEqual(await counts(), before);

        const perListing = INQUIRY_LIMITS.perListing.max;
        const busy = await one();
        for (let i = 0; i < perListing; i++) {
          const res = await postMail(plainMail(objekt(busy), `p${i}-${seq}@example.net`, `Anfrage ${i}`));
          assert.equal(res.status, 201, `inquiry ${i}`);
        }
        before = await counts();
        await refusedWith(
          await postMail(plainMail(objekt(busy), "neu@example.net", "eine mehr")),
          429,
          "rate_limited",
          before,
        );
        const fb2 = await postFeedback(
          feedback(objektXml(busy, interessent({ vorname: "N", email: "neu2@example.net", anfrage: "x" }))),
        );
        assert.deepEqual((await fb2.json()).refused, [{ index: 0, oobj_id: busy, reason: "rate_limited" }]);
        assert.deepEqual(await counts(), before);
      },
    );

    await t.step("over-long text is cut to MESSAGE_MAX; a body over 512 KB is 413", async () => {
      const listingId = await one();
      const long = "x".repeat(MESSAGE_MAX + 500);
      const res = await postMail(plainMail(objekt(listingId), "lang@example.net", long));
      assert.equal(res.status, 201);
      assert.equal((await thread((await res.json()).anfrage_id)).messages[0]!.body.length, MESSAGE_MAX);
      const before = await counts();
      const huge = plainMail(objekt(listingId), "gross@example.net", "a".repeat(600 * 1024));
      await refusedWith(await postMail(huge), 413, "payload_too_large", before);
      await refusedWith(
        await postFeedback(`<x>${"a".repeat(600 * 1024)}</x>`),
        413,
        "payload_too_large",
        before,
      );
    });

    await t.step(
      "OpenImmo-Feedback UTF-8: several interessenten, by id and reference, duplicates",
      async () => {
        const [a, b] = (await listings(2, w.officeId, ["OI-A-1", "OI-B-2"])) as [string, string];
        const xml = feedback(
          objektXml(
            a,
            interessent({
              int_id: "int-1",
              anrede: "Frau",
              vorname: "Anna",
              // Line breaks, tabs and C1 controls of a portal's layout become spaces in one-line fields.
              nachname: "Größe\u0085&amp;\tCo",
              email: "Anna@Example.NET",
              tel: "0171\r\n    1234567",
              anfrage: "Ist die Wohnung noch frei?\nIch hätte gern einen Termin.",
            }),
            interessent({
              vorname: "Bernd",
              nachname: "Bauer",
              email: "bernd@example.net",
              anfrage: "Preis?",
            }),
          ) +
            objektXml(
              "OI-B-2",
              interessent({
                firma: "Firma GmbH",
                email: "firma@example.net",
                handy: "0160 1",
                anfrage: "&#8364; ok?",
              }),
            ),
          "UTF-8",
          "Immo &amp; Portal",
        );
        const before = await counts();
        const res = await postFeedback(xml);
        assert.equal(res.status, 200);
        const r = await res.json();
        assert.deepEqual(r.duplicate, []);
        assert.deepEqual(r.refused, []);
        assert.deepEqual(r.created.map((e: { index: number; oobj_id: string }) => [e.index, e.oobj_id]), [
          [0, a],
          [1, a],
          [2, "OI-B-2"],
        ]);
        const [t0, t1, t2] = await Promise.all(
          r.created.map((e: { anfrage_id: string }) => thread(e.anfrage_id)),
        );
        assert.deepEqual(
          [t0.quelle, t0.listing_id, t0.name, t0.email, t0.phone, t0.messages[0].body],
          [
            "portal",
            a,
            "Anna Größe & Co",
            "anna@example.net",
            "0171 1234567",
            "Ist die Wohnung noch frei?\nIch hätte gern einen Termin.",
          ],
        );
        assert.deepEqual([t1.listing_id, t1.name, t1.email, t1.phone], [
          a,
          "Bernd Bauer",
          "bernd@example.net",
          null,
        ]);
        assert.deepEqual([t2.listing_id, t2.name, t2.phone, t2.messages[0].body], [
          b,
          "Firma GmbH",
          "0160 1",
          "€ ok?",
        ]);
        const mid = await sql<{ message_id: string }>`select message_id from intake_messages
        where inquiry_id = ${t0.id}`.execute(db.kysely);
        assert.deepEqual(mid.rows, [{ message_id: "Immo & Portal:int-1" }]);
        const after = await counts();
        assert.equal(after.inquiries, before.inquiries + 3);
        assert.equal(after.intake, before.intake + 3);

        const again = await (await postFeedback(xml)).json();
        assert.deepEqual(again.created, []);
        assert.deepEqual(again.refused, []);
        assert.deepEqual(again.duplicate, r.created);
        assert.deepEqual(await counts(), after);
      },
    );

    await t.step("OpenImmo-Feedback ISO-8859-1 (declared encoding honoured)", async () => {
      const listingId = await one(w.officeId, "ISO-Ä-1");
      const xml = feedback(
        objektXml(
          "ISO-Ä-1",
          interessent({
            vorname: "Jürgen",
            nachname: "Müßig",
            email: "jm@example.net",
            anfrage: "Grüße, ist Öl-Heizung?",
          }),
        ),
        "ISO-8859-1",
      );
      const res = await postFeedback(latin1(xml));
      const r = await res.json();
      assert.equal(res.status, 200);
      assert.deepEqual(r.refused, []);
      assert.equal(r.created.length, 1);
      assert.equal(r.created[0].oobj_id, "ISO-Ä-1");
      const th = await thread(r.created[0].anfrage_id);
      assert.deepEqual([th.listing_id, th.name, th.messages[0]!.body], [
        listingId,
        "Jürgen Müßig",
        "Grüße, ist Öl-Heizung?",
      ]);
      // The same bytes declared as UTF-8 are not valid UTF-8.
      const before = await counts();
      const wrong = await postFeedback(latin1(xml.replace('encoding="ISO-8859-1"', 'encoding="UTF-8"')));
      await refusedWith(wrong, 400, "invalid_request", before);
    });

    await t.step(
      "OpenImmo-Feedback refusals: malformed XML, unknown and ambiguous listings, bad entries",
      async () => {
        const shared = "GLEICH-1";
        const mine = await one(w.officeId, shared);
        await one(await createOffice(db, "Zweitbüro"), shared);
        const before = await counts();
        const good = interessent({ vorname: "Gut", email: "gut@example.net", anfrage: "x" });
        for (
          const broken of [
            feedback(objektXml(mine, good)).replace("</interessent>", ""),
            "kein xml",
            `<?xml version="1.0"?><openimmo><objekt/></openimmo>`,
            `<?xml version="1.0"?><!DOCTYPE lol [<!ENTITY a "aaaa">]><openimmo_feedback>&a;</openimmo_feedback>`,
            feedback(objektXml(mine, good), "x-unbekannt"),
          ]
        ) {
          await refusedWith(await postFeedback(broken), 400, "invalid_request", before);
        }
        const res = await postFeedback(feedback(
          objektXml("GIBT-ES-NICHT", good) +
            objektXml(crypto.randomUUID(), good) +
            objektXml(shared, good) +
            objektXml("", good) +
            objektXml(
              mine,
              interessent({ vorname: "Ohne", email: "keine-adresse", anfrage: "x" }),
              interessent({ vorname: "Leer", email: "leer@example.net", anfrage: "   " }),
              interessent({ vorname: "Tel", email: "tel@example.net", tel: "1".repeat(60), anfrage: "x" }),
            ),
        ));
        assert.equal(res.status, 200);
        const r = await res.json();
        assert.deepEqual(r.created, []);
        assert.deepEqual(r.duplicate, []);
        assert.deepEqual(r.refused.map((e: { index: number; reason: string }) => [e.index, e.reason]), [
          [0, "unknown_listing"],
          [1, "unknown_listing"],
          [2, "ambiguous_listing"],
          [3, "unknown_listing"],
          [4, "invalid_email"],
          [5, "invalid_message"],
          [6, "invalid_phone"],
        ]);
        assert.deepEqual(await counts(), before);
      },
    );
  } finally {
    await w.close();
  }
});
