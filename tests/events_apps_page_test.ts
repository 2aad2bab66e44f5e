/**
 * The "Connected apps" page and events (docs/contract.md §6.3): a provider's app subscribes over MCP; the page (signed in
 * through the real sign-in form) lists the subscription; switching the event off ends it at once (DB, `terminated`
 * message with reason ended_by_user, no further delivery, renewal refused with -32012 ended_by_user); switching it
 * on lets the app subscribe again; disconnecting ends every subscription of the connection. Refused: a POST
 * without CSRF token, another person's app, an event the app's server does not offer. When Chromium is installed,
 * one step clicks the switch in a real browser.
 */
import assert from "node:assert/strict";
import type { Browser, Page as BrowserPage } from "playwright-core";
import { optOutsOf, subscriptionById } from "../db/subscriptions.ts";
import { HAVE_CHROMIUM, launchChromium } from "./browser_support.ts";
import { JarBrowser, type Step } from "./browser_jar.ts";
import {
  connectApp,
  type ConnectedApp,
  eventsWorld,
  newSecret,
  subscribeParams,
  until,
} from "./events_support.ts";
import { PASSWORD, register } from "./oauth_support.ts";
import type { ReceivedDelivery } from "./webhook_receiver.ts";

type Page = Extract<Step, { kind: "page" }>;

function asPage(step: Step): Page {
  if (step.kind !== "page") throw new Error(`left the service for ${step.location}`);
  return step;
}

/**
 * Signs `email` in through the real sign-in form; returns the browser and the page it lands on. The test signs
 * everyone in before the first OAuth consent: after a consent POST, a later plain sign-in in this build lands on
 * the consent page of that earlier authorization request (reported as a bug; not what this test is about).
 */
async function signIn(origin: string, email: string): Promise<{ b: JarBrowser; page: Page }> {
  const b = new JarBrowser(origin);
  const form = await b.open("/anmelden");
  const landed = asPage(await b.submit(form, "/anmelden", { email, password: PASSWORD }));
  // Providers may land on their workspace (/anbieter) after signing in; the apps page is one link away.
  const page = new URL(landed.url).pathname === "/konto/apps" ? landed : asPage(await b.open("/konto/apps"));
  assert.equal(new URL(page.url).pathname, "/konto/apps", page.url + page.html.slice(0, 3000));
  return { b, page };
}

/** The events card of app `clientId` on the connected-apps page, or undefined. */
function card(html: string, clientId: string): string | undefined {
  for (const m of html.matchAll(/<section\b[^>]*data-app-events="([^"]*)"[^>]*>([\s\S]*?)<\/section>/g)) {
    if (m[1] === clientId) return m[2];
  }
  return undefined;
}

/** The listed subscriptions of a card: id → the item's HTML. */
function listed(cardHtml: string): Map<string, string> {
  const out = new Map<string, string>();
  for (const m of cardHtml.matchAll(/<li\b[^>]*data-subscription-id="([^"]*)"[^>]*>([\s\S]*?)<\/li>/g)) {
    out.set(m[1]!, m[2]!);
  }
  return out;
}

/** The switch state (`on`/`off`) of each event in a card. */
function switches(cardHtml: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const m of cardHtml.matchAll(/<li\b[^>]*data-event="([^"]*)" data-state="(on|off)"/g)) {
    out[m[1]!] = m[2]!;
  }
  return out;
}

function noticeOf(html: string): string | undefined {
  return /<p class="notice" role="status">([^<]*)<\/p>/.exec(html)?.[1];
}

function isEvent(d: ReceivedDelivery, name: string, anfrageId: string): boolean {
  const j = d.json as { name?: string; data?: { anfrage_id?: string } } | undefined;
  return j?.name === name && j.data?.anfrage_id === anfrageId;
}

function terminated(d: ReceivedDelivery): { reason?: unknown } | undefined {
  const j = d.json as { type?: unknown; error?: { data?: { reason?: unknown } } } | undefined;
  return j?.type === "terminated" ? { reason: j.error?.data?.reason } : undefined;
}

