/**
 * The saved-search pages' refusals over HTTP with a cookie jar (tests/browser_jar.ts), on PGlite or the
 * DATABASE_URL server: not signed in → sign-in with the way back; no filter, a bad name, a 21st search, a missing
 * CSRF token, a bad alert value, another seeker's search and a provider each get a clear page with nothing
 * written; the English words.
 */
import assert from "node:assert/strict";
import { createPerson } from "../auth/accounts.ts";
import { insertUser, startMembership } from "../db/accounts.ts";
import { ensureOffice } from "../db/offices.ts";
import { act } from "../deps.ts";
import { createSavedSearch, SAVED_SEARCH_MAX } from "../searches/saved_searches.ts";
import { JarBrowser, type Step } from "./browser_jar.ts";
import { openTestDb, seekerWho, serveTestApp } from "./helpers.ts";

const PASSWORD = "seiten-suche-geheim-123";

function page(s: Step): Extract<Step, { kind: "page" }> {
  if (s.kind !== "page") throw new Error(`left for ${s.location}`);
  return s;
}

Deno.test("saved-search pages: every refusal is a clear page and writes nothing", async (t) => {
  const tdb = await openTestDb();
  const db = tdb.db;
  const served = await serveTestApp(db);
  const { origin, app } = served;
  const seeker = (email: string) =>
    createPerson(app.auth, db, { email, name: "S", password: PASSWORD, role: "seeker", emailVerified: true });
  const signedIn = async (email: string, lang?: string) => {
    const b = new JarBrowser(origin, lang);
    await b.submit(await b.open("/anmelden"), "/anmelden", { email, password: PASSWORD });
    return b;
  };
  const count = async () =>
    Number(
      (await db.kysely.selectFrom("saved_searches").select(db.kysely.fn.countAll<number>().as("n"))
        .executeTakeFirstOrThrow()).n,
    );
  try {
    const annaId = await seeker("anna-seiten@example.org");
    await seeker("bert-seiten@example.org");
    const anna = await signedIn("anna-seiten@example.org");

    await t.step("not signed in: to sign-in with the way back, filters kept", async () => {
      const res = await new JarBrowser(origin).send("/konto/suchen/neu?city=Bonn&min_rooms=2.5");
      assert.equal(res.status, 303);
      assert.equal(
        res.headers.get("location"),
        "/anmelden?weiter=%2Fkonto%2Fsuchen%2Fneu%3Fcity%3DBonn%26min_rooms%3D2.5",
      );
      await res.body?.cancel();
      const form = page(await new JarBrowser(origin).open(res.headers.get("location")!));
      assert.match(
        form.html,
        /<input type="hidden" name="weiter" value="\/konto\/suchen\/neu\?city=Bonn&amp;min_rooms=2\.5"/,
      );
    });

    await t.step(
      "no filter, a bad name, bad filters, a missing CSRF token: 400/403, nothing saved",
      async () => {
        const form = page(await anna.open("/konto/suchen/neu?city=Bonn"));
        assert.equal(form.status, 200);
        const noFilter = page(await anna.submit(form, "/konto/suchen/neu", { city: "" }));
        assert.equal(noFilter.status, 400);
        assert.match(noFilter.html, /mindestens einen Filter/);
        const badName = page(await anna.submit(form, "/konto/suchen/neu", { name: "a\u0007b" }));
        assert.equal(badName.status, 400);
        assert.match(badName.html, /id="name"[^>]*aria-invalid="true"/);
        const badFilter = page(await anna.submit(form, "/konto/suchen/neu", { min_price: "-1" }));
        assert.equal(badFilter.status, 400);
        assert.match(badFilter.html, /Filter sind ungültig/);
        assert.equal(page(await anna.open("/konto/suchen/neu?min_price=abc")).status, 400);
        const noCsrf = page(await anna.submit(form, "/konto/suchen/neu", { _csrf: "" }));
        assert.equal(noCsrf.status, 403);
        assert.equal(await count(), 0);
      },
    );

    await t.step(`a ${SAVED_SEARCH_MAX + 1}st search answers 409 and is not saved`, async () => {
      for (let i = 0; i < SAVED_SEARCH_MAX; i++) {
        await act(
          app.deps,
          seekerWho(annaId),
          (a) => createSavedSearch(a, { filters: { min_rooms: i + 1 } }),
        );
      }
      const form = page(await anna.open("/konto/suchen/neu?city=Bonn"));
      const full = page(await anna.submit(form, "/konto/suchen/neu", { name: "Zu viel" }));
      assert.equal(full.status, 409);
      assert.match(full.html, /schon 20 gespeicherte Suchen/);
      assert.match(full.html, /value="Zu viel"/, "the name is kept");
      assert.equal(await count(), SAVED_SEARCH_MAX);
    });

    const list = page(await anna.open("/konto/suchen"));
    const id = /data-saved-search-id="([0-9a-f-]{36})"/.exec(list.html)![1]!;

    await t.step("a bad alert value: 400; another seeker's search: 404; nothing changes", async () => {
      const bad = page(await anna.submit(list, `/konto/suchen/${id}/mail`, { alert: "weekly" }));
      assert.equal(bad.status, 400);
      const bert = await signedIn("bert-seiten@example.org");
      const bertList = page(await bert.open("/konto/suchen"));
      assert.match(bertList.html, /noch keine Suche gespeichert/);
      assert.equal(page(await bert.open(`/konto/suchen/${id}/loeschen`)).status, 404);
      const csrf = /name="_csrf" value="([^"]+)"/.exec(bertList.html)![1]!;
      for (const path of [`/konto/suchen/${id}/loeschen`, `/konto/suchen/${id}/mail`]) {
        const res = page(
          await bert.open(path, {
            method: "POST",
            headers: { "content-type": "application/x-www-form-urlencoded", origin },
            body: new URLSearchParams({ _csrf: csrf, alert: "instant" }),
          }),
        );
        assert.equal(res.status, 404, path);
      }
      const row = await db.kysely.selectFrom("saved_searches").select("alert").where("id", "=", id)
        .executeTakeFirstOrThrow();
      assert.equal(row.alert, "off");
      assert.equal(await count(), SAVED_SEARCH_MAX);
    });

    await t.step("a provider gets a page saying saved searches are for seekers", async () => {
      const officeId = await ensureOffice(db, "Seitenbüro");
      const providerId = await insertUser(db, {
        email: "makler-seiten@example.org",
        name: "M",
        role: "provider",
      });
      await startMembership(db, providerId, officeId);
      await createPerson(app.auth, db, {
        email: "makler2-seiten@example.org",
        name: "M2",
        password: PASSWORD,
        role: "provider",
        emailVerified: true,
      });
      const provider = await signedIn("makler2-seiten@example.org");
      const res = page(await provider.open("/konto/suchen/neu?city=Bonn"));
      assert.equal(res.status, 403);
      assert.match(res.html, /nur Suchende/);
    });

    await t.step("English words", async () => {
      const en = await signedIn("anna-seiten@example.org", "en-GB,en;q=0.9");
      const p = page(await en.open("/konto/suchen"));
      assert.match(p.html, /<h1>My saved searches<\/h1>/);
      assert.match(p.html, /rooms from 1/);
      const start = page(await en.open("/konto"));
      assert.match(start.html, /<h1>My account<\/h1>/);
    });
  } finally {
    await served.close();
    await tdb.close();
  }
});
