/**
 * E-mail alerts of saved searches (issue 31) through the real paths, on PGlite or the DATABASE_URL server: the
 * saved-search runs record the alert mail in their transaction, the mail sender delivers it to a fake SMTP server
 * speaking real SMTP (tests/smtp_server.ts), and the stop link of the mail (GET changes nothing, POST without a
 * cookie stops) is requested from the app. Instant and daily alerts, listings that left the catalogue, a mail
 * recorded and then stopped, a link of another search, an outdated link after switching on again, deleting a
 * search, and another seeker's search.
 */
import assert from "node:assert/strict";
import { sendDueMails } from "../auth/mail.ts";
import type { NewListing } from "../db/listings.ts";
import { insertListings } from "../db/listings.ts";
import { insertUser } from "../db/accounts.ts";
import { ensureOffice } from "../db/offices.ts";
import { act, type Action } from "../deps.ts";
import { AppError } from "../errors.ts";
import { createSavedSearch, deleteSavedSearch, runSavedSearches } from "../searches/saved_searches.ts";
import {
  ALERT_LISTED,
  alertStopUrl,
  composeAlertMail,
  DAILY_ALERT_MS,
  setSearchAlert,
  stopAlertByLink,
} from "../searches/search_alerts.ts";
import { openTestDb, request, seekerWho, testApp } from "./helpers.ts";
import { decodeHeader, fakeSmtp, received } from "./smtp_server.ts";

const MINUTE = 60_000;
const BASE = "https://katalog.example";

