/**
 * Mail delivery over SMTP against the fake mail server of tests/smtp_server.ts (Deno.listen on 127.0.0.1):
 * envelope, headers, body, dot-stuffing and AUTH as the server saw them; `sent_at` in the outbox; refusals, an
 * unreachable or silent server and a STARTTLS offer; a refused mail retried after its back-off; and a seeker
 * sign-up through the pages whose verification mail arrives by SMTP.
 */
import assert from "node:assert/strict";
import { type Config, loadConfig } from "../config.ts";
import { mailSentAt } from "../db/mail_delivery.ts";
import type { LogLevel } from "../log.ts";
import { openTestDb, request, testApp } from "../tests/helpers.ts";
import { MAIL_RETRY_DELAYS_MS, sendDueMails, sendMail } from "./mail.ts";
import { describeSmtpError } from "./smtp.ts";
import { closedPort, fakeSmtp, received } from "../tests/smtp_server.ts";

// --- the tests ----------------------------------------------------------------------------------------------

const USER = "mailer@immo.example";
const PASSWORD = "Geh3im:pä@ss/wört%+ z";
const SMTP_FROM = "Immo Service <noreply@immo.example>";
const SUBJECT = "Bestätigung für Jürgen – Größe ÄÖÜ";
const BODY = "Hallo Jürgen,\n.Punkt am Zeilenanfang\n.\n..zwei Punkte\nEnde mit Umlaut: Straße\n";

/** An smtp:// URL of the fake server with the test credentials, percent-encoded. */
const urlFor = (port: number, scheme = "smtp") =>
  `${scheme}://${encodeURIComponent(USER)}:${encodeURIComponent(PASSWORD)}@127.0.0.1:${port}`;

/** A capturing logger. */
function captureLog() {
  const lines: Array<{ level: LogLevel; msg: string; fields?: Record<string, unknown> | undefined }> = [];
  return {
    lines,
    log: {
      log: (level: LogLevel, msg: string, fields?: Record<string, unknown>) =>
        void lines.push({ level, msg, fields }),
    },
  };
}

/** Asserts that no log line carries a credential, the URL or the mail text. */
function assertNoSecrets(logText: string, url: string) {
  for (const secret of [PASSWORD, encodeURIComponent(PASSWORD), url, "Punkt am Zeilenanfang", "pä@ss"]) {
    assert.ok(!logText.includes(secret), `log must not contain ${JSON.stringify(secret)}: ${logText}`);
  }
}

