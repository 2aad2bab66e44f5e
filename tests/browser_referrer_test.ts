/**
 * The pages' referrer policy, `same-origin` (docs/contract.md §5.7), in a real browser: Chromium sends the pages'
 * own URLs to no other origin (an outgoing link, a form that leaves the site, the redirect to an app after the
 * consent page), while a form sent to the service itself carries its real `Origin` header, which the CSRF check
 * and better-auth read (under `no-referrer` Chromium sends `Origin: null` with every POST, Fetch §3.2.5). The
 * JSON API keeps hono's `no-referrer`. Without Chromium the browser test is ignored.
 */
import assert from "node:assert/strict";
import type { Browser } from "playwright-core";
import { HAVE_CHROMIUM, launchChromium } from "./browser_support.ts";
import { openTestDb, request, serveTestApp, testApp } from "./helpers.ts";

/** Script that appends a link `#id` to `href` to the page (run by the browser; the pages themselves have none). */
function addLink(id: string, href: string): string {
  return `{ const a = document.createElement("a"); a.id = ${JSON.stringify(id)}; ` +
    `a.href = ${JSON.stringify(href)}; a.textContent = "Link"; document.body.append(a); }`;
}

Deno.test("HTML pages answer Referrer-Policy: same-origin, the JSON API no-referrer", async () => {
  const tdb = await openTestDb();
  const a = await testApp(tdb.db);
  try {
    const html = { accept: "text/html" };
    for (const path of ["/", "/anmelden", "/objekte", "/nirgends", "/api/auth/error?error=invalid_client"]) {
      const res = await request(a.app, path, { headers: html });
      assert.match(res.headers.get("content-type") ?? "", /^text\/html/, path);
      assert.equal(res.headers.get("referrer-policy"), "same-origin", path);
      await res.body?.cancel();
    }
    for (const path of ["/api/public/properties", "/healthz", "/nirgends"]) {
      const res = await request(a.app, path);
      assert.match(res.headers.get("content-type") ?? "", /json/, path);
      assert.equal(res.headers.get("referrer-policy"), "no-referrer", path);
      await res.body?.cancel();
    }
  } finally {
    await a.close();
    await tdb.close();
  }
});

Deno.test({
  name: "browser: same-origin forms carry their Origin, other origins get no Referer",
  ignore: !HAVE_CHROMIUM,
  async fn() {
    const tdb = await openTestDb();
    const seen: Array<{ method: string; path: string; origin: string | null; referer: string | null }> = [];
    const served = await serveTestApp(tdb.db, {}, (handler) => (req, info) => {
      const path = new URL(req.url).pathname;
      seen.push({
        method: req.method,
        path,
        origin: req.headers.get("origin"),
        referer: req.headers.get("referer"),
      });
      return handler(req, info);
    });
    const elsewhere: Array<string | null> = [];
    const other = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, (req) => {
      // Only the navigation counts: Chromium's own favicon request names the other origin's page, not ours.
      if (new URL(req.url).pathname === "/ziel") elsewhere.push(req.headers.get("referer"));
      return new Response("<!DOCTYPE html><title>anderswo</title>", {
        headers: { "content-type": "text/html" },
      });
    });
    const otherOrigin = `http://127.0.0.1:${other.addr.port}`;
    let browser: Browser | undefined;
    try {
      browser = await launchChromium();
      const page = await (await browser.newContext({ locale: "de-DE" })).newPage();
      page.setDefaultTimeout(15_000);

      // A form sent to the service: the sign-in page with a wrong password.
      await page.goto(`${served.origin}/anmelden?weiter=1`);
      await page.fill("#email", "niemand@example.org");
      await page.fill("#password", "falsches-passwort-1");
      await page.locator("form[action='/anmelden'] button[type=submit]").click();
      await page.waitForLoadState();
      const post = seen.find((r) => r.method === "POST" && r.path === "/anmelden");
      assert.ok(post, "the sign-in form was sent");
      assert.equal(post.origin, served.origin, "a same-origin POST names its origin");

      // A link within the site carries the page's URL; a link to another origin carries nothing.
      await page.goto(`${served.origin}/anmelden?weiter=2`);
      await page.evaluate(addLink("innen", `${served.origin}/objekte`));
      await page.click("#innen");
      await page.waitForURL((u) => u.pathname === "/objekte");
      const inner = seen.findLast((r) => r.method === "GET" && r.path === "/objekte");
      assert.equal(inner?.referer, `${served.origin}/anmelden?weiter=2`);
      await page.evaluate(addLink("aussen", `${otherOrigin}/ziel`));
      await page.click("#aussen");
      await page.waitForURL((u) => u.origin === otherOrigin);
      assert.deepEqual(elsewhere, [null], "another origin learns nothing of the page it came from");
    } finally {
      await browser?.close();
      await other.shutdown();
      await served.close();
      await tdb.close();
    }
  },
});
