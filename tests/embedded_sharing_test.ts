/**
 * Operator tasks and the running service share one database, as real child processes: every write task run while
 * `main.ts` serves is visible through the service at once and survives a restart; two tasks at once both land.
 * On the embedded database (PGlite) also: the folder's lock (a task waits for another task, the service waits
 * briefly for a task and then refuses with exit 3 and the holder's name, a second service is refused at once), a
 * task started while the service is still starting, and a SIGKILLed holder that blocks nobody.
 */
import assert from "node:assert/strict";
import { sql } from "kysely";
import { openDb } from "../db/connection.ts";
import { hubSignature } from "../social/signature.ts";
import { JarBrowser } from "./browser_jar.ts";
import { TEST_AUTH_SECRET } from "./helpers.ts";
import { ROOT, runTask, type ServiceDb, serviceDb, startService, withDb } from "./service_process.ts";

const SOCIAL_ENV = {
  SOCIAL_APP_SECRET: "test-app-secret-0123456789abcdef",
  SOCIAL_VERIFY_TOKEN: "test-verify-token-0123456789",
};
const POTSDAM = { lat: 52.39986, lng: 13.05097, property_type: "apartment", art: "kauf" };

function env(sdb: ServiceDb): Record<string, string> {
  return { ...sdb.env, AUTH_SECRET: TEST_AUTH_SECRET, ...SOCIAL_ENV };
}

/** Runs `tasks/<file>` and asserts exit code 0; returns stdout. */
async function task(sdb: ServiceDb, file: string, ...args: string[]): Promise<string> {
  const r = await runTask(file, args, env(sdb));
  assert.equal(r.code, 0, `${file} ${args.join(" ")} exited ${r.code}:\n${r.stderr}`);
  return r.stdout;
}

async function total(url: string): Promise<number> {
  const res = await fetch(`${url}/api/public/properties?page_size=1`);
  return (await res.json()).total;
}

async function baselineSource(url: string): Promise<string> {
  const res = await fetch(`${url}/api/public/valuation/location-baseline`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(POTSDAM),
  });
  return (await res.json()).source;
}

/** Signs in at the service's page; true when the service accepted the password. */
async function signsIn(url: string, email: string, password: string): Promise<boolean> {
  const b = new JarBrowser(url);
  const step = await b.submit(await b.open("/anmelden"), "/anmelden", { email, password });
  return step.kind === "page" && step.status === 200 && !step.url.endsWith("/anmelden");
}

async function socialPost(url: string, page: string, commentId: string): Promise<Record<string, number>> {
  const body = JSON.stringify({
    object: "page",
    entry: [{
      id: page,
      time: 1,
      changes: [{
        field: "feed",
        value: { item: "comment", verb: "add", comment_id: commentId, message: "Ist die Wohnung noch frei?" },
      }],
    }],
  });
  const sig = await hubSignature(SOCIAL_ENV.SOCIAL_APP_SECRET, new TextEncoder().encode(body));
  const res = await fetch(`${url}/api/inbound/social`, {
    method: "POST",
    headers: { "content-type": "application/json", "x-hub-signature-256": `sha256=${sig}` },
    body,
  });
  assert.equal(res.status, 200);
  return await res.json();
}