Deno.test("search alerts: instant and daily mails over SMTP, the stop link, and what they never do", async (t) => {
  const fake = fakeSmtp();
  const tdb = await openTestDb();
  const db = tdb.db;
  const app = await testApp(db, {
    BASE_URL: BASE,
    SMTP_URL: `smtp://127.0.0.1:${fake.port}`,
    SMTP_FROM: "Katalog <noreply@katalog.example>",
  });
  const deps = app.deps;
  const officeId = await ensureOffice(db, "Alarmbüro");
  const seekerId = await insertUser(db, { email: "alarm@example.org", name: "Ala Arm", role: "seeker" });
  const otherId = await insertUser(db, { email: "andere@example.org", name: "Andere", role: "seeker" });
  const listing = (p: Partial<NewListing>): NewListing => ({
    status: "published",
    reference: null,
    title: "Altbau mit Balkon",
    description: "intern",
    city: "Köln",
    postal_code: "50667",
    property_type: "apartment",
    transaction_type: "rent",
    asked_price: 1150,
    total_rooms: 3,
    square_meters: 78,
    latitude: null,
    longitude: null,
    beispiel: false,
    published_at: new Date(app.now()),
    contact: {
      provider_name: "Büro",
      contact_name: "Frau B",
      contact_email: "b@example.org",
      contact_phone: null,
    },
    ...p,
  });
  const run = async () => {
    app.advance(MINUTE);
    await runSavedSearches(deps);
    await sendDueMails(deps);
  };
  const mailsTo = (to: string) =>
    fake.sessions.filter((s) => s.rcptTo.includes(`TO:<${to}>`) && s.data.length === 1).map(received);
  const rows = (id: string) =>
    db.kysely.selectFrom("mail_outbox").select(["id", "sent_at", "last_error", "body"])
      .where("saved_search_id", "=", id).orderBy("created_at").execute();
  const asSeeker = <T>(id: string, fn: Parameters<typeof act<T>>[2]) => act(deps, seekerWho(id), fn);
  const token = async (id: string) =>
    (await db.kysely.selectFrom("saved_searches").select("alert_token").where("id", "=", id)
      .executeTakeFirstOrThrow()).alert_token!;
  try {
    const koeln = await asSeeker(
      seekerId,
      (a) =>
        createSavedSearch(a, { name: "Köln Miete", filters: { city: "Köln", transaction_type: "rent" } }),
    );
    const bonn = await asSeeker(
      seekerId,
      (a) => createSavedSearch(a, { filters: { city: "Bonn", max_price: 500_000 } }),
    );

    await t.step(
      "an alert off mails nothing; switched on, only matches found afterwards are mailed",
      async () => {
        await insertListings(db, officeId, [listing({ title: "Vor dem Alarm" })]);
        await run();
        assert.equal((await rows(koeln.id)).length, 0, "alert off by default");
        await asSeeker(seekerId, (a) => setSearchAlert(a, koeln.id, "instant"));
        await run();
        assert.equal((await rows(koeln.id)).length, 0, "the match found before the alert is not mailed");
      },
    );

    await t.step("instant: one mail per run with new matches, over SMTP with its stop line", async () => {
      app.advance(MINUTE);
      const ids = await insertListings(db, officeId, [
        listing({ title: "Helle 3-Zimmer-Wohnung" }),
        listing({ title: "Dachgeschoss", asked_price: 980.5, total_rooms: 2.5, square_meters: 61.25 }),
        listing({ title: "Zum Kauf", transaction_type: "buy" }),
        listing({ title: "Entwurf", status: "draft", published_at: null }),
      ]);
      await run();
      const mails = mailsTo("alarm@example.org");
      assert.equal(mails.length, 1);
      const m = mails[0]!;
      assert.equal(m.subject, "2 neue Angebote für Ihre Suche „Köln Miete“");
      assert.match(
        m.body,
        /für Ihre gespeicherte Suche „Köln Miete“ \(Köln, Miete\) gibt es 2 neue Angebote:/,
      );
      assert.match(m.body, /- Dachgeschoss – 50667 Köln, 980,50\u00a0€, 2,5 Zimmer, 61,25 m²/);
      assert.ok(m.body.includes(`${BASE}/objekte/${ids[0]}`) && m.body.includes(`${BASE}/objekte/${ids[1]}`));
      assert.ok(!m.body.includes("Zum Kauf") && !m.body.includes("Entwurf"));
      assert.ok(m.body.includes(`Alle Treffer: ${BASE}/objekte?city=K%C3%B6ln&transaction_type=rent`));
      assert.ok(
        !m.body.includes("Frau B") && !m.body.includes("b@example.org"),
        "nothing about the provider",
      );
      const stop = alertStopUrl(BASE, koeln.id, await token(koeln.id));
      assert.ok(m.body.includes(`Keine E-Mails mehr zu dieser Suche: ${stop}`));
      assert.equal(decodeHeader(m.headers.get("list-unsubscribe") ?? "").trim(), `<${stop}>`);
      assert.equal(m.headers.get("list-unsubscribe-post"), "List-Unsubscribe=One-Click");
      assert.equal(m.headers.get("reply-to"), undefined);
      await run();
      assert.equal(mailsTo("alarm@example.org").length, 1, "no new matches, no mail");
    });

    await t.step("a listing withdrawn before the run is neither matched nor mailed", async () => {
      app.advance(MINUTE);
      const [gone] = await insertListings(db, officeId, [listing({ title: "Schon weg" })]);
      await db.kysely.updateTable("listings").set({ status: "withdrawn" }).where("id", "=", gone!).execute();
      await run();
      assert.equal(mailsTo("alarm@example.org").length, 1);
    });

    await t.step(
      "the stop link: GET changes nothing, another search's or a forged token is 404",
      async () => {
        await asSeeker(seekerId, (a) => setSearchAlert(a, bonn.id, "daily"));
        const stopK = alertStopUrl(BASE, koeln.id, await token(koeln.id));
        const stopB = alertStopUrl(BASE, bonn.id, await token(bonn.id));
        const path = (u: string) => new URL(u).pathname;
        const page = await request(app.app, path(stopK), { headers: { accept: "text/html" } });
        assert.equal(page.status, 200);
        assert.match(await page.text(), /Köln Miete/);
        const hexK = koeln.id.replaceAll("-", "");
        const tokB = path(stopB).split("-").at(-1)!;
        for (const bad of [`${hexK}-${tokB}`, `${hexK}-${"a".repeat(20)}`, `${hexK}-short`, "x", `${hexK}`]) {
          const r = await request(app.app, `/suche-mails/abbestellen/${bad}`, { method: "POST" });
          assert.equal(r.status, 404, bad);
          await r.body?.cancel();
        }
        const foreign = await request(app.app, path(stopK), {
          method: "POST",
          headers: { origin: "https://evil.example" },
        });
        assert.equal(foreign.status, 403);
        await foreign.body?.cancel();
        const alerts = await db.kysely.selectFrom("saved_searches").select(["id", "alert"])
          .where("seeker_id", "=", seekerId).orderBy("id").execute();
        assert.deepEqual(
          new Map(alerts.map((r) => [r.id, r.alert])).get(koeln.id),
          "instant",
          "nothing changed",
        );
      },
    );

    await t.step(
      "a mail recorded and then stopped by its link is not sent; stopping twice is fine",
      async () => {
        app.advance(MINUTE);
        await insertListings(db, officeId, [listing({ title: "Nach dem Stopp" })]);
        app.advance(MINUTE);
        await runSavedSearches(deps); // recorded, not yet sent
        const recorded = await rows(koeln.id);
        assert.equal(recorded.length, 2);
        const stopPath = new URL(alertStopUrl(BASE, koeln.id, await token(koeln.id))).pathname;
        for (let i = 0; i < 2; i++) {
          const r = await request(app.app, stopPath, { method: "POST" }); // one-click: no cookie, no token
          assert.equal(r.status, 200);
          assert.match(await r.text(), /keine E-Mails mehr zu dieser Suche/);
        }
        await sendDueMails(deps);
        assert.equal(mailsTo("alarm@example.org").length, 1);
        const last = (await rows(koeln.id)).at(-1)!;
        assert.equal(last.sent_at, null);
        assert.equal(last.last_error, "alert switched off");
        await insertListings(db, officeId, [listing({ title: "Noch eins" })]);
        await run();
        assert.equal((await rows(koeln.id)).length, 2, "an alert switched off records nothing");
      },
    );

    await t.step("switched on again: a new token; the old link is dead", async () => {
      const old = await token(koeln.id);
      await asSeeker(seekerId, (a) => setSearchAlert(a, koeln.id, "daily"));
      assert.notEqual(await token(koeln.id), old);
      assert.equal(
        await act(
          deps,
          { actor: { kind: "guest" }, origin: null },
          (a) => stopAlertByLink(a, `${koeln.id.replaceAll("-", "")}-${old}`),
        ),
        false,
      );
    });

    await t.step("daily: at most one mail in 24 hours, with every match since", async () => {
      const before = mailsTo("alarm@example.org").length;
      app.advance(MINUTE);
      await insertListings(db, officeId, [listing({ title: "Morgens" })]);
      await run();
      assert.equal(mailsTo("alarm@example.org").length, before, "not a day since switching on");
      app.advance(3 * 3_600_000);
      await insertListings(db, officeId, [listing({ title: "Mittags" })]);
      await run();
      app.advance(DAILY_ALERT_MS);
      await run();
      const mails = mailsTo("alarm@example.org");
      assert.equal(mails.length, before + 1);
      assert.match(mails.at(-1)!.subject, /^2 neue Angebote/);
      assert.ok(mails.at(-1)!.body.includes("Morgens") && mails.at(-1)!.body.includes("Mittags"));
      await insertListings(db, officeId, [listing({ title: "Abends" })]);
      await run();
      assert.equal(mailsTo("alarm@example.org").length, before + 1, "the next one waits a day");
    });

    await t.step(
      "another seeker cannot switch or delete the search; deleting it deletes its mails",
      async () => {
        const fns: Array<(a: Action) => Promise<void>> = [
          (a) => setSearchAlert(a, koeln.id, "off"),
          (a) => deleteSavedSearch(a, koeln.id),
        ];
        for (const fn of fns) {
          await assert.rejects(asSeeker(otherId, fn), (e) => e instanceof AppError && e.code === "not_found");
        }
        await assert.rejects(
          asSeeker(seekerId, (a) => setSearchAlert(a, "kein-uuid", "daily")),
          (e) => e instanceof AppError && e.code === "not_found",
        );
        assert.ok((await rows(koeln.id)).length > 0);
        await asSeeker(seekerId, (a) => deleteSavedSearch(a, koeln.id));
        assert.equal((await rows(koeln.id)).length, 0);
      },
    );
  } finally {
    await app.close();
    await tdb.close();
    await fake.close();
  }
});

Deno.test("search alerts: a mail lists at most ten listings and counts the rest", () => {
  const item = (i: number) => ({
    id: `00000000-0000-4000-8000-${String(i).padStart(12, "0")}`,
    title: `Objekt ${i}`,
    city: "Bonn",
    postal_code: null,
    property_type: "house" as const,
    transaction_type: "buy" as const,
    asked_price: 500_000,
    total_rooms: null,
    square_meters: null,
    latitude: null,
    longitude: null,
    beispiel: false,
  });
  const items = Array.from({ length: ALERT_LISTED }, (_, i) => item(i));
  const mail = composeAlertMail({ name: null, filters: { city: "Bonn" } }, { items, total: 14 }, BASE);
  assert.equal(mail.subject, "14 neue Angebote für Ihre Suche");
  assert.match(mail.body, /- Objekt 9 – Bonn, 500\.000\u00a0€\n/);
  assert.match(mail.body, /… und 4 weitere\./);
});
