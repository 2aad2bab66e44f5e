import assert from "node:assert/strict";
import { ConfigError, loadConfig } from "./config.ts";

Deno.test("defaults: port 8000, embedded database under ./.data, rate limits on, no proxy trust", () => {
  const c = loadConfig({});
  assert.equal(c.port, 8000);
  assert.equal(c.baseUrl, "http://localhost:8000");
  assert.equal(c.databaseUrl, undefined);
  assert.equal(c.dataDir, "./.data");
  assert.equal(c.kvPath, "./.data/kv.sqlite3");
  assert.equal(c.trustProxy, false);
  assert.equal(c.rateLimit, true);
});

Deno.test("values are parsed and normalised", () => {
  const c = loadConfig({
    PORT: "9000",
    BASE_URL: "https://immo.example/",
    DATABASE_URL: "postgres://u@db/x",
    TRUST_PROXY: "1",
    RATE_LIMIT: "off",
    DATA_DIR: ":memory:",
  });
  assert.equal(c.port, 9000);
  assert.equal(c.baseUrl, "https://immo.example");
  assert.equal(c.databaseUrl, "postgres://u@db/x");
  assert.equal(c.trustProxy, true);
  assert.equal(c.rateLimit, false);
  assert.equal(c.kvPath, ":memory:");
  assert.equal(
    loadConfig({ DENO_DEPLOYMENT_ID: "abc", DATABASE_URL: "postgres://u@db/x" }).kvPath,
    undefined,
    "Deno Deploy uses the platform KV",
  );
});

Deno.test("on Deno Deploy the embedded database is refused: the message names DATABASE_URL", () => {
  assert.throws(
    () => loadConfig({ DENO_DEPLOYMENT_ID: "abc" }),
    (e: unknown) => e instanceof ConfigError && /DATABASE_URL: must be set on Deno Deploy/.test(e.message),
  );
  assert.equal(loadConfig({ DENO_DEPLOYMENT_ID: "abc", DATABASE_URL: "postgres://u@db/x" }).onDeploy, true);
  assert.equal(loadConfig({}).onDeploy, false);
});

Deno.test("invalid values stop the start with a message naming each variable", () => {
  assert.throws(
    () =>
      loadConfig({ PORT: "eighty", DATABASE_URL: "mysql://x", TRUST_PROXY: "maybe", AUTH_SECRET: "short" }),
    (e: unknown) => {
      assert.ok(e instanceof ConfigError);
      for (const v of ["PORT", "DATABASE_URL", "TRUST_PROXY", "AUTH_SECRET"]) {
        assert.match(e.message, new RegExp(v));
      }
      assert.ok(!e.message.includes("short"), "never echoes a secret value");
      return true;
    },
  );
});

Deno.test("mail sender: SMTP_FROM, else noreply@ the host of BASE_URL; SMTP_URL must name a host", () => {
  assert.equal(loadConfig({}).smtpFrom, "noreply@localhost");
  assert.equal(loadConfig({ BASE_URL: "https://immo.example:8443/" }).smtpFrom, "noreply@immo.example");
  assert.equal(
    loadConfig({ SMTP_FROM: "Immo Service <post@immo.example>" }).smtpFrom,
    "Immo Service <post@immo.example>",
  );
  assert.equal(
    loadConfig({ SMTP_URL: "smtps://u:p%40w@mail.example:465" }).smtpUrl,
    "smtps://u:p%40w@mail.example:465",
  );
  for (
    const env of [{ SMTP_FROM: "not an address" }, { SMTP_FROM: "a@b\r\nBcc: c@d" }, { SMTP_URL: "smtp://" }]
  ) {
    assert.throws(() => loadConfig(env), (e: unknown) => e instanceof ConfigError && /SMTP_/.test(e.message));
  }
  assert.throws(
    () => loadConfig({ SMTP_URL: "smtp://user:geheim-pass@" }),
    (e: unknown) => e instanceof ConfigError && /SMTP_URL/.test(e.message) && !e.message.includes("geheim"),
  );
});