Deno.test("every write task run while the service serves is visible at once and survives a restart", async (t) => {
  const sdb = await serviceDb();
  let service = await startService(env(sdb));
  try {
    const url = service.url;
    let password = "";
    await t.step(
      "office:create and provider:add: the new provider signs in at the running service",
      async () => {
        assert.match(
          await task(sdb, "accounts.ts", "office:create", "--name", "Büro Live"),
          /office created/,
        );
        const out = await task(
          sdb,
          "accounts.ts",
          "provider:add",
          "--office",
          "Büro Live",
          "--email",
          "live@example.org",
        );
        password = /initial password \(shown once\): (\S+)/.exec(out)![1]!;
        assert.ok(await signsIn(url, "live@example.org", password));
        assert.ok(!await signsIn(url, "live@example.org", `${password}x`), "a wrong password is refused");
      },
    );
    await t.step("db:seed --count: the listings are in the running service's catalogue", async () => {
      const before = await total(url);
      await task(sdb, "seed.ts", "--count", "7");
      assert.equal(await total(url), before + 7);
    });
    await t.step("openimmo:import --publish: the imported listings are public at once", async () => {
      const before = await total(url);
      const out = await task(
        sdb,
        "openimmo_import.ts",
        "tests/fixtures/openimmo/bestand_utf8.xml",
        "--office",
        "Büro Live",
        "--publish",
      );
      const created = Number(/created:?\s*(\d+)/i.exec(out)?.[1] ?? NaN);
      assert.ok(created > 0, out);
      assert.ok(await total(url) > before);
    });
    await t.step("brw:import: the running service answers with the imported land value", async () => {
      assert.notEqual(await baselineSource(url), "bodenrichtwert");
      await task(sdb, "brw_import.ts", "valuation/fixtures/bb_potsdam_2024_epsg25833.csv", "--state", "BB");
      assert.equal(await baselineSource(url), "bodenrichtwert");
    });
    await t.step("social:connect: the running service stores the connected page's comments", async () => {
      assert.equal((await socialPost(url, "4000004", "c-1")).unconnected, 1);
      await task(sdb, "social.ts", "--office", "Büro Live", "--netz", "facebook", "--page", "4000004");
      assert.equal((await socialPost(url, "4000004", "c-2")).stored, 1);
    });
    await t.step("two tasks at once both land", async () => {
      const before = await total(url);
      const [a, b] = await Promise.all([
        runTask("seed.ts", ["--count", "40"], env(sdb)),
        runTask("accounts.ts", ["office:create", "--name", "Büro Parallel"], env(sdb)),
      ]);
      assert.deepEqual([a.code, b.code], [0, 0], a.stderr + b.stderr);
      assert.match(await task(sdb, "accounts.ts", "office:list"), /Büro Parallel/);
      // The test process opens the database too (through the service on PGlite): it sees what the service shows.
      const published = await withDb(
        sdb,
        async (db) =>
          (await sql<{ n: number }>`select count(*)::int as n from listings where status = 'published'`
            .execute(db.kysely)).rows[0]!.n,
      );
      assert.ok(published > before);
      assert.equal(await total(url), published);
    });
    await t.step("provider:remove: the account stays and signs in, as a seeker", async () => {
      assert.match(await task(sdb, "accounts.ts", "provider:remove", "--email", "live@example.org"), /ended/);
      assert.ok(await signsIn(url, "live@example.org", password));
    });
    await t.step("reading tasks and db:migrate work beside the service", async () => {
      assert.match(await task(sdb, "migrate.ts"), /up to date/);
      await task(sdb, "events.ts", "--limit", "5");
      await task(sdb, "accounts.ts", "auth:clients");
      await task(sdb, "events_log.ts", "--event", `evt_${"0".repeat(32)}`);
    });
    await t.step("after a restart everything is still there", async () => {
      const shown = await total(url);
      await service.stop();
      await withDb(sdb, async (db) => {
        const q = (text: string) => sql.raw<{ n: number }>(text).execute(db.kysely).then((r) => r.rows[0]!.n);
        assert.equal(
          await q("select count(*)::int as n from offices where name in ('Büro Live', 'Büro Parallel')"),
          2,
        );
        assert.equal(
          await q(
            "select count(*)::int as n from users where email = 'live@example.org' and role = 'seeker'",
          ),
          1,
        );
        assert.equal(await q("select count(*)::int as n from social_pages where page_id = '4000004'"), 1);
        assert.ok(await q("select count(*)::int as n from brw_zones") > 0);
      });
      service = await startService(env(sdb));
      assert.equal(await total(service.url), shown);
    });
  } finally {
    await service.stop();
    await sdb.cleanup();
  }
});

Deno.test({
  name: "the embedded folder's lock: waits, refusals with the holder's name, a task while the service starts",
  ignore: !!Deno.env.get("DATABASE_URL"),
  async fn(t) {
    const sdb = await serviceDb();
    const folder = `${sdb.env.DATA_DIR}/pglite`;
    try {
      await t.step("a task waits for a task that holds the folder, says so, and then lands", async () => {
        const holder = await openDb({
          dataDir: folder,
          opener: { role: "task", name: "deno task test-holder" },
        });
        const waiting = runTask("accounts.ts", ["office:create", "--name", "Büro Wartend"], env(sdb));
        await new Promise((r) => setTimeout(r, 1_500));
        await holder.close();
        const r = await waiting;
        assert.equal(r.code, 0, r.stderr);
        assert.match(r.stderr, /waiting for `deno task test-holder` \(pid \d+/);
      });
      await t.step(
        "the service waits up to 15 s for a task, then refuses with exit 3 naming it",
        async () => {
          const holder = await openDb({
            dataDir: folder,
            opener: { role: "task", name: "deno task brw:import" },
          });
          try {
            const started = Date.now();
            const r = await runMain(sdb);
            assert.equal(r.code, 3, r.stderr);
            assert.match(r.stderr, /in use by `deno task brw:import` \(pid \d+, since/);
            assert.ok(Date.now() - started >= 14_000, "it waited");
          } finally {
            await holder.close();
          }
        },
      );
      await t.step("a task started while the service starts waits for it and works through it", async () => {
        const service = startService(env(sdb));
        await new Promise((r) => setTimeout(r, 50));
        const r = await runTask("accounts.ts", ["office:create", "--name", "Büro Frühstart"], env(sdb));
        const s = await service;
        try {
          assert.equal(r.code, 0, r.stderr);
          assert.match(await task(sdb, "accounts.ts", "office:list"), /Büro Frühstart/);
          const second = await runMain(sdb);
          assert.equal(second.code, 3);
          assert.match(second.stderr, /already served by `deno task start`/);
        } finally {
          await s.stop();
        }
      });
      await t.step("a SIGKILLed service blocks nobody, and what it committed is there", async () => {
        const s = await startService(env(sdb));
        await task(sdb, "accounts.ts", "office:create", "--name", "Büro Vor Dem Absturz");
        await s.kill();
        assert.match(await task(sdb, "accounts.ts", "office:list"), /Büro Vor Dem Absturz/);
      });
    } finally {
      await sdb.cleanup();
    }
  },
});

/** Runs `main.ts` to its end (it is expected to refuse) with the service environment. */
async function runMain(sdb: ServiceDb): Promise<{ code: number; stderr: string }> {
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", "main.ts"],
    cwd: ROOT,
    env: { ...env(sdb), PORT: "0", SEED_SAMPLE_DATA: "off" },
    stdin: "null",
    stdout: "null",
    stderr: "piped",
  }).output();
  return { code: out.code, stderr: new TextDecoder().decode(out.stderr) };
}
