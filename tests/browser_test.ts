/**
 * Real-browser tests of the account pages: Chromium (Debian's `/usr/bin/chromium`, installed by `.ci/run`) driven
 * by playwright-core against the app served on a loopback port. Covers sign-up with e-mail verification, sign-in,
 * the OAuth consent page (approve, deny, no right), connected apps, API keys and the English pages. Screenshots
 * of the important pages go to `test-output/screenshots/`. Without Chromium the tests are ignored.
 */
import assert from "node:assert/strict";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { createPerson } from "../auth/accounts.ts";
import { mailsTo } from "../db/mail.ts";
import { openTestDb, type ServedTestApp, serveTestApp, type TestDb } from "./helpers.ts";
import { HAVE_CHROMIUM, launchChromium, saveScreenshot, submitForm as submit } from "./browser_support.ts";

const SHOTS = new URL("../test-output/screenshots/", import.meta.url);
const PASSWORD = "browser-geheim-123";
const SEEKER = { email: "suche-browser@example.org", name: "Suche Browser" };

/** A loopback port nobody listens on (the app's redirect URI; the browser's request to it is intercepted). */
function closedPort(): number {
  const l = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (l.addr as Deno.NetAddr).port;
  l.close();
  return port;
}

function b64url(bytes: Uint8Array): string {
  return btoa(String.fromCharCode(...bytes)).replaceAll("+", "-").replaceAll("/", "_").replace(/=+$/, "");
}

async function pkce(): Promise<{ verifier: string; challenge: string }> {
  const verifier = b64url(crypto.getRandomValues(new Uint8Array(32)));
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(verifier));
  return { verifier, challenge: b64url(new Uint8Array(digest)) };
}

async function shot(page: Page, name: string): Promise<void> {
  await saveScreenshot(page, new URL(`${name}.png`, SHOTS));
}

