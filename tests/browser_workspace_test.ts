/**
 * Real-browser journeys of the agent's workspace (`/anbieter`) in Chromium at 1280 and 390 px: the agent creates
 * a listing, uploads a brochure and sees what was read, publishes it; a guest inquires on the public page; the
 * agent finds the inquiry, approves the drafted reply and the guest's mail is recorded; the agent creates slots, a
 * seeker books one through MCP, the agent moves it and the seeker's app receives `viewing.changed` at a verifying
 * webhook receiver. Every workspace page fits the width, is in standards mode and is screenshotted to
 * `test-output/workspace-<page>-<width>.png`. Without Chromium the test is ignored.
 */
import assert from "node:assert/strict";
import { Buffer } from "node:buffer";
import type { Browser, Page } from "playwright-core";
import { mailsTo } from "../db/mail.ts";
import { listOutbox } from "../db/outbox.ts";
import { processDocument } from "../documents/processing.ts";
import { HAVE_CHROMIUM, launchChromium, saveScreenshot } from "./browser_support.ts";
import {
  connectApp,
  type EventsWorld,
  eventsWorld,
  newSecret,
  subscribeParams,
  until,
} from "./events_support.ts";
import { PASSWORD } from "./oauth_support.ts";
import { brochurePdf } from "./pdf_fixtures.ts";

const OUT = new URL("../test-output/", import.meta.url);
const WIDTHS = [1280, 390] as const;

/** Fails unless the page fits `width` without horizontal scrolling and is in standards mode. */
async function fits(page: Page, width: number, what: string): Promise<void> {
  const m = await page.evaluate(
    "({ scroll: document.documentElement.scrollWidth, mode: document.compatMode })",
  ) as { scroll: number; mode: string };
  assert.ok(m.scroll <= width, `${what}: scrollWidth ${m.scroll} > ${width}`);
  assert.equal(m.mode, "CSS1Compat", `${what}: standards mode`);
}

async function shot(page: Page, name: string, width: number): Promise<void> {
  await fits(page, width, name);
  await saveScreenshot(page, new URL(`workspace-${name}-${width}.png`, OUT));
}

/** Clicks and waits for the next page; fails when the POST was refused by its CSRF check. */
async function submit(page: Page, selector: string): Promise<void> {
  await Promise.all([page.waitForLoadState(), page.locator(selector).first().click()]);
  await page.waitForLoadState();
  assert.equal(
    await page.locator("p.error", { hasText: /Formular ist abgelaufen|form has expired/ }).count(),
    0,
  );
}

/** Tomorrow + `days` in Berlin as YYYY-MM-DD. */
function day(days: number): string {
  return new Date(Date.now() + days * 86_400_000).toISOString().slice(0, 10);
}

