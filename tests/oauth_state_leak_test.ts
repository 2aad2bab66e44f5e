/**
 * Regression: better-auth's per-request state (the pending authorization its sign-in hook resumes) must not leak
 * from one person's consent into a later, unrelated sign-in of another person.
 */
import assert from "node:assert/strict";
import { JarBrowser } from "./browser_jar.ts";
import { authorizeUrl, oauthWorld, PASSWORD, pkce, register } from "./oauth_support.ts";

Deno.test("a consent leaves nothing behind for the next sign-in", async () => {
  const w = await oauthWorld();
  try {
    const landing = async (email: string) => {
      const b = new JarBrowser(w.origin);
      const step = await b.submit(await b.open("/anmelden"), "/anmelden", { email, password: PASSWORD });
      return step.kind === "page" ? new URL(step.url).pathname : `left to ${step.location}`;
    };
    assert.equal(await landing(w.provider.email), "/anbieter");
    const clientId = await register(w.origin);
    const { challenge } = await pkce();
    const b = new JarBrowser(w.origin);
    const start = await b.open(authorizeUrl(w, clientId, { code_challenge: challenge }));
    const consent = await b.submit(start, "/anmelden", { email: w.seeker.email, password: PASSWORD });
    const back = await b.submit(consent, "/zustimmung", { decision: "approve" });
    assert.equal(back.kind, "left", "the consent returns to the app");
    // Plain sign-ins afterwards land on the home page of each person (workspace, account): no consent page, no code for the earlier app.
    assert.equal(await landing(w.provider.email), "/anbieter");
    assert.equal(await landing(w.seeker.email), "/konto");
  } finally {
    await w.close();
  }
});
