/**
 * Documents end to end (issue 7 item 2): real MCP clients connected over OAuth upload PDFs made in the test with
 * `upload_file`; the process's queue listener reads them; the results appear in `get_property` and `list_files`
 * field by field; `file.processed` (success and failure) reaches a real HTTPS receiver that verifies it with
 * `standardwebhooks` AND `svix`, but never the app that uploaded the file; another office sees and uploads
 * nothing; oversize and malformed uploads are refused with nothing written.
 */
import assert from "node:assert/strict";
import { createPerson } from "../auth/accounts.ts";
import { createApiKey } from "../auth/api_keys.ts";
import { startMembership } from "../db/accounts.ts";
import { ensureOffice } from "../db/offices.ts";
import { listOutbox } from "../db/outbox.ts";
import { FILE_MAX_BYTES } from "../documents/files.ts";
import { EVENT_DATA } from "../events/catalogue.ts";
import {
  connectApp,
  type ConnectedApp,
  eventsWorld,
  newSecret,
  subscribeParams,
  until,
} from "./events_support.ts";
import { connectClient } from "./mcp_helpers.ts";
import { PASSWORD } from "./oauth_support.ts";
import {
  BROCHURE_VALUES,
  brochurePdf,
  emptyFile,
  encryptedPdf,
  ENERGY_CERTIFICATE_VALUES,
  energyCertificatePdf,
  imageOnlyPdf,
  notPdf,
  textPdf,
  toBase64,
} from "./pdf_fixtures.ts";

/** The error code of an `isError` tool result. */
// deno-lint-ignore no-explicit-any
const errorCode = (res: any): string => {
  assert.equal(res.isError, true, JSON.stringify(res.content));
  return JSON.parse(res.content[0].text).error;
};

/** Calls a tool that must succeed; returns its structured content. */
// deno-lint-ignore no-explicit-any
async function tool(app: ConnectedApp, name: string, args: Record<string, unknown>): Promise<any> {
  const res = await app.callTool(name, args);
  assert.notEqual(res.isError, true, `${name}: ${JSON.stringify(res.content)}`);
  return res.structuredContent;
}