Deno.test({
  name: "browser: account pages in Chromium",
  ignore: !HAVE_CHROMIUM,
  async fn(t) {
    await Deno.mkdir(SHOTS, { recursive: true });
    let tdb: TestDb | undefined;
    let served: ServedTestApp | undefined;
    let browser: Browser | undefined;
    try {
      tdb = await openTestDb();
      served = await serveTestApp(tdb.db);
      const { origin, app: a } = served;
      const resource = `${origin}/mcp`;
      const db = tdb.db;
      await createPerson(a.auth, db, { ...SEEKER, password: PASSWORD, role: "seeker", emailVerified: true });

      const b = browser = await launchChromium();
      const cbPort = closedPort();
      const redirectUri = `http://127.0.0.1:${cbPort}/cb`;

      /** A fresh browser context (own cookies) in `locale`; requests to the app's redirect URI get a stub page. */
      const newContext = async (locale = "de-DE"): Promise<BrowserContext> => {
        const ctx = await b.newContext({ locale, viewport: { width: 1000, height: 800 } });
        ctx.setDefaultTimeout(15_000);
        await ctx.route(
          `http://127.0.0.1:${cbPort}/**`,
          (route) =>
            route.fulfill({
              status: 200,
              contentType: "text/html",
              body: "<!doctype html><p>App callback</p>",
            }),
        );
        return ctx;
      };

      const registerClient = async (name: string): Promise<string> => {
        const res = await fetch(`${origin}/api/auth/oauth2/register`, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({
            redirect_uris: [redirectUri],
            client_name: name,
            token_endpoint_auth_method: "none",
            grant_types: ["authorization_code", "refresh_token"],
            response_types: ["code"],
          }),
        });
        const body = await res.json();
        assert.equal(res.status, 201, JSON.stringify(body));
        assert.ok(typeof body.client_id === "string");
        return body.client_id;
      };

      const authorizeUrl = (clientId: string, scope: string, state: string, challenge: string) =>
        `${origin}/api/auth/oauth2/authorize?` + new URLSearchParams({
          response_type: "code",
          client_id: clientId,
          redirect_uri: redirectUri,
          scope,
          state,
          code_challenge: challenge,
          code_challenge_method: "S256",
          resource,
        });

      const token = async (params: Record<string, string>) => {
        const res = await fetch(`${origin}/api/auth/oauth2/token`, {
          method: "POST",
          headers: { "content-type": "application/x-www-form-urlencoded" },
          body: new URLSearchParams(params),
        });
        return { status: res.status, body: await res.json() };
      };

      /** Fills and submits the sign-in form of the current page. */
      const signIn = async (page: Page, email: string, password: string) => {
        await page.fill("#email", email);
        await page.fill("#password", password);
        await submit(page, page.locator("form[action='/anmelden'] button[type=submit]"));
      };

      /** Opens the authorize URL, signs in as the seeker and stops on the consent page. */
      const toConsent = async (
        page: Page,
        clientId: string,
        scope: string,
        state: string,
        challenge: string,
      ) => {
        await page.goto(authorizeUrl(clientId, scope, state, challenge));
        assert.equal(new URL(page.url()).pathname, "/anmelden");
        await signIn(page, SEEKER.email, PASSWORD);
        await page.waitForURL((u) => u.pathname === "/zustimmung");
        assert.equal(await page.textContent("h1"), "Zugriff erlauben?");
      };

      /** Clicks `button` on the consent page and returns the redirect URI's query the browser was sent to. */
      const decide = async (page: Page, button: string): Promise<URLSearchParams> => {
        await submit(page, page.locator("button", { hasText: button }));
        await page.waitForURL((u) => u.href.startsWith(redirectUri));
        assert.equal(await page.textContent("p"), "App callback");
        return new URL(page.url()).searchParams;
      };

      await t.step("sign-up, e-mail verification, sign-in", async () => {
        const ctx = await newContext();
        try {
          const page = await ctx.newPage();
          const email = "neu-browser@example.org";
          await page.goto(`${origin}/registrieren`);
          assert.equal(await page.textContent("h1"), "Registrieren");
          await page.fill("#name", "Neu Browser");
          await page.fill("#email", email);
          await page.fill("#password", "neu-geheim-12345");
          await shot(page, "01-sign-up-form");
          await submit(page, page.locator("form[action='/registrieren'] button[type=submit]"));
          await page.waitForSelector("p.notice[role=status]");
          assert.match(await page.textContent("p.notice") ?? "", /Fast geschafft/);
          assert.equal(await page.locator("form[action='/registrieren']").count(), 0);
          await shot(page, "02-sign-up-check-mail");

          const mails = await mailsTo(db, email);
          assert.equal(mails.length, 1);
          const link = /https?:\/\/\S+\/api\/auth\/verify-email\?token=\S+/.exec(mails[0]!.body)?.[0];
          assert.ok(link, mails[0]!.body);
          assert.ok(link.startsWith(origin), link);
          await page.goto(link);
          // better-auth verifies, signs the person in (autoSignInAfterVerification) and redirects to the
          // callbackURL of the sign-up, which takes the signed-in seeker on to the account.
          await page.waitForURL((u) => u.pathname === "/konto");
          const cookies = await ctx.cookies(origin);
          assert.ok(
            cookies.some((c) => c.name.endsWith("session_token")),
            "verification signs the person in",
          );
          await shot(page, "03-verified-account");

          // Signed out, a plain sign-in lands on the account too.
          await ctx.clearCookies();
          await page.goto(`${origin}/anmelden`);
          await signIn(page, email, "neu-geheim-12345");
          await page.waitForURL((u) => u.pathname === "/konto");
          assert.equal(await page.textContent("h1"), "Mein Konto");
          assert.equal(await page.locator("#my-searches").count(), 1, "a seeker's start page");
          await page.click("#account-links a[href='/konto/apps']");
          assert.equal(await page.textContent("h1"), "Verbundene Apps");
          assert.equal(await page.textContent("main p"), "Keine App ist verbunden.");
          await shot(page, "04-connected-apps-empty");
        } finally {
          await ctx.close();
        }
      });

      await t.step("wrong password: error, stays on /anmelden", async () => {
        const ctx = await newContext();
        try {
          const page = await ctx.newPage();
          await page.goto(`${origin}/anmelden`);
          await signIn(page, SEEKER.email, "falsch-falsch-123");
          assert.equal(new URL(page.url()).pathname, "/anmelden");
          assert.equal(
            await page.textContent("p.error[role=alert]"),
            "E-Mail-Adresse oder Passwort ist falsch.",
          );
          assert.equal(await page.inputValue("#email"), SEEKER.email);
          assert.equal(await page.inputValue("#password"), "");
          assert.equal(await page.locator("a[href='/konto/apps']").count(), 0);
          await shot(page, "05-sign-in-wrong-password");
        } finally {
          await ctx.close();
        }
      });

      // Shared by the approve, connected-apps and API-key steps: the seeker stays signed in.
      const main = await newContext();
      const clientId = await registerClient("Browser Test App");
      let refreshToken = "";
      try {
        await t.step("consent: approve, code, token", async () => {
          const page = await main.newPage();
          const { verifier, challenge } = await pkce();
          await toConsent(page, clientId, "suchen offline_access", "state-approve", challenge);
          assert.equal(await page.textContent("main strong"), "Browser Test App");
          assert.equal(await page.textContent("main code"), `127.0.0.1:${cbPort}`);
          assert.match(await page.textContent("p.warning") ?? "", /nicht von uns geprüft/);
          assert.equal(await page.locator("p.error").count(), 0);
          const rights = await page.locator("main ul li").allTextContents();
          assert.deepEqual(rights.map((r) => r.split(":")[0]), ["suchen", "offline_access"]);
          await shot(page, "06-consent");

          const q = await decide(page, "Erlauben");
          assert.equal(q.get("state"), "state-approve");
          assert.equal(q.get("iss"), `${origin}/api/auth`);
          const code = q.get("code");
          assert.ok(code, `no code in ${q}`);
          assert.equal(q.get("error"), null);

          const tok = await token({
            grant_type: "authorization_code",
            code,
            code_verifier: verifier,
            client_id: clientId,
            redirect_uri: redirectUri,
            resource,
          });
          assert.equal(tok.status, 200, JSON.stringify(tok.body));
          assert.equal(tok.body.token_type?.toLowerCase(), "bearer");
          assert.equal(tok.body.access_token.split(".").length, 3);
          const claims = JSON.parse(
            atob(tok.body.access_token.split(".")[1].replaceAll("-", "+").replaceAll("_", "/")),
          );
          assert.equal(claims.aud, resource);
          assert.equal(claims.scope, "suchen offline_access");
          assert.ok(tok.body.refresh_token, "offline_access gives a refresh token");
          // The refresh token works while the app is connected (it rotates: keep the newest).
          const refreshed = await token({
            grant_type: "refresh_token",
            refresh_token: tok.body.refresh_token,
            client_id: clientId,
            resource,
          });
          assert.equal(refreshed.status, 200, JSON.stringify(refreshed.body));
          refreshToken = refreshed.body.refresh_token ?? tok.body.refresh_token;
          await page.close();
        });

        await t.step("consent: deny", async () => {
          const ctx = await newContext();
          try {
            const page = await ctx.newPage();
            // A client of its own: the seeker's consent to the first one is remembered (no consent page again).
            const denyClient = await registerClient("Browser Deny App");
            const { challenge } = await pkce();
            await toConsent(page, denyClient, "suchen offline_access", "state-deny", challenge);
            assert.equal(await page.textContent("main strong"), "Browser Deny App");
            const q = await decide(page, "Ablehnen");
            assert.equal(q.get("error"), "access_denied");
            assert.equal(q.get("state"), "state-deny");
            assert.equal(q.get("code"), null);
          } finally {
            await ctx.close();
          }
        });

        await t.step("consent: a seeker asked only for lesen has no right", async () => {
          const ctx = await newContext();
          try {
            const page = await ctx.newPage();
            const { challenge } = await pkce();
            await toConsent(page, clientId, "lesen", "state-lesen", challenge);
            assert.equal(
              await page.textContent("p.error[role=alert]"),
              "Ihr Konto hat keines der erbetenen Rechte. Die App erhält keinen Zugriff.",
            );
            assert.equal(await page.locator("button[value=approve]").count(), 0);
            assert.equal(await page.locator("button[value=deny]").count(), 1);
            await shot(page, "07-consent-no-right");
            const q = await decide(page, "Ablehnen");
            assert.equal(q.get("error"), "access_denied");
          } finally {
            await ctx.close();
          }
        });

        await t.step("connected apps: list and disconnect", async () => {
          assert.ok(refreshToken, "needs the approve step");
          const page = await main.newPage();
          await page.goto(`${origin}/konto/apps`);
          const row = page.locator(`tr[data-client-id="${clientId}"]`);
          assert.equal(await row.count(), 1);
          const cells = await row.locator("td").allTextContents();
          assert.equal(cells[0], "Browser Test App");
          assert.equal(cells[1], "suchen");
          assert.equal(await page.locator("tbody tr").count(), 1, "deny and no-right created no connection");
          await shot(page, "08-connected-apps");

          await submit(page, row.locator("button", { hasText: "Trennen" }));
          await page.waitForSelector("p.notice[role=status]");
          assert.equal(await page.textContent("p.notice"), "Die App wurde getrennt.");
          assert.equal(await page.locator(`tr[data-client-id="${clientId}"]`).count(), 0);
          assert.equal(await page.textContent("main p:not(.notice)"), "Keine App ist verbunden.");
          await shot(page, "09-connected-apps-disconnected");

          const after = await token({
            grant_type: "refresh_token",
            refresh_token: refreshToken,
            client_id: clientId,
            resource,
          });
          assert.notEqual(after.status, 200, JSON.stringify(after.body));
          assert.equal(after.body.access_token, undefined);
          await page.close();
        });

        await t.step("API keys: create, shown once, revoke", async () => {
          const page = await main.newPage();
          await page.goto(`${origin}/konto/schluessel`);
          assert.equal(await page.textContent("h1"), "API-Schlüssel");
          assert.equal(await page.textContent("main > p"), "Sie haben keine API-Schlüssel.");
          await page.fill("#name", "Mein Skript");
          await submit(page, page.locator("button", { hasText: "Schlüssel erstellen" }));
          await page.waitForSelector("#new-key");
          const key = (await page.textContent("#new-key")) ?? "";
          assert.match(key, /^immo_[A-Za-z0-9]{46}$/);
          await shot(page, "10-api-key-created");

          await page.goto(`${origin}/konto/schluessel`);
          assert.equal(await page.locator("#new-key").count(), 0);
          assert.ok(!(await page.content()).includes(key), "the full key is shown only once");
          const row = page.locator("tbody tr");
          assert.equal(await row.count(), 1);
          const cells = await row.locator("td").allTextContents();
          assert.equal(cells[0], "Mein Skript");
          const prefix = cells[1]!.replace(/…$/, "");
          assert.ok(
            prefix.startsWith("immo_") && key.startsWith(prefix) && prefix.length < key.length,
            cells[1],
          );
          await shot(page, "11-api-keys-list");

          await submit(page, row.locator("button", { hasText: "Widerrufen" }));
          await page.waitForSelector("p.notice[role=status]");
          assert.equal(await page.textContent("p.notice"), "Der Schlüssel wurde widerrufen.");
          const revoked = await page.locator("tbody tr td").allTextContents();
          assert.equal(revoked[0], "Mein Skript");
          assert.equal(revoked[4], "widerrufen");
          assert.equal(await page.locator("tbody button").count(), 0);
          await shot(page, "12-api-key-revoked");
          await page.close();
        });
      } finally {
        await main.close();
      }

      await t.step("English: locale en-US gets the English sign-in page", async () => {
        const ctx = await newContext("en-US");
        try {
          const page = await ctx.newPage();
          await page.goto(`${origin}/anmelden`);
          assert.equal(await page.getAttribute("html", "lang"), "en");
          assert.equal(await page.textContent("h1"), "Sign in");
          assert.equal(await page.textContent("label[for=email]"), "E-mail address");
          assert.equal(await page.textContent("form[action='/anmelden'] button"), "Sign in");
          assert.match(await page.title(), /Property catalogue/);
          await shot(page, "13-sign-in-english");
          await signIn(page, SEEKER.email, "wrong-wrong-123");
          assert.equal(await page.textContent("p.error"), "E-mail address or password is wrong.");
        } finally {
          await ctx.close();
        }
      });
    } finally {
      await browser?.close();
      await served?.close();
      await tdb?.close();
    }
  },
});
