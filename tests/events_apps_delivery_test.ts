/**
 * The delivery part of the "Connected apps" page (docs/contract.md §5.7, §6.4) in a real browser: each
 * subscription shows its state and recent attempts (time, event, attempt, status or error category, duration); a
 * suspended one its kept events and "Zustellung reaktivieren", an active one "Erneut senden" on a failed event.
 * Both forms work in Chromium (the event arrives again, verified; the kept events arrive once each, in order), the
 * page fits 1280 and 390 px without sideways scrolling (screenshots in `test-output/apps_delivery/`), and the forms
 * refuse a missing CSRF token (403), another person's subscription or a wrong event (404) and a resend while
 * suspended (409). Without Chromium the test is ignored.
 */
import assert from "node:assert/strict";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { sql } from "kysely";
import { eventIdOf } from "../db/outbox.ts";
import { HAVE_CHROMIUM, launchChromium, saveScreenshot, submitForm } from "./browser_support.ts";
import { hiddenFields, JarBrowser, type Step } from "./browser_jar.ts";
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

const SHOTS = new URL("../test-output/apps_delivery/", import.meta.url);
const VIEWPORTS = [{ width: 1280, height: 900 }, { width: 390, height: 844 }] as const;
const idOf = (d: ReceivedDelivery) => d.headers["webhook-id"];

function asPage(step: Step): Extract<Step, { kind: "page" }> {
  if (step.kind !== "page") throw new Error(`left the service for ${step.location}`);
  return step;
}

/** Signs `email` in through the real sign-in form in the jar browser. */
async function jarSignIn(origin: string, email: string): Promise<JarBrowser> {
  const b = new JarBrowser(origin);
  await b.submit(await b.open("/anmelden"), "/anmelden", { email, password: PASSWORD });
  return b;
}

/** Signs `email` in through the sign-in form in Chromium. */
async function chromiumSignIn(ctx: BrowserContext, origin: string, email: string): Promise<Page> {
  const page = await ctx.newPage();
  await page.goto(`${origin}/anmelden`);
  await page.fill("#email", email);
  await page.fill("#password", PASSWORD);
  await page.click("form[action='/anmelden'] button[type=submit]");
  await page.waitForURL((u) => u.pathname !== "/anmelden");
  return page;
}

