/**
 * Real-browser journeys of issue 31 item 6 in the agent's workspace, in Chromium at 1280 and 390 px: the header
 * fits in one row; numbers come back in German in the listing form and are accepted in German; a status button
 * next to Save keeps the unsaved edits; withdrawing, rejecting and cancelling a slot ask first (`<details>`, no
 * JavaScript needed); values read from a brochure carry German labels; the OpenImmo upload asks for XML or ZIP;
 * the inquiry list shows the inquirer's name, the first line and where it came from in words (Website, the app's
 * name); a reply by hand closes the assistant's open draft; slot errors say why; slot rows are compact. Screenshots:
 * `test-output/agent-<page>-<width>.png`. Without Chromium the test is ignored.
 */
import assert from "node:assert/strict";
import { Buffer } from "node:buffer";
import { sql } from "kysely";
import type { Browser, Page } from "playwright-core";
import { processDocument } from "../documents/processing.ts";
import { HAVE_CHROMIUM, launchChromium, saveScreenshot } from "./browser_support.ts";
import { connectApp } from "./events_support.ts";
import { type OAuthWorld, oauthWorld, PASSWORD, register } from "./oauth_support.ts";
import { brochurePdf } from "./pdf_fixtures.ts";

const OUT = new URL("../test-output/", import.meta.url);
const WIDTHS = [1280, 390] as const;

/** Fails unless the page fits `width`, its header is one row that does not overflow, and it is in standards mode. */
async function fits(page: Page, width: number, what: string): Promise<void> {
  const m = await page.evaluate(`(() => {
    const h = document.querySelector("header.site");
    const items = [...h.querySelectorAll(":scope > *")].map((e) => e.getBoundingClientRect());
    // What a person reads or clicks in the header, left to right: none may overlap the next.
    const parts = [...h.querySelectorAll(".brand, nav.main a, details.menu > summary, :scope > a")]
      .map((e) => e.getBoundingClientRect()).sort((a, b) => a.left - b.left);
    const overlap = Math.max(0, ...parts.slice(1).map((r, i) => parts[i].right - r.left));
    return {
      scroll: document.documentElement.scrollWidth,
      mode: document.compatMode,
      headerOverflow: h.scrollWidth - h.clientWidth,
      // One row: every item overlaps every other vertically.
      oneRow: Math.max(...items.map((r) => r.top)) < Math.min(...items.map((r) => r.bottom)),
      right: Math.max(...items.map((r) => r.right)),
      overlap,
    };
  })()`) as {
    scroll: number;
    mode: string;
    headerOverflow: number;
    oneRow: boolean;
    right: number;
    overlap: number;
  };
  assert.ok(m.scroll <= width, `${what}: scrollWidth ${m.scroll} > ${width}`);
  assert.equal(m.mode, "CSS1Compat", `${what}: standards mode`);
  assert.ok(m.headerOverflow <= 0, `${what}: the header overflows by ${m.headerOverflow} px`);
  assert.ok(m.oneRow, `${what}: the header is one row`);
  assert.ok(m.right <= width, `${what}: a header item ends at ${m.right} px`);
  assert.ok(m.overlap <= 0, `${what}: header items overlap by ${m.overlap} px`);
}