Deno.test({
  name: "browser: the agent's workspace journeys in Chromium at 1280 and 390 px",
  ignore: !HAVE_CHROMIUM,
  sanitizeOps: false,
  sanitizeResources: false,
  async fn(t) {
    await Deno.mkdir(OUT, { recursive: true });
    let w: EventsWorld | undefined;
    let browser: Browser | undefined;
    try {
      w = await eventsWorld();
      const world = w;
      const db = world.tdb.db;
      browser = await launchChromium();
      const seekerApp = await connectApp(world, world.seeker.email, "v2-modern");
      const secret = newSecret();
      world.secrets[0]!.push(secret);
      const url = `${world.receivers[0]!.url}/workspace`;
      const sub = await seekerApp.call("events/subscribe", subscribeParams("viewing.changed", url, secret));
      try {
        for (const width of WIDTHS) {
          const ctx = await browser.newContext({ locale: "de-DE", viewport: { width, height: 900 } });
          ctx.setDefaultTimeout(15_000);
          const page = await ctx.newPage();
          const guest =
            await (await browser.newContext({ locale: "de-DE", viewport: { width, height: 900 } }))
              .newPage();
          let listingId = "";
          const title = `Helle Wohnung ${width}`;
          const guestEmail = `gast.${width}@example.org`;

          await t.step(`${width}: sign in and open the workspace`, async () => {
            await page.goto(`${world.origin}/anmelden`);
            await page.fill("#email", world.provider.email);
            await page.fill("#password", PASSWORD);
            await submit(page, "form[action='/anmelden'] button[type=submit]");
            await page.goto(`${world.origin}/anbieter`);
            assert.equal(await page.textContent("h1"), "Arbeitsbereich");
            await shot(page, "overview", width);
          });

          await t.step(`${width}: create a listing`, async () => {
            await page.click("nav.ws a[href='/anbieter/objekte']");
            await page.click("a[href='/anbieter/objekte/neu']");
            await page.fill("#title", title);
            await page.fill("#city", "München");
            await page.fill("#postal_code", "80801");
            await page.selectOption("#property_type", "apartment");
            await page.selectOption("#transaction_type", "buy");
            await page.fill("#asked_price", "365.000");
            await page.fill("#contact_name", "Karla Kontakt");
            await shot(page, "listing-new", width);
            await submit(page, "form[action='/anbieter/objekte/neu'] button[type=submit]");
            listingId = new URL(page.url()).pathname.split("/").pop()!;
            assert.equal(await page.getAttribute("strong[data-status]", "data-status"), "draft");
            assert.equal(await page.inputValue("#asked_price"), "365.000");
          });

          await t.step(`${width}: upload a brochure and see what was read`, async () => {
            await page.setInputFiles("#datei", {
              name: "expose.pdf",
              mimeType: "application/pdf",
              buffer: Buffer.from(await brochurePdf()),
            });
            await page.selectOption("#sorte", "brochure");
            await submit(page, "form[action$='/dokumente'] button[type=submit]");
            const fileId = await page.getAttribute("[data-file-id]", "data-file-id");
            assert.ok(fileId);
            // The job queue reads the file in the background; make sure it has run before looking.
            await until(
              async () => {
                await processDocument(world.t.deps, fileId!).catch(() => {});
                const rows = await db.kysely.selectFrom("files" as never).select("status" as never)
                  .where("id" as never, "=", fileId as never).execute() as Array<{ status: string }>;
                return rows[0]?.status === "processed";
              },
              20_000,
              "brochure read",
            );
            await page.reload();
            assert.equal(await page.textContent("dd[data-angabe='zimmer']"), "3,5");
            await shot(page, "listing-edit", width);
          });

          await t.step(`${width}: publish it`, async () => {
            await submit(page, "button[name=aktion][value=publish]");
            assert.equal(await page.getAttribute("strong[data-status]", "data-status"), "published");
          });

          await t.step(`${width}: a guest inquires on the public page`, async () => {
            await guest.goto(`${world.origin}/objekte/${listingId}`);
            await guest.fill("#name", "Gerda Gast");
            await guest.fill("#email", guestEmail);
            await guest.fill("#message", "Ist die Wohnung noch frei?");
            await submit(guest, "button:has-text('Anfrage senden')");
          });

          await t.step(
            `${width}: the agent approves the drafted reply, the guest's mail is recorded`,
            async () => {
              await page.goto(`${world.origin}/anbieter/anfragen`);
              await shot(page, "inquiries", width);
              await page.click(`tr:has-text('${title}') a`);
              assert.match(
                await page.textContent("dl.facts") ?? "",
                new RegExp(guestEmail.replace(".", "\\.")),
              );
              assert.equal(await page.locator("[data-kind=reply]").count(), 1);
              await shot(page, "inquiry", width);
              await submit(page, "[data-kind=reply] form[action$='/freigeben'] button");
              assert.equal(await page.getAttribute("span[data-status]", "data-status"), "answered");
              assert.equal(await page.locator(".msg.provider").count(), 1);
              const mails = await mailsTo(db, guestEmail);
              const all = await db.kysely.selectFrom("mail_outbox").select(["to_address", "subject"])
                .execute();
              assert.ok(
                mails.length >= 1,
                `the guest's reply mail is recorded in mail_outbox: ${JSON.stringify(all)}`,
              );
            },
          );

          await t.step(`${width}: the proposals page`, async () => {
            await page.goto(`${world.origin}/anbieter/vorschlaege`);
            assert.ok(await page.locator("[data-kind=property_change]").count() >= 1);
            await shot(page, "proposals", width);
          });

          await t.step(
            `${width}: slots, an MCP booking, a move and the seeker's viewing.changed`,
            async () => {
              await page.goto(`${world.origin}/anbieter/termine?objekt=${listingId}`);
              await page.fill("#date", day(3));
              await page.fill("#start", "10:00");
              await page.fill("#minutes", "30");
              await page.fill("#count", "3");
              await page.fill("#places", "1");
              await submit(page, "form[action='/anbieter/termine/neu'] button[type=submit]");
              assert.equal(await page.locator("tr[data-slot-id]").count(), 3);
              const slotId = (await page.getAttribute("tr[data-slot-id]", "data-slot-id"))!;
              const sent = await seekerApp.callTool("send_inquiry", {
                listing_id: listingId,
                message: "Ich möchte besichtigen.",
              });
              assert.ok(!sent.isError, JSON.stringify(sent));
              const booked = await seekerApp.callTool("book_viewing", {
                inquiry_id: sent.structuredContent.inquiry_id,
                slot_id: slotId,
              });
              assert.ok(!booked.isError, JSON.stringify(booked));
              await page.reload();
              assert.equal(await page.locator(`tr[data-slot-id='${slotId}'] [data-booking-id]`).count(), 1);
              await shot(page, "viewings", width);
              const row = page.locator(`tr[data-slot-id='${slotId}']`);
              await row.locator("summary", { hasText: "Verlegen" }).click();
              await row.locator("input[name=start]").fill("16:00");
              await row.locator("input[name=end]").fill("16:45");
              await submit(page, `form[action='/anbieter/termine/${slotId}/verlegen'] button`);
              const changed = (await listOutbox(db, { limit: 10, name: "viewing.changed" }))
                .find((r) => r.data.inquiry_id === sent.structuredContent.inquiry_id);
              assert.ok(changed, "viewing.changed written");
              assert.equal(changed.originClientId, null);
              await until(
                () =>
                  world.receivers[0]!.deliveries.some((d) =>
                    d.headers["x-mcp-subscription-id"] === sub.id &&
                    d.raw.includes(sent.structuredContent.inquiry_id) &&
                    d.verified.standardwebhooks
                  ),
                20_000,
                "viewing.changed delivered",
              );
            },
          );
          await ctx.close();
          await guest.context().close();
        }
      } finally {
        await seekerApp.close();
      }
    } finally {
      await browser?.close();
      await w?.close();
    }
  },
});