Deno.test({
  name: "connected apps page: delivery state, attempts, send again and reactivate in Chromium (1280, 390 px)",
  ignore: !HAVE_CHROMIUM,
  async fn(t) {
    await Deno.mkdir(SHOTS, { recursive: true });
    let downFailing = true;
    let picky = 0;
    const w = await eventsWorld({
      receivers: [
        { respond: () => new Response(null, { status: downFailing ? 500 : 204 }) },
        { respond: () => new Response(null, { status: ++picky === 1 ? 413 : 204 }) },
      ],
    });
    const [down, pickyRx] = [w.receivers[0]!, w.receivers[1]!];
    const apps: ConnectedApp[] = [];
    let browser: Browser | undefined;
    try {
      const db = w.tdb.db;
      const [secretA, secretB] = [newSecret(), newSecret()];
      w.secrets[0]!.push(secretA);
      w.secrets[1]!.push(secretB);
      // Everyone signs in before the first OAuth consent (see tests/events_apps_page_test.ts).
      browser = await launchChromium();
      const contexts = await Promise.all(
        VIEWPORTS.map((viewport) => browser!.newContext({ locale: "de-DE", viewport })),
      );
      for (const c of contexts) c.setDefaultTimeout(15_000);
      const pages = await Promise.all(contexts.map((c) => chromiumSignIn(c, w.origin, w.provider.email)));
      const providerJar = await jarSignIn(w.origin, w.provider.email);
      const seekerJar = await jarSignIn(w.origin, w.seeker.email);

      const app = await connectApp(w, w.provider.email, "v2-modern", {
        clientId: await register(w.origin, { client_name: "Makler-App A" }),
      });
      const seeker = await connectApp(w, w.seeker.email, "v2-legacy");
      apps.push(app, seeker);
      const s1 = (await app.call("events/subscribe", subscribeParams("inquiry.received", down.url, secretA)))
        .id as string;
      const s2 =
        (await app.call("events/subscribe", subscribeParams("inquiry.received", pickyRx.url, secretB)))
          .id as string;
      const inquire = async (text: string) => {
        const sent = await seeker.callTool("send_inquiry", { listing_id: w.listingId, message: text });
        const r = await sql<{ id: string }>`select id from event_outbox where name = 'inquiry.received'
          and data->>'anfrage_id' = ${sent.structuredContent?.inquiry_id as string}`.execute(db.kysely);
        return eventIdOf(r.rows[0]!.id);
      };
      const stateOf = async (sub: string, e: string) =>
        (await sql<{ state: string }>`select state from event_deliveries where subscription_id = ${sub}
          and outbox_id = ${e.slice(4)}::uuid`.execute(db.kysely)).rows[0]?.state;

      const e1 = await inquire("Ist die Wohnung noch frei? (1)");
      await until(async () => await stateOf(s1, e1) === "held", 15_000, "s1 suspended after four 500s");
      await until(async () => await stateOf(s2, e1) === "failed", 15_000, "s2: 413");
      const e2 = await inquire("Ist die Wohnung noch frei? (2)");
      await until(async () => await stateOf(s1, e2) === "held", 15_000, "e2 kept");
      await until(async () => await stateOf(s2, e2) === "delivered", 15_000, "e2 at s2");
      await until(
        async () =>
          (await sql<{ n: number }>`select count(*)::int as n from event_subscriptions
          where id = ${s2} and last_delivery_at is not null`.execute(db.kysely)).rows[0]!.n === 1,
        15_000,
        "s2's delivery noted",
      );

      const check = async (page: Page, name: string, width: number) => {
        assert.equal(await page.evaluate<string>("document.compatMode"), "CSS1Compat");
        const overflow = await page.evaluate<number>(
          "document.documentElement.scrollWidth - document.documentElement.clientWidth",
        );
        assert.ok(overflow <= 0, `${name} scrolls sideways at ${width} px`);
        await saveScreenshot(page, new URL(`${width}-${name}.png`, SHOTS));
      };
      const item = (page: Page, sub: string) => page.locator(`li[data-subscription-id="${sub}"]`);

      for (const [i, viewport] of VIEWPORTS.entries()) {
        await t.step(
          `${viewport.width} px: a suspended and an active subscription with their attempts`,
          async () => {
            const page = pages[i]!;
            await page.goto(`${w.origin}/konto/apps`);
            const suspended = item(page, s1);
            assert.equal(
              await suspended.locator(".delivery").getAttribute("data-delivery-state"),
              "suspended",
            );
            const text = await suspended.textContent() ?? "";
            assert.match(text, /Zustellung ausgesetzt/);
            assert.match(text, /Letzter Fehler: Serverfehler 5xx \(http_5xx\)/);
            assert.match(text, /Fehler seit/);
            assert.equal(await suspended.locator("strong.kept").textContent(), "2");
            assert.equal(await suspended.getByRole("button", { name: "Zustellung reaktivieren" }).count(), 1);
            const rows1 = suspended.locator("table.attempts tbody tr");
            assert.equal(await rows1.count(), 4);
            assert.deepEqual(
              await rows1.evaluateAll((rs) => rs.map((r) => r.getAttribute("data-outcome"))),
              ["failed", "retry", "retry", "retry"],
            );
            assert.match(
              await rows1.first().textContent() ?? "",
              /HTTP 500 · Serverfehler 5xx \(http_5xx\) · fehlgeschlagen/,
            );
            assert.equal(await suspended.getByRole("button", { name: /Erneut senden/ }).count(), 0);
            assert.equal(
              await suspended.locator("table.attempts caption").textContent(),
              "Letzte Zustellversuche",
            );

            const active = item(page, s2);
            assert.equal(await active.locator(".delivery").getAttribute("data-delivery-state"), "active");
            assert.match(
              await active.locator("p.delivery-state").textContent() ?? "",
              /Zustellung aktiv · Letzte Zustellung: /,
            );
            const rows2 = active.locator("table.attempts tbody tr");
            assert.deepEqual(
              await rows2.evaluateAll((rs) =>
                rs.map((r) => [r.getAttribute("data-event-id"), r.getAttribute("data-outcome")])
              ),
              [[e2, "delivered"], [e1, "failed"]],
            );
            assert.match(
              await rows2.nth(1).textContent() ?? "",
              /HTTP 413 · Fehlerantwort 4xx \(http_4xx\) · fehlgeschlagen/,
            );
            assert.equal(await active.getByRole("button", { name: `Erneut senden: ${e1}` }).count(), 1);
            assert.equal(
              await active.getByRole("button", { name: /Erneut senden/ }).count(),
              1,
              "only the failed one",
            );
            await check(page, "01-suspended-and-active", viewport.width);
          },
        );
      }

      await t.step(
        "refused: no CSRF token, another person's subscription, a wrong event, suspended",
        async () => {
          const noToken = await providerJar.open("/konto/apps/reaktivieren", {
            method: "POST",
            headers: { "content-type": "application/x-www-form-urlencoded", origin: w.origin },
            body: new URLSearchParams({ subscription_id: s1 }),
          });
          assert.equal(asPage(noToken).status, 403);
          const seekerPage = asPage(await seekerJar.open("/konto/apps"));
          // The seeker's own page has no such form: its CSRF token comes from the sign-out form every page has.
          const csrf = hiddenFields(seekerPage.html, "/abmelden")._csrf!;
          const foreign = asPage(
            await seekerJar.open("/konto/apps/reaktivieren", {
              method: "POST",
              headers: { "content-type": "application/x-www-form-urlencoded", origin: w.origin },
              body: new URLSearchParams({ _csrf: csrf, subscription_id: s1 }),
            }),
          );
          assert.equal(foreign.status, 404);
          assert.match(foreign.html, /gibt es in Ihrem Konto nicht/);
          const providerPage = asPage(await providerJar.open("/konto/apps"));
          for (const event_id of ["evt_xyz", e2, eventIdOf(crypto.randomUUID())]) {
            const wrong = asPage(
              await providerJar.submit(providerPage, "/konto/apps/erneut-senden", {
                subscription_id: s2,
                event_id,
              }),
            );
            assert.equal(wrong.status, 404, event_id);
            assert.match(wrong.html, /kann nicht erneut gesendet werden/);
          }
          const whileSuspended = asPage(
            await providerJar.submit(providerPage, "/konto/apps/erneut-senden", {
              subscription_id: s1,
              event_id: e1,
            }),
          );
          assert.equal(whileSuspended.status, 409);
          assert.match(whileSuspended.html, /ausgesetzt/);
          assert.equal(await stateOf(s1, e1), "held", "nothing changed");
        },
      );

      await t.step("Chromium: 'Erneut senden' sends the failed event again", async () => {
        const page = pages[0]!;
        await page.goto(`${w.origin}/konto/apps`);
        const posts = pickyRx.deliveries.length;
        await submitForm(page, item(page, s2).getByRole("button", { name: `Erneut senden: ${e1}` }));
        assert.match(await page.textContent("p.notice[role=status]") ?? "", /wird erneut gesendet/);
        await until(async () => await stateOf(s2, e1) === "delivered", 15_000, "e1 delivered again");
        const again = pickyRx.deliveries.slice(posts);
        assert.deepEqual(again.map(idOf), [e1]);
        assert.deepEqual(again[0]!.verified, { standardwebhooks: true, svix: true });
      });

      await t.step(
        "Chromium: 'Zustellung reaktivieren' sends the kept events once each, in order",
        async () => {
          downFailing = false;
          const page = pages[1]!;
          await page.goto(`${w.origin}/konto/apps`);
          const posts = down.deliveries.length;
          await submitForm(page, item(page, s1).getByRole("button", { name: "Zustellung reaktivieren" }));
          assert.match(await page.textContent("p.notice[role=status]") ?? "", /wieder aktiv/);
          await until(
            async () => await stateOf(s1, e1) === "delivered" && await stateOf(s1, e2) === "delivered",
            15_000,
            "the kept events delivered",
          );
          const replayed = down.deliveries.slice(posts);
          assert.deepEqual(replayed.map(idOf), [e1, e2]);
          for (const d of replayed) assert.deepEqual(d.verified, { standardwebhooks: true, svix: true });
          await page.goto(`${w.origin}/konto/apps`);
          assert.equal(
            await item(page, s1).locator(".delivery").getAttribute("data-delivery-state"),
            "active",
          );
          await check(page, "02-after-reactivation", 390);
          await pages[0]!.goto(`${w.origin}/konto/apps`);
          await check(pages[0]!, "02-after-reactivation", 1280);
        },
      );
    } finally {
      await browser?.close();
      for (const a of apps) await a.close().catch(() => {});
      await w.close();
    }
  },
});