Deno.test("documents: upload, reading, get_property, events end to end, isolation, limits", async (t) => {
  const w = await eventsWorld();
  const db = w.tdb.db;
  const rx = w.receivers[0]!;
  const apps: ConnectedApp[] = [];
  const connect = async (email: string, era: "v2-modern" | "v2-legacy") => {
    const app = await connectApp(w, email, era, { scope: "lesen offline_access" });
    apps.push(app);
    return app;
  };
  try {
    // Two apps of the same provider: the uploader and a watcher; both subscribe to file.processed.
    const uploader = await connect(w.provider.email, "v2-modern");
    const watcher = await connect(w.provider.email, "v2-legacy");
    const subscribe = async (app: ConnectedApp, path: string) => {
      const secret = newSecret();
      w.secrets[0]!.push(secret);
      const r = await app.call(
        "events/subscribe",
        subscribeParams("file.processed", `${rx.url}/${path}`, secret, { objekt_id: w.listingId }),
      );
      return r.id as string;
    };
    const watcherSub = await subscribe(watcher, "watcher");
    const uploaderSub = await subscribe(uploader, "uploader");

    const cases = [
      { name: "energieausweis.pdf", sorte: "energy_certificate", bytes: await energyCertificatePdf() },
      { name: "expose.pdf", sorte: "brochure", bytes: await brochurePdf() },
      { name: "scan.pdf", sorte: "other", bytes: await imageOnlyPdf(), fehler: "no_text" },
      { name: "geheim.pdf", sorte: "energy_certificate", bytes: encryptedPdf(), fehler: "encrypted" },
      { name: "notiz.txt", sorte: "other", bytes: notPdf(), fehler: "not_pdf" },
      { name: "leer.pdf", sorte: "brochure", bytes: emptyFile(), fehler: "empty" },
    ] as const;
    const expected: Record<string, Record<string, unknown>> = {
      "energieausweis.pdf": ENERGY_CERTIFICATE_VALUES,
      "expose.pdf": BROCHURE_VALUES,
    };
    const ids = new Map<string, string>();

    await t.step("upload_file stores each file pending and answers it", async () => {
      for (const c of cases) {
        const r = await tool(uploader, "upload_file", {
          objekt_id: w.listingId,
          name: c.name,
          sorte: c.sorte,
          inhalt: toBase64(c.bytes),
        });
        assert.equal(r.neu, true);
        assert.equal(r.objekt_id, w.listingId);
        assert.equal(r.name, c.name);
        assert.equal(r.sorte, c.sorte);
        assert.equal(r.groesse_bytes, c.bytes.length);
        assert.match(r.sha256, /^[0-9a-f]{64}$/);
        ids.set(c.name, r.datei_id);
      }
    });

    await t.step("the queued job reads them; get_property shows each result field by field", async () => {
      await until(
        async () => {
          const page = await tool(watcher, "list_files", { objekt_id: w.listingId, status: "pending" });
          return page.total === 0;
        },
        20_000,
        "files read",
      );
      const listing = await tool(watcher, "get_property", { id: w.listingId });
      const files = listing.dateien as Array<Record<string, unknown>>;
      assert.equal(files.length, cases.length);
      for (const c of cases) {
        const f = files.find((x) => x.datei_id === ids.get(c.name))!;
        assert.ok(f, c.name);
        assert.equal(f.name, c.name);
        assert.equal(f.sorte, c.sorte);
        assert.equal(typeof f.hochgeladen_am, "string");
        assert.equal(typeof f.verarbeitet_am, "string");
        if ("fehler" in c) {
          assert.equal(f.status, "failed", c.name);
          assert.equal(f.fehler, c.fehler, c.name);
          assert.deepEqual(f.angaben, {});
        } else {
          assert.equal(f.status, "processed", c.name);
          assert.equal(f.fehler, null);
          assert.equal(f.erkannte_sorte, c.sorte);
          const angaben = f.angaben as Record<string, unknown>;
          for (const [k, v] of Object.entries(expected[c.name]!)) {
            assert.equal(angaben[k], v, `${c.name}: ${k}`);
          }
          assert.deepEqual(Object.keys(angaben).sort(), Object.keys(expected[c.name]!).sort());
        }
      }
      const all = await tool(watcher, "list_files", {});
      assert.equal(all.total, cases.length);
      const failed = await tool(watcher, "list_files", { status: "failed", page_size: 2 });
      assert.equal(failed.total, 4);
      assert.equal(failed.items.length, 2);
    });

    await t.step("file.processed reaches the watcher verified, never the uploading app", async () => {
      await rx.waitFor(cases.length, 20_000);
      const toWatcher = rx.deliveries.filter((d) => d.headers["x-mcp-subscription-id"] === watcherSub);
      assert.equal(toWatcher.length, cases.length);
      for (const c of cases) {
        const got = toWatcher.filter((d) =>
          (d.json as { data: { datei_id: string } }).data.datei_id === ids.get(c.name)
        );
        assert.equal(got.length, 1, c.name);
        const d = got[0]!;
        assert.deepEqual(d.verified, { standardwebhooks: true, svix: true });
        const body = d.json as { name: string; data: Record<string, unknown> };
        assert.equal(body.name, "file.processed");
        EVENT_DATA["file.processed"].parse(body.data);
        assert.deepEqual(Object.keys(body.data).sort(), [
          "angaben",
          "datei_id",
          "objekt_id",
          "satz",
          "sorte",
        ]);
        assert.equal(body.data.objekt_id, w.listingId);
        assert.equal(body.data.sorte, c.sorte);
        assert.deepEqual(body.data.angaben, "fehler" in c ? { fehler: c.fehler } : expected[c.name]);
        assert.equal(typeof body.data.satz, "string");
      }
      // Every delivery of these events is finished: none was made (or will be) to the uploader's subscription.
      const rows = await listOutbox(db, { limit: 100, name: "file.processed" });
      assert.equal(rows.length, cases.length);
      await until(
        async () => {
          const ds = await db.kysely.selectFrom("event_deliveries").select(["subscription_id", "state"])
            .where("outbox_id", "in", rows.map((r) => r.id)).execute();
          const pendingOutbox = await db.kysely.selectFrom("event_outbox").select("id")
            .where("id", "in", rows.map((r) => r.id)).where("dispatched_at", "is", null).execute();
          return pendingOutbox.length === 0 && ds.every((x) => x.state === "delivered") &&
            ds.every((x) => x.subscription_id === watcherSub);
        },
        15_000,
        "deliveries finished",
      );
      assert.equal(rx.deliveries.filter((d) => d.headers["x-mcp-subscription-id"] === uploaderSub).length, 0);
    });

    await t.step("the same file again on the same listing is answered, not stored twice", async () => {
      const before = (await listOutbox(db, { limit: 100, name: "file.processed" })).length;
      const r = await tool(watcher, "upload_file", {
        objekt_id: w.listingId,
        name: "noch-einmal.pdf",
        sorte: "other",
        inhalt: toBase64(await energyCertificatePdf()),
      });
      assert.equal(r.neu, false);
      assert.equal(r.datei_id, ids.get("energieausweis.pdf"));
      assert.equal(r.name, "energieausweis.pdf");
      assert.equal(r.status, "processed");
      assert.equal((await tool(watcher, "list_files", {})).total, cases.length);
      assert.equal((await listOutbox(db, { limit: 100, name: "file.processed" })).length, before);
    });

    await t.step(
      "an SDK 1.x client with an API key uploads and reads (output schemas validated)",
      async () => {
        const key = await createApiKey(db, w.provider.userId, "Dokumente v1");
        const v1 = await connectClient("v1", w.resource, key.key);
        try {
          const bytes = await textPdf([["Exposé", "Zimmer: 2", "Wohnfläche: 48,2 m²", "Kaltmiete: 780 €"]]);
          const r = (await v1.callTool("upload_file", {
            objekt_id: w.listingId,
            name: "v1.pdf",
            sorte: "brochure",
            inhalt: toBase64(bytes),
          })).structuredContent;
          assert.equal(r.neu, true);
          await until(
            async () => {
              const page = (await v1.callTool("list_files", { status: "pending" })).structuredContent;
              return page.total === 0;
            },
            20_000,
            "v1 file read",
          );
          const listing = (await v1.callTool("get_property", { id: w.listingId })).structuredContent;
          const f = listing.dateien.find((x: { datei_id: string }) => x.datei_id === r.datei_id);
          assert.deepEqual(f.angaben, { zimmer: 2, wohnflaeche_m2: 48.2, preis_eur: 780 });
          assert.equal(f.hinweis, null);
          // Its event went to the watcher (another origin than the uploading key).
          await until(() =>
            rx.deliveries.some((d) => (d.json as { data: { datei_id: string } }).data.datei_id === r.datei_id)
          );
        } finally {
          await v1.close();
        }
      },
    );

    await t.step("another office cannot see or upload to the listing", async () => {
      const otherOffice = await ensureOffice(db, "Anderes Büro");
      const email = "andere-anbieterin@example.org";
      const userId = await createPerson(w.t.auth, db, {
        email,
        name: "Andere",
        password: PASSWORD,
        role: "provider",
      });
      await startMembership(db, userId, otherOffice);
      const other = await connect(email, "v2-modern");
      const upload = await other.callTool("upload_file", {
        objekt_id: w.listingId,
        name: "fremd.pdf",
        sorte: "brochure",
        inhalt: toBase64(await brochurePdf()),
      });
      assert.equal(errorCode(upload), "not_found");
      assert.equal(errorCode(await other.callTool("list_files", { objekt_id: w.listingId })), "not_found");
      assert.equal(errorCode(await other.callTool("get_property", { id: w.listingId })), "not_found");
      assert.equal((await tool(other, "list_files", {})).total, 0);
      assert.equal((await tool(watcher, "list_files", {})).total, cases.length + 1);
    });

    await t.step("oversize or malformed Base64 is refused and nothing is written", async () => {
      const count = async () => (await tool(watcher, "list_files", {})).total;
      const outbox = async () => (await listOutbox(db, { limit: 1000 })).length;
      const [files, events] = [await count(), await outbox()];
      const base = { objekt_id: w.listingId, name: "x.pdf", sorte: "other" };
      const bad = await uploader.callTool("upload_file", { ...base, inhalt: "%%%kein-base64%%%" });
      assert.equal(errorCode(bad), "invalid_request");
      assert.match(bad.content[1].text, /inhalt/);
      const tooBig = await uploader.callTool("upload_file", {
        ...base,
        inhalt: toBase64(new Uint8Array(FILE_MAX_BYTES + 1)),
      });
      assert.equal(errorCode(tooBig), "payload_too_large");
      // Over the 512 KB request limit the HTTP layer answers 413 before any tool runs.
      await assert.rejects(
        uploader.callTool("upload_file", { ...base, inhalt: toBase64(new Uint8Array(400 * 1024)) }),
      );
      assert.equal(
        errorCode(await uploader.callTool("upload_file", { ...base, objekt_id: "kaputt", inhalt: "QUJD" })),
        "not_found",
      );
      assert.equal(await count(), files);
      assert.equal(await outbox(), events);
    });
  } finally {
    for (const app of apps) await app.close().catch(() => {});
    await w.close();
  }
});