async function shot(page: Page, name: string, width: number): Promise<void> {
  await fits(page, width, name);
  await saveScreenshot(page, new URL(`agent-${name}-${width}.png`, OUT));
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

/** Today + `days` as YYYY-MM-DD (UTC; a day's margin keeps it on the same side of "now" in Berlin). */
function day(days: number): string {
  return new Date(Date.now() + days * 86_400_000).toISOString().slice(0, 10);
}

Deno.test({
  name: "browser: the agent's workspace of issue 31 at 1280 and 390 px",
  ignore: !HAVE_CHROMIUM,
  sanitizeOps: false,
  sanitizeResources: false,
  async fn(t) {
    await Deno.mkdir(OUT, { recursive: true });
    let w: OAuthWorld | undefined;
    let browser: Browser | undefined;
    try {
      w = await oauthWorld();
      const world = w;
      const db = world.tdb.db;
      browser = await launchChromium();
      const app = await connectApp(world, world.seeker.email, "v2-modern", {
        clientId: await register(world.origin, { client_name: "WohnApp" }),
      });
      /** The statuses of the proposals of an inquiry. */
      const draftStatuses = async (inquiryId: string) =>
        (await sql<{ status: string }>`select status from proposals where inquiry_id = ${inquiryId}`
          .execute(db.kysely)).rows.map((r) => r.status);
      try {
        for (const width of WIDTHS) {
          const ctx = await browser.newContext({ locale: "de-DE", viewport: { width, height: 900 } });
          ctx.setDefaultTimeout(15_000);
          const page = await ctx.newPage();
          const guestCtx = await browser.newContext({ locale: "de-DE", viewport: { width, height: 900 } });
          const guest = await guestCtx.newPage();
          let listingId = "";
          const title = `Altbau ${width}`;

          await t.step(`${width}: the header fits in one row`, async () => {
            await page.goto(`${world.origin}/anmelden`);
            await page.fill("#email", world.provider.email);
            await page.fill("#password", PASSWORD);
            await submit(page, "form[action='/anmelden'] button[type=submit]");
            await page.goto(`${world.origin}/anbieter`);
            assert.equal(await page.locator("header.site a[href='/anbieter']").isVisible(), true);
            await shot(page, "overview", width);
            await page.goto(`${world.origin}/objekte`);
            await fits(page, width, "search page, signed in");
          });

          await t.step(`${width}: German numbers in and out; a status button keeps the edits`, async () => {
            await page.goto(`${world.origin}/anbieter/objekte/neu`);
            await page.fill("#title", `${title} (Entwurf)`);
            await page.fill("#city", "Leipzig");
            await page.fill("#postal_code", "04109");
            await page.selectOption("#property_type", "apartment");
            await page.selectOption("#transaction_type", "rent");
            await page.fill("#asked_price", "1.050");
            await page.fill("#total_rooms", "3,5");
            await page.fill("#square_meters", "82,5");
            await submit(page, "form[action='/anbieter/objekte/neu'] button[type=submit]");
            listingId = new URL(page.url()).pathname.split("/").pop()!;
            assert.deepEqual(
              [
                await page.inputValue("#asked_price"),
                await page.inputValue("#total_rooms"),
                await page.inputValue("#square_meters"),
              ],
              ["1.050", "3,5", "82,5"],
            );
            // An edit that is not saved yet goes out with "save and publish".
            await page.fill("#title", title);
            await shot(page, "listing-edit", width);
            await submit(page, "button[name=aktion][value=publish]");
            assert.equal(await page.getAttribute("strong[data-status]", "data-status"), "published");
            assert.equal(await page.inputValue("#title"), title);
            assert.equal(await page.inputValue("#asked_price"), "1.050");
          });

          await t.step(`${width}: values read from a brochure under German labels`, async () => {
            await page.setInputFiles("#datei", {
              name: "expose.pdf",
              mimeType: "application/pdf",
              buffer: Buffer.from(await brochurePdf()),
            });
            await page.selectOption("#sorte", "brochure");
            await submit(page, "form[action$='/dokumente'] button[type=submit]");
            const fileId = (await page.getAttribute("[data-file-id]", "data-file-id"))!;
            await processDocument(world.t.deps, fileId);
            await page.reload();
            const labels = await page.locator("dl[aria-label] dt").allTextContents();
            assert.deepEqual(labels.sort(), ["Preis", "Wohnfläche", "Zimmer"]);
            assert.equal(await page.textContent("dd[data-angabe='zimmer']"), "3,5");
            assert.equal(await page.textContent("dd[data-angabe='wohnflaeche_m2']"), "84,5 m²");
            assert.equal(await page.textContent("dd[data-angabe='preis_eur']"), "350.000\u00a0€");
            await page.locator("#h-docs").scrollIntoViewIfNeeded();
            await shot(page, "listing-documents", width);
          });

          await t.step(`${width}: the OpenImmo upload asks for XML or ZIP`, async () => {
            await page.goto(`${world.origin}/anbieter/objekte/import`);
            assert.equal(await page.textContent("label[for=datei]"), "OpenImmo-Datei (XML oder ZIP)");
            assert.equal(await page.getAttribute("#datei", "accept"), ".xml,.zip");
            await shot(page, "import", width);
          });

          let guestInquiry = "";
          let appInquiry = "";
          await t.step(
            `${width}: the inquiry list names who wrote, the first line and where from`,
            async () => {
              await guest.goto(`${world.origin}/objekte/${listingId}`);
              await guest.fill("#name", `Gerda Gast ${width}`);
              await guest.fill("#email", `gerda.${width}@example.org`);
              await guest.fill(
                "#message",
                "Ist die Wohnung noch frei?\nWir sind zu zweit und haben keine Haustiere.",
              );
              await submit(guest, "button:has-text('Anfrage senden')");
              const sent = await app.callTool("send_inquiry", {
                listing_id: listingId,
                message: "Guten Tag, ich hätte gern einen Besichtigungstermin.",
              });
              assert.ok(!sent.isError, JSON.stringify(sent));
              appInquiry = sent.structuredContent.inquiry_id;
              await page.goto(`${world.origin}/anbieter/anfragen?objekt=${listingId}`);
              const gerda = page.locator("tr[data-inquiry-id]", { hasText: `Gerda Gast ${width}` });
              guestInquiry = (await gerda.getAttribute("data-inquiry-id"))!;
              assert.equal(
                await gerda.locator("[data-first-line]").textContent(),
                "Ist die Wohnung noch frei?",
              );
              assert.equal(await gerda.locator("[data-channel]").textContent(), "Website");
              const viaApp = page.locator(`tr[data-inquiry-id='${appInquiry}']`);
              assert.equal(await viaApp.locator("[data-channel]").textContent(), "App „WohnApp“");
              assert.equal(
                await viaApp.locator("[data-first-line]").textContent(),
                "Guten Tag, ich hätte gern einen Besichtigungstermin.",
              );
              assert.doesNotMatch(await page.textContent("main") ?? "", /Quelle|Dienst/);
              await shot(page, "inquiries", width);
              await page.goto(`${world.origin}/anbieter`);
              assert.equal(await page.locator("section tr[data-inquiry-id] [data-name]").count(), 2);
              await shot(page, "overview-busy", width);
            },
          );

          await t.step(`${width}: a reply by hand closes the assistant's open draft`, async () => {
            await page.goto(`${world.origin}/anbieter/anfragen/${guestInquiry}`);
            assert.equal(await page.locator("[data-kind=reply]").count(), 1);
            assert.equal(await page.locator("[data-drafts-close]").isVisible(), true);
            await shot(page, "inquiry-draft", width);
            await page.fill("#message", "Guten Tag, ja – wann möchten Sie vorbeikommen?");
            await submit(page, `form[action$='/${guestInquiry}/antwort'] button`);
            assert.equal(await page.getAttribute("span[data-status]", "data-status"), "answered");
            assert.equal(await page.locator(".msg.provider").count(), 1);
            assert.equal(await page.locator("[data-kind=reply]").count(), 0, "no draft left to send");
            assert.equal(await page.locator("[data-drafts-close]").count(), 0);
            assert.deepEqual(await draftStatuses(guestInquiry), ["verworfen"]);
            await page.goto(`${world.origin}/anbieter/vorschlaege`);
            assert.equal(await page.locator(`a[href='/anbieter/anfragen/${guestInquiry}']`).count(), 0);
          });

          await t.step(`${width}: rejecting asks first`, async () => {
            await page.goto(`${world.origin}/anbieter/anfragen/${appInquiry}`);
            const yes = page.locator("button", { hasText: "Ja, Anfrage ablehnen" });
            assert.equal(await yes.isVisible(), false, "the rejection is folded away");
            await page.click("details.confirm > summary:has-text('Ablehnen')");
            assert.equal(await yes.isVisible(), true);
            await shot(page, "inquiry-reject-confirm", width);
            await submit(page, "button:has-text('Ja, Anfrage ablehnen')");
            assert.equal(await page.getAttribute("span[data-status]", "data-status"), "rejected");
          });

          await t.step(`${width}: slot errors say why; compact rows; cancelling asks first`, async () => {
            await page.goto(`${world.origin}/anbieter/termine?objekt=${listingId}`);
            await page.fill("#date", day(-2));
            await page.fill("#start", "10:00");
            await submit(page, "form[action='/anbieter/termine/neu'] button[type=submit]");
            assert.match(
              await page.textContent("[role=alert] li[data-reason=not_in_future]") ?? "",
              /Der Beginn liegt in der Vergangenheit/,
            );
            await shot(page, "viewings-error", width);
            await page.fill("#date", day(3));
            await page.fill("#start", "10:00");
            await page.fill("#count", "3");
            await submit(page, "form[action='/anbieter/termine/neu'] button[type=submit]");
            const rows = page.locator("tr[data-slot-id]");
            assert.equal(await rows.count(), 3);
            const heights = await rows.evaluateAll((trs) =>
              trs.map((tr) => tr.getBoundingClientRect().height)
            );
            const limit = width === 1280 ? 60 : 220;
            assert.ok(heights.every((h) => h < limit), `compact rows: ${heights} (< ${limit} px)`);
            await shot(page, "viewings", width);

            const slotId = (await rows.first().getAttribute("data-slot-id"))!;
            const move = async (start: string, end: string) => {
              const row = page.locator(`tr[data-slot-id='${slotId}']`);
              await row.locator("summary", { hasText: "Verlegen" }).click();
              await row.locator("input[name=start]").fill(start);
              await row.locator("input[name=end]").fill(end);
              await submit(page, `form[action='/anbieter/termine/${slotId}/verlegen'] button`);
            };
            await move("16:00", "15:00");
            assert.match(
              await page.textContent("[role=alert] li[data-reason=before_start]") ?? "",
              /Das Ende liegt vor dem Beginn/,
            );
            await move("06:00", "21:00");
            assert.match(
              await page.textContent("[role=alert] li[data-reason=too_far_apart]") ?? "",
              /höchstens 12 Stunden/,
            );

            const row = page.locator(`tr[data-slot-id='${slotId}']`);
            const yes = row.locator("button", { hasText: "Ja, Termin absagen" });
            assert.equal(await yes.isVisible(), false, "cancelling is folded away");
            await row.locator("summary", { hasText: "Absagen" }).click();
            assert.equal(await yes.isVisible(), true);
            await shot(page, "viewings-cancel-confirm", width);
            await submit(page, `form[action='/anbieter/termine/${slotId}/absagen'] button`);
            assert.equal(await page.getAttribute(`tr[data-slot-id='${slotId}']`, "data-status"), "cancelled");
          });

          await t.step(`${width}: going back to the built-in template asks first`, async () => {
            await page.goto(`${world.origin}/anbieter/vorschlaege`);
            const form = "form:has(#template-reply)";
            await page.fill("#template-reply", "Guten Tag {name}, danke für Ihre Anfrage. {buero}");
            await submit(page, `${form} button[value=speichern]`);
            const yes = page.locator(`${form} button[value=zuruecksetzen]`);
            assert.equal(await yes.isVisible(), false, "the reset is folded away");
            await page.click(`${form} details.confirm > summary`);
            assert.equal(await yes.isVisible(), true);
            await shot(page, "proposals-reset-confirm", width);
            await submit(page, `${form} button[value=zuruecksetzen]`);
            assert.match(await page.textContent("label[for=template-reply]") ?? "", /eingebaute Vorlage/);
          });

          await t.step(`${width}: withdrawing asks first and keeps the edits`, async () => {
            await page.goto(`${world.origin}/anbieter/objekte/${listingId}`);
            await page.fill("#city", "Leipzig-Gohlis");
            const yes = page.locator("button[name=aktion][value=withdraw]");
            assert.equal(await yes.isVisible(), false, "withdrawing is folded away");
            await page.click("details.confirm > summary:has-text('Zurückziehen')");
            assert.equal(await yes.isVisible(), true);
            await shot(page, "listing-withdraw-confirm", width);
            await submit(page, "button[name=aktion][value=withdraw]");
            assert.equal(await page.getAttribute("strong[data-status]", "data-status"), "withdrawn");
            assert.equal(await page.inputValue("#city"), "Leipzig-Gohlis");
          });
          await ctx.close();
          await guestCtx.close();
        }
      } finally {
        await app.close();
      }
    } finally {
      await browser?.close();
      await w?.close();
    }
  },
});