Deno.test("connected apps page: subscriptions, event switches, disconnect", async (t) => {
  const w = await eventsWorld({ receivers: [{}, {}] });
  const apps: ConnectedApp[] = [];
  let browser: Browser | undefined;
  try {
    const db = w.tdb.db;
    const [r0, r1] = [w.receivers[0]!, w.receivers[1]!];
    const secretA = newSecret();
    const secretB = newSecret();
    w.secrets[0]!.push(secretA);
    w.secrets[1]!.push(secretB);

    // Everyone signs in through the real sign-in form before any app is connected (see the note at signIn).
    const provider = await signIn(w.origin, w.provider.email);
    const seekerPages = await signIn(w.origin, w.seeker.email);
    let chromiumPage: BrowserPage | undefined;
    if (HAVE_CHROMIUM) {
      browser = await launchChromium();
      const ctx = await browser.newContext({ locale: "de-DE" });
      ctx.setDefaultTimeout(15_000);
      chromiumPage = await ctx.newPage();
      await chromiumPage.goto(`${w.origin}/anmelden`);
      await chromiumPage.fill("#email", w.provider.email);
      await chromiumPage.fill("#password", PASSWORD);
      await chromiumPage.click("form[action='/anmelden'] button[type=submit]");
      // Providers may land on their workspace (/anbieter) after signing in.
      await chromiumPage.waitForURL((u) => u.pathname !== "/anmelden");
    }

    // App A (the one switched off and disconnected) and app B (a control that keeps receiving), both the provider's.
    const a = await connectApp(w, w.provider.email, "v2-modern", {
      clientId: await register(w.origin, { client_name: "Makler-App A" }),
    });
    const bApp = await connectApp(w, w.provider.email, "v2-legacy", {
      clientId: await register(w.origin, { client_name: "Kontroll-App B" }),
    });
    const seeker = await connectApp(w, w.seeker.email, "v2-legacy");
    apps.push(a, bApp, seeker);

    const inquiryA = subscribeParams("inquiry.received", r0.url, secretA);
    const bookedA = subscribeParams("viewing.booked", r0.url, secretA, { objekt_id: w.listingId });
    const subA1 = await a.call("events/subscribe", inquiryA);
    const subA2 = await a.call("events/subscribe", bookedA);
    const subB = await bApp.call("events/subscribe", subscribeParams("inquiry.received", r1.url, secretB));
    const idA1 = subA1.id as string;
    const idA2 = subA2.id as string;
    const idB = subB.id as string;

    /** Sends an inquiry as the seeker; resolves to its id once app B's receiver got it (so the drain ran). */
    const inquiry = async (text: string): Promise<string> => {
      const sent = await seeker.callTool("send_inquiry", { listing_id: w.listingId, message: text });
      const id = sent.structuredContent?.inquiry_id as string;
      assert.ok(id, JSON.stringify(sent));
      await until(
        () => r1.deliveries.some((d) => isEvent(d, "inquiry.received", id)),
        15_000,
        `inquiry ${id} at B`,
      );
      return id;
    };
    const deliveryRows = async (subscriptionId: string) =>
      (await db.kysely.selectFrom("event_deliveries").select("id").where(
        "subscription_id",
        "=",
        subscriptionId,
      )
        .execute()).length;

    let page = provider.page;

    await t.step("baseline: both apps receive an inquiry", async () => {
      const id = await inquiry("Ist die Wohnung noch frei? (1)");
      await until(
        () => r0.deliveries.some((d) => isEvent(d, "inquiry.received", id)),
        15_000,
        "inquiry at A",
      );
      const got = r0.deliveries.find((d) => isEvent(d, "inquiry.received", id))!;
      assert.deepEqual(got.verified, { standardwebhooks: true, svix: true });
    });

    await t.step("the page lists each app's subscriptions and event switches", async () => {
      page = asPage(await provider.b.open("/konto/apps"));
      assert.equal(page.status, 200);
      const cardA = card(page.html, a.clientId);
      assert.ok(cardA, "card of app A");
      assert.match(cardA, /Makler-App A/);
      const subs = listed(cardA);
      assert.deepEqual([...subs.keys()].sort(), [idA1, idA2].sort());
      const host = new URL(r0.url).host;
      const inq = subs.get(idA1)!;
      assert.match(
        inq,
        /<strong>Neue Anfrage zu einem Ihrer Objekte<\/strong> \(<code>inquiry\.received<\/code>\)/,
      );
      assert.match(inq, /ohne Filter/);
      assert.ok(inq.includes(`<code class="address">${host}/hook</code>`), inq);
      assert.ok(inq.includes(`datetime="${subA1.refreshBefore}"`), inq);
      const booked = subs.get(idA2)!;
      assert.ok(booked.includes(`objekt_id=${w.listingId}`), booked);
      assert.ok(booked.includes(`datetime="${subA2.refreshBefore}"`), booked);
      // Every event of the provider server has a switch, all on.
      assert.deepEqual(switches(cardA), {
        "inquiry.received": "on",
        "message.received": "on",
        "viewing.booked": "on",
        "viewing.cancelled": "on",
        "proposal.pending": "on",
        "file.processed": "on",
        "viewing.upcoming": "on",
        "social.received": "on",
      });
      const cardB = card(page.html, bApp.clientId)!;
      assert.deepEqual([...listed(cardB).keys()], [idB]);
      // The seeker's page shows none of the provider's subscriptions.
      const s = asPage(await seekerPages.b.open("/konto/apps"));
      assert.equal(card(s.html, a.clientId), undefined);
      assert.equal(card(s.html, bApp.clientId), undefined);
      assert.deepEqual(switches(card(s.html, seeker.clientId)!), {
        "matches.new": "on",
        "reply.received": "on",
        "viewing.changed": "on",
      });
    });

    await t.step(
      "refused: no CSRF token, another person's app, an event the app does not offer",
      async () => {
        const noToken = await provider.b.open("/konto/apps/ereignis", {
          method: "POST",
          headers: { "content-type": "application/x-www-form-urlencoded", origin: w.origin },
          body: new URLSearchParams({ client_id: a.clientId, name: "inquiry.received", action: "off" }),
        });
        assert.equal(asPage(noToken).status, 403);
        const s = asPage(await seekerPages.b.open("/konto/apps"));
        const foreign = asPage(
          await seekerPages.b.submit(s, "/konto/apps/ereignis", {
            client_id: a.clientId,
            name: "inquiry.received",
            action: "off",
          }),
        );
        assert.equal(foreign.status, 404);
        assert.match(foreign.html, /nicht mit Ihrem Konto verbunden/);
        for (const name of ["matches.new", "no.such.event", ""]) {
          const wrong = asPage(
            await provider.b.submit(page, "/konto/apps/ereignis", {
              client_id: a.clientId,
              name,
              action: "off",
            }),
          );
          assert.equal(wrong.status, 404, name);
        }
        const badAction = asPage(
          await provider.b.submit(page, "/konto/apps/ereignis", {
            client_id: a.clientId,
            name: "inquiry.received",
            action: "toggle",
          }),
        );
        assert.equal(badAction.status, 400);
        // Nothing changed.
        assert.equal((await subscriptionById(db.kysely, idA1))!.endedAt, null);
        assert.deepEqual(await optOutsOf(db, w.provider.userId), []);
        assert.deepEqual(await optOutsOf(db, w.seeker.userId), []);
        assert.equal(r0.deliveries.filter((d) => terminated(d)).length, 0);
      },
    );

    await t.step("switching an event off ends its subscription at once and blocks renewal", async () => {
      const rowsBefore = await deliveryRows(idA1);
      page = asPage(
        await provider.b.submit(page, "/konto/apps/ereignis", {
          client_id: a.clientId,
          name: "inquiry.received",
          action: "off",
        }),
      );
      assert.equal(page.status, 200);
      assert.match(noticeOf(page.html) ?? "", /ausgeschaltet.*sofort beendet/);
      const cardA = card(page.html, a.clientId)!;
      assert.deepEqual([...listed(cardA).keys()], [idA2]);
      assert.equal(switches(cardA)["inquiry.received"], "off");
      assert.equal(switches(cardA)["viewing.booked"], "on");

      const ended = (await subscriptionById(db.kysely, idA1))!;
      assert.ok(ended.endedAt, "subscription ended");
      assert.equal(ended.endReason, "ended_by_user");
      assert.equal((await subscriptionById(db.kysely, idA2))!.endedAt, null, "other event untouched");
      assert.equal((await subscriptionById(db.kysely, idB))!.endedAt, null, "other app untouched");

      await until(() => r0.deliveries.some((d) => terminated(d)), 15_000, "terminated message");
      const term = r0.deliveries.filter((d) => terminated(d));
      assert.equal(term.length, 1);
      assert.equal(terminated(term[0]!)!.reason, "ended_by_user");
      assert.deepEqual(term[0]!.verified, { standardwebhooks: true, svix: true });

      // A new inquiry reaches app B (so the drain ran) but creates no delivery for app A.
      const id = await inquiry("Ist die Wohnung noch frei? (2)");
      assert.equal(await deliveryRows(idA1), rowsBefore);
      assert.equal(r0.deliveries.some((d) => isEvent(d, "inquiry.received", id)), false);

      // The app's renewal (same call) is refused.
      const err = await a.fail("events/subscribe", inquiryA);
      assert.equal(err.code, -32012);
      assert.deepEqual(err.data, { reason: "ended_by_user" });
      // Switching off again changes nothing and is not an error.
      const again = asPage(
        await provider.b.submit(page, "/konto/apps/ereignis", {
          client_id: a.clientId,
          name: "inquiry.received",
          action: "off",
        }),
      );
      assert.equal(again.status, 200);
      assert.deepEqual(await optOutsOf(db, w.provider.userId), [{
        clientId: a.clientId,
        name: "inquiry.received",
      }]);
    });

    let idA1b = "";
    await t.step("switching it on lets the app subscribe again", async () => {
      page = asPage(
        await provider.b.submit(page, "/konto/apps/ereignis", {
          client_id: a.clientId,
          name: "inquiry.received",
          action: "on",
        }),
      );
      assert.equal(page.status, 200);
      assert.match(noticeOf(page.html) ?? "", /wieder eingeschaltet/);
      assert.equal(switches(card(page.html, a.clientId)!)["inquiry.received"], "on");
      assert.deepEqual(await optOutsOf(db, w.provider.userId), []);
      const renewed = await a.call("events/subscribe", inquiryA);
      idA1b = renewed.id as string;
      assert.notEqual(idA1b, idA1, "a new subscription, the ended one stays ended");
      assert.equal((await subscriptionById(db.kysely, idA1))!.endReason, "ended_by_user");
      const id = await inquiry("Ist die Wohnung noch frei? (3)");
      await until(
        () => r0.deliveries.some((d) => isEvent(d, "inquiry.received", id)),
        15_000,
        "inquiry at A",
      );
      page = asPage(await provider.b.open("/konto/apps"));
      assert.deepEqual([...listed(card(page.html, a.clientId)!).keys()].sort(), [idA1b, idA2].sort());
    });

    await t.step({
      name: "Chromium: the page shows the subscription and the switch works",
      ignore: !HAVE_CHROMIUM,
      fn: async () => {
        const p = chromiumPage!;
        await p.goto(`${w.origin}/konto/apps`);
        const section = p.locator(`section[data-app-events="${a.clientId}"]`);
        const item = section.locator(`li[data-subscription-id="${idA2}"]`);
        assert.equal(await item.count(), 1);
        assert.match(
          await item.textContent() ?? "",
          /Ein Interessent hat einen Besichtigungstermin gebucht oder umgebucht \(viewing\.booked\)/,
        );
        const sw = section.locator(`ul.switches li[data-event="viewing.booked"]`);
        assert.equal(await sw.getAttribute("data-state"), "on");
        await sw.locator("button", { hasText: "Ausschalten" }).click();
        await p.waitForSelector("p.notice[role=status]");
        assert.match(await p.textContent("p.notice") ?? "", /ausgeschaltet/);
        assert.equal(await section.locator(`li[data-subscription-id="${idA2}"]`).count(), 0);
        assert.equal(await sw.getAttribute("data-state"), "off");
        const ended = (await subscriptionById(db.kysely, idA2))!;
        assert.equal(ended.endReason, "ended_by_user");
        await sw.locator("button", { hasText: "Einschalten" }).click();
        await p.waitForSelector("p.notice[role=status]");
        assert.equal(await sw.getAttribute("data-state"), "on");
        // The app may subscribe again.
        await a.call("events/subscribe", bookedA);
      },
    });

    await t.step("disconnecting the app ends all its subscriptions and its events stop", async () => {
      const live = (await db.kysely.selectFrom("event_subscriptions").select("id")
        .where("client_id", "=", a.clientId).where("ended_at", "is", null).execute()).map((r) => r.id);
      assert.ok(live.includes(idA1b) && live.length >= 2, JSON.stringify(live));
      const termBefore = r0.deliveries.filter((d) => terminated(d)).length;
      page = asPage(await provider.b.submit(page, "/konto/apps/trennen", { client_id: a.clientId }));
      assert.equal(page.status, 200);
      assert.match(
        noticeOf(page.html) ?? "",
        /getrennt\. Alle Ereignis-Abos dieser Verbindung wurden beendet/,
      );
      assert.equal(card(page.html, a.clientId), undefined);
      assert.ok(card(page.html, bApp.clientId), "app B stays");
      for (const id of live) {
        const s = (await subscriptionById(db.kysely, id))!;
        assert.ok(s.endedAt, id);
        assert.equal(s.endReason, "disconnected");
      }
      await until(
        () => r0.deliveries.filter((d) => terminated(d)).length >= termBefore + live.length,
        15_000,
        "terminated messages after disconnect",
      );
      const reasons = r0.deliveries.filter((d) => terminated(d)).slice(termBefore).map((d) =>
        terminated(d)!.reason
      );
      assert.deepEqual(reasons, live.map(() => "access_closed"));
      const rows = await Promise.all(live.map(deliveryRows));
      const id = await inquiry("Ist die Wohnung noch frei? (4)");
      assert.deepEqual(await Promise.all(live.map(deliveryRows)), rows);
      assert.equal(r0.deliveries.some((d) => isEvent(d, "inquiry.received", id)), false);
      assert.equal((await subscriptionById(db.kysely, idB))!.endedAt, null);
    });
  } finally {
    await browser?.close();
    for (const app of apps) await app.close().catch(() => {});
    await w.close();
  }
});