Deno.test("mail delivery over SMTP", async (t) => {
  const tdb = await openTestDb();
  const { db } = tdb;
  const config = (env: Record<string, string>): Config =>
    loadConfig({ DATA_DIR: ":memory:", BASE_URL: "https://immo.example", ...env });
  try {
    await t.step("delivers envelope, headers, body and AUTH PLAIN; sets sent_at", async () => {
      const fake = fakeSmtp();
      const { lines, log } = captureLog();
      const url = urlFor(fake.port);
      try {
        const at = Date.UTC(2026, 0, 2, 3, 4, 5);
        const res = await sendMail(
          { db, log, config: config({ SMTP_URL: url, SMTP_FROM }), clock: () => at },
          { to: "juergen@example.org", subject: SUBJECT, body: BODY },
        );
        assert.equal(res.sent, true);
        assert.deepEqual(await mailSentAt(db, res.id), new Date(at));
        assert.equal(fake.sessions.length, 1);
        const s = fake.sessions[0]!;
        assert.deepEqual(s.ehlo, ["immo.example"]);
        assert.deepEqual(s.auth, [{ method: "PLAIN", user: USER, pass: PASSWORD }]);
        assert.deepEqual(s.mailFrom, ["FROM:<noreply@immo.example>"]);
        assert.deepEqual(s.rcptTo, ["TO:<juergen@example.org>"]);
        const m = received(s);
        assert.equal(m.from, "Immo Service <noreply@immo.example>");
        assert.equal(m.to, "juergen@example.org");
        assert.equal(m.subject, SUBJECT);
        assert.match(m.contentType, /^text\/plain; charset=utf-8$/i);
        assert.equal(m.body.replace(/\n$/, ""), BODY.replace(/\n$/, ""));
        for (const l of m.raw) assert.ok(/^[\x20-\x7e]*$/.test(l), `raw line is 7-bit: ${l}`);
        assert.ok(m.raw.includes("..Punkt am Zeilenanfang"), "a line starting with '.' is dot-stuffed");
        assert.ok(m.raw.includes(".."), "a line that is only '.' is dot-stuffed");
        const logText = JSON.stringify(lines);
        assertNoSecrets(logText, url);
        assert.ok(lines.some((l) => l.level === "info" && l.msg === "mail delivered over SMTP"));
      } finally {
        await fake.close();
      }
    });

    await t.step(
      "AUTH LOGIN when the server offers only LOGIN; default From is noreply@<BASE_URL host>",
      async () => {
        const fake = fakeSmtp({ authMethods: ["LOGIN"] });
        const { log } = captureLog();
        try {
          const res = await sendMail(
            { db, log, config: config({ SMTP_URL: urlFor(fake.port) }) },
            { to: "anna@example.org", subject: "Hallo", body: "Kurz.\n" },
          );
          assert.equal(res.sent, true);
          assert.ok(await mailSentAt(db, res.id) instanceof Date);
          const s = fake.sessions[0]!;
          assert.deepEqual(s.auth, [{ method: "LOGIN", user: USER, pass: PASSWORD }]);
          assert.deepEqual(s.mailFrom, ["FROM:<noreply@immo.example>"]);
          assert.equal(received(s).from, "noreply@immo.example");
          assert.equal(received(s).body.trimEnd(), "Kurz.");
        } finally {
          await fake.close();
        }
      },
    );

    await t.step("a URL without user sends no AUTH; EHLO names an IP host as a literal", async () => {
      const fake = fakeSmtp();
      const { log } = captureLog();
      try {
        const res = await sendMail(
          {
            db,
            log,
            config: config({ SMTP_URL: `smtp://127.0.0.1:${fake.port}`, BASE_URL: "http://127.0.0.1:8000" }),
          },
          { to: "anna@example.org", subject: "Ohne Anmeldung", body: "x\n" },
        );
        assert.equal(res.sent, true);
        assert.deepEqual(fake.sessions[0]!.auth, []);
        assert.deepEqual(fake.sessions[0]!.ehlo, ["[127.0.0.1]"], "an IP host is sent as an address literal");
        assert.equal(fake.sessions[0]!.data.length, 1);
      } finally {
        await fake.close();
      }
    });

    /** Sends through `url` expecting failure: no throw, sent_at null, one warning without secrets. */
    const expectFailure = async (url: string, timeoutMs?: number, to = "niemand@example.org") => {
      const { lines, log } = captureLog();
      const res = await sendMail(
        { db, log, config: config({ SMTP_URL: url }), ...(timeoutMs ? { smtp: { timeoutMs } } : {}) },
        { to, subject: SUBJECT, body: BODY },
      );
      assert.equal(res.sent, false);
      assert.equal(await mailSentAt(db, res.id), null, "the row stays, not sent");
      const warns = lines.filter((l) => l.level === "warn");
      assert.equal(warns.length, 1, JSON.stringify(lines));
      assert.equal(warns[0]!.fields?.mailId, res.id);
      assertNoSecrets(JSON.stringify(lines), url);
      return String(warns[0]!.fields?.error);
    };

    await t.step("550 on RCPT: no throw, row unsent, warning without password", async () => {
      const fake = fakeSmtp({ rcptReply: "550 5.1.1 no such user" });
      try {
        const error = await expectFailure(urlFor(fake.port));
        assert.match(error, /550/);
        assert.equal(fake.sessions[0]!.data.length, 0, "no DATA after the refusal");
      } finally {
        await fake.close();
      }
    });

    await t.step("535 on AUTH: no throw, row unsent, warning without password", async () => {
      const fake = fakeSmtp({ authReply: "535 5.7.8 authentication failed" });
      try {
        const error = await expectFailure(urlFor(fake.port));
        assert.match(error, /535/);
        assert.deepEqual(fake.sessions[0]!.mailFrom, []);
      } finally {
        await fake.close();
      }
    });

    await t.step("nobody listening: no throw, row unsent", async () => {
      const error = await expectFailure(urlFor(closedPort()));
      assert.match(error, /ECONNREFUSED|ECONNECTION|refused/i);
    });

    await t.step("a server that never greets: the send gives up at the timeout", async () => {
      const fake = fakeSmtp({ silent: true });
      try {
        await expectFailure(urlFor(fake.port), 300);
      } finally {
        await fake.close();
      }
    });

    await t.step("STARTTLS offered: the client upgrades and never falls back to plain text", async () => {
      const fake = fakeSmtp({ starttls: true });
      try {
        await expectFailure(urlFor(fake.port), 2000);
        const s = fake.sessions[0]!;
        assert.equal(s.tlsHello, true, "a TLS ClientHello followed the server's go-ahead");
        assert.deepEqual(s.auth, [], "no credentials over the unencrypted connection");
        assert.deepEqual(s.mailFrom, []);
        assert.equal(fake.sessions.length, 1, "no second, unencrypted attempt");
      } finally {
        await fake.close();
      }
    });

    await t.step("smtps:// speaks TLS from the first byte", async () => {
      const raw = Deno.listen({ hostname: "127.0.0.1", port: 0 });
      const port = (raw.addr as Deno.NetAddr).port;
      const first = (async () => {
        const conn = await raw.accept();
        const b = new Uint8Array(1);
        const n = await conn.read(b);
        conn.close();
        return n === 1 ? b[0] : null;
      })();
      try {
        await expectFailure(urlFor(port, "smtps"), 2000);
        assert.equal(await first, 0x16, "the client opened with a TLS ClientHello");
      } finally {
        raw.close();
      }
    });

    await t.step("a recipient that is not one plain address is refused before connecting", async () => {
      const fake = fakeSmtp();
      try {
        const error = await expectFailure(urlFor(fake.port), undefined, "a@example.org, b@example.org");
        assert.equal(error, "invalid recipient address");
        assert.equal(fake.sessions.length, 0);
      } finally {
        await fake.close();
      }
    });

    await t.step("a refused account mail is retried after the back-off, once; recorded once", async () => {
      const fake = fakeSmtp({ rcptReply: "451 4.3.0 try again later" });
      const { log } = captureLog();
      // A year back: the mails earlier steps left waiting (due a minute after the real time) are never due here.
      let now = Date.now() - 365 * 86_400_000;
      const deps = { db, log, config: config({ SMTP_URL: urlFor(fake.port) }), clock: () => now };
      const to = "spaeter@example.org";
      try {
        const res = await sendMail(deps, { to, subject: "Später", body: "Bitte bestätigen.\n" });
        assert.equal(res.sent, false);
        fake.options.rcptReply = undefined;
        assert.equal(await sendDueMails(deps), 0, "not due before the back-off");
        now += MAIL_RETRY_DELAYS_MS[0] - 1;
        assert.equal(await sendDueMails(deps), 0, "not due one ms before the back-off");
        now += 1;
        assert.equal(await sendDueMails(deps), 1);
        assert.ok(await mailSentAt(db, res.id) instanceof Date);
        const delivered = fake.sessions.filter((s) => s.data.length === 1);
        assert.equal(delivered.length, 1);
        assert.equal(received(delivered[0]!).subject, "Später");
        now += MAIL_RETRY_DELAYS_MS[4];
        assert.equal(await sendDueMails(deps), 0, "a sent mail is never due again");
        assert.equal(fake.sessions.filter((s) => s.data.length === 1).length, 1);
      } finally {
        await fake.close();
      }
    });

    await t.step("error descriptions replace every secret", () => {
      const text = describeSmtpError(
        Object.assign(new Error(`Invalid login for ${USER} with ${PASSWORD}`), {
          code: "EAUTH",
          command: "AUTH",
        }),
        [PASSWORD, USER],
      );
      assert.equal(text, "EAUTH: AUTH: Invalid login for *** with ***");
    });

    await t.step("seeker sign-up through the pages delivers the verification mail over SMTP", async () => {
      const fake = fakeSmtp();
      try {
        const w = await testApp(db, { SMTP_URL: urlFor(fake.port) });
        const email = "neu-smtp@example.org";
        const res = await signUp(w.app, email);
        assert.equal(res.status, 200);
        assert.match(await res.text(), /Fast geschafft/);
        const s = fake.sessions.find((x) => x.rcptTo.includes(`TO:<${email}>`));
        assert.ok(s, "the fake server got the mail");
        assert.deepEqual(s.mailFrom, ["FROM:<noreply@localhost>"]);
        assert.deepEqual(s.auth, [{ method: "PLAIN", user: USER, pass: PASSWORD }]);
        const m = received(s);
        assert.equal(m.to, email);
        assert.match(m.subject, /^Bitte bestätigen Sie Ihre E-Mail-Adresse/);
        assert.match(m.body, /http:\/\/localhost:8000\/api\/auth\/verify-email\?token=\S+/);
        const rec = w.logs.find((l) => l.msg === "mail recorded in outbox" && l.fields?.to === email);
        assert.ok(rec, "outbox line logged");
        assert.equal(rec.fields?.body, undefined, "the mail text is not logged when SMTP is configured");
        assert.ok(await mailSentAt(db, String(rec.fields?.mailId)) instanceof Date);
        assertNoSecrets(JSON.stringify(w.logs), urlFor(fake.port));
        w.kv.close();
      } finally {
        await fake.close();
      }
    });

    await t.step(
      "sign-up while the mail server is down still answers the page, the mail waits unsent",
      async () => {
        const url = urlFor(closedPort());
        const w = await testApp(db, { SMTP_URL: url });
        const email = "neu-offline@example.org";
        const res = await signUp(w.app, email);
        assert.equal(res.status, 200);
        assert.match(await res.text(), /Fast geschafft/);
        const rec = w.logs.find((l) => l.msg === "mail recorded in outbox" && l.fields?.to === email);
        assert.ok(rec);
        assert.equal(await mailSentAt(db, String(rec.fields?.mailId)), null);
        assert.ok(w.logs.some((l) => l.level === "warn" && l.fields?.mailId === rec.fields?.mailId));
        assertNoSecrets(JSON.stringify(w.logs), url);
        w.kv.close();
      },
    );
  } finally {
    await tdb.close();
  }
});

/** Signs a seeker up through the /registrieren form (CSRF cookie and token from the form page). */
async function signUp(app: Awaited<ReturnType<typeof testApp>>["app"], email: string): Promise<Response> {
  const page = await request(app, "/registrieren");
  const cookie = (page.headers.get("set-cookie") ?? "").split(";")[0]!;
  const token = /name="_csrf" value="([^"]+)"/.exec(await page.text())?.[1];
  assert.ok(token, "the form carries a CSRF token");
  return await request(app, "/registrieren", {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded", cookie },
    body: new URLSearchParams({ _csrf: token, name: "Neu Smtp", email, password: "neu-geheim-12345" }),
  });
}
