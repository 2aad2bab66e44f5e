/**
 * The document job on a real database without a running job engine (uploads are not read until the test says so):
 * every fixture's result and event, the job runs once (repeated and concurrent calls), due files are claimed with a
 * lease (a dead reader's file is read once its lease ran out), and a failed upload writes nothing.
 */
import assert from "node:assert/strict";
import { prng, sampleListing } from "../catalogue/sample.ts";
import { insertListings } from "../db/listings.ts";
import { ensureOffice } from "../db/offices.ts";
import { listOutbox } from "../db/outbox.ts";
import { AppError } from "../errors.ts";
import { EVENT_DATA } from "../events/catalogue.ts";
import { officeWho, openTestDb, testApp } from "../tests/helpers.ts";
import {
  BROCHURE_VALUES,
  brochurePdf,
  brokenPdf,
  emptyFile,
  encryptedPdf,
  ENERGY_CERTIFICATE_VALUES,
  energyCertificatePdf,
  imageOnlyPdf,
  notPdf,
  textPdf,
  toBase64,
} from "../tests/pdf_fixtures.ts";
import { FILE_MAX_BYTES, listFiles, listingFiles, uploadFile, type UploadInput } from "./files.ts";
import { act } from "../deps.ts";
import type { EventOrigin } from "../db/outbox.ts";
import { processDocument, processDueDocuments } from "./processing.ts";
import { claimDueFiles } from "../db/files.ts";

Deno.test("document job: results, failures, once only, leases", async (t) => {
  const tdb = await openTestDb();
  const w = await testApp(tdb.db);
  const db = tdb.db;
  try {
    const officeId = await ensureOffice(db, "Büro Dokumente");
    const otherOffice = await ensureOffice(db, "Anderes Büro");
    const [listingId] = await insertListings(db, officeId, [
      { ...sampleListing(1, prng(5), Date.now()), title: "Wohnung am Park", status: "draft", beispiel: true },
    ]);
    const origin = { apiKeyId: crypto.randomUUID() };
    /** An upload by a provider of `office` through `from` (the app that uploads; none: the workspace). */
    const uploadAs = (office: string, input: UploadInput & { origin: EventOrigin }) =>
      act(w.deps, officeWho(office, undefined, input.origin), (a) => uploadFile(a, input));
    const upload = (bytes: Uint8Array, sorte: "brochure" | "energy_certificate" | "other", name = "a.pdf") =>
      uploadAs(officeId, { objektId: listingId!, name, sorte, inhalt: toBase64(bytes), origin });
    const events = () => listOutbox(db, { limit: 1000, name: "file.processed" });
    const eventsOf = async (fileId: string) => (await events()).filter((e) => e.data.datei_id === fileId);
    const fileCount = async () => (await listFiles(w.deps, officeId, { page: 1, page_size: 60 })).total;

    await t.step("every kind of file: stored pending, then read once with one event", async () => {
      const cases = [
        {
          bytes: await energyCertificatePdf(),
          sorte: "energy_certificate",
          angaben: ENERGY_CERTIFICATE_VALUES,
        },
        { bytes: await brochurePdf(), sorte: "brochure", angaben: BROCHURE_VALUES },
        { bytes: await imageOnlyPdf(), sorte: "other", fehler: "no_text" },
        { bytes: encryptedPdf(), sorte: "energy_certificate", fehler: "encrypted" },
        { bytes: brokenPdf(), sorte: "brochure", fehler: "unreadable" },
        { bytes: notPdf(), sorte: "brochure", fehler: "not_pdf" },
        { bytes: emptyFile(), sorte: "other", fehler: "empty" },
      ] as const;
      for (const [i, c] of cases.entries()) {
        const { file, neu } = await upload(c.bytes, c.sorte, `datei-${i}.pdf`);
        assert.equal(neu, true);
        assert.equal(file.status, "pending");
        assert.equal(file.groesse_bytes, c.bytes.length);
        assert.deepEqual(file.angaben, {});
        assert.equal(file.verarbeitet_am, null);
        await processDocument(w.deps, file.datei_id);
        const [after] = await listingFiles(db, officeId, listingId!).then((fs) =>
          fs.filter((f) => f.datei_id === file.datei_id)
        );
        const evs = await eventsOf(file.datei_id);
        assert.equal(evs.length, 1, `case ${i}: one event`);
        const ev = evs[0]!;
        EVENT_DATA["file.processed"].parse(ev.data);
        assert.equal(ev.ownerOfficeId, officeId);
        assert.equal(ev.originApiKeyId, origin.apiKeyId);
        assert.equal(ev.originClientId, null);
        assert.equal(ev.data.objekt_id, listingId);
        assert.equal(ev.data.datei_id, file.datei_id);
        assert.equal(ev.data.sorte, c.sorte);
        if ("fehler" in c) {
          assert.equal(after!.status, "failed", `case ${i}`);
          assert.equal(after!.fehler, c.fehler, `case ${i}`);
          assert.deepEqual(after!.angaben, {});
          assert.deepEqual(ev.data.angaben, { fehler: c.fehler });
          assert.match(ev.data.satz as string, /konnte nicht gelesen werden/);
        } else {
          assert.equal(after!.status, "processed");
          assert.equal(after!.fehler, null);
          assert.equal(after!.erkannte_sorte, c.sorte);
          assert.equal(after!.hinweis, null);
          for (const [k, v] of Object.entries(c.angaben)) assert.equal(after!.angaben[k], v, `${k}`);
          assert.deepEqual(after!.angaben, c.angaben);
          assert.deepEqual(ev.data.angaben, c.angaben);
          assert.match(ev.data.satz as string, /„Wohnung am Park“ wurde gelesen/);
        }
        assert.equal(after!.verarbeitet_am, new Date(w.now()).toISOString());
        // A second run (a repeated queue message) changes nothing.
        await processDocument(w.deps, file.datei_id);
        assert.equal((await eventsOf(file.datei_id)).length, 1);
      }
    });

    await t.step("a claim the text contradicts is kept and noted; the text decides the values", async () => {
      const bytes = await textPdf([["Exposé", "2-Zimmer-Wohnung", "Wohnfläche: 55 m²", "Kaltmiete: 900 €"]]);
      const { file } = await upload(bytes, "energy_certificate", "ausweis.pdf");
      assert.equal(file.status, "pending");
      await processDocument(w.deps, file.datei_id);
      const [f] = (await listingFiles(db, officeId, listingId!)).filter((x) => x.datei_id === file.datei_id);
      assert.equal(f!.sorte, "energy_certificate");
      assert.equal(f!.erkannte_sorte, "brochure");
      assert.match(f!.hinweis!, /Energieausweis hochgeladen.*Exposé/);
      assert.deepEqual(f!.angaben, { zimmer: 2, wohnflaeche_m2: 55, preis_eur: 900 });
    });

    await t.step("same bytes on the same listing are stored once; on another listing again", async () => {
      const n = await fileCount();
      const bytes = await energyCertificatePdf();
      const again = await upload(bytes, "other", "kopie.pdf");
      assert.equal(again.neu, false);
      assert.equal(again.file.name, "datei-0.pdf");
      assert.equal(again.file.status, "processed");
      assert.equal(await fileCount(), n);
      const [listing2] = await insertListings(db, officeId, [{
        ...sampleListing(2, prng(6), Date.now()),
        beispiel: true,
      }]);
      const other = await uploadAs(officeId, {
        objektId: listing2!,
        name: "x.pdf",
        sorte: "energy_certificate",
        inhalt: toBase64(bytes),
        origin: null,
      });
      assert.equal(other.neu, true);
      await processDocument(w.deps, other.file.datei_id);
      assert.equal(other.file.sha256, again.file.sha256);
      assert.equal(await fileCount(), n + 1);
    });

    await t.step("concurrent runs of the same job record one result and one event", async () => {
      const bytes = await textPdf([["Exposé", "4 Zimmer", "Wohnfläche 101 m²"]]);
      const { file } = await upload(bytes, "brochure", "parallel.pdf");
      await Promise.all([1, 2, 3].map(() => processDocument(w.deps, file.datei_id)));
      assert.equal((await eventsOf(file.datei_id)).length, 1);
    });

    await t.step(
      "the job claims due files: a claimed file waits for its lease; a dead reader's file is read",
      async () => {
        const { file } = await upload(new TextEncoder().encode("%PDF-1.4 lease"), "other", "lease.pdf");
        // Another reader claimed it and died: its short lease keeps the file from this reader until it runs out.
        assert.deepEqual(await claimDueFiles(db, 300, 10), [file.datei_id]);
        assert.equal(await processDueDocuments(w.deps), 0, "held by the other reader");
        await new Promise((r) => setTimeout(r, 400));
        const held = new Set<string>();
        assert.equal(await processDueDocuments(w.deps, held), 1, "its lease ran out");
        assert.equal(held.size, 0, "nothing held after reading");
        const [after] = (await listingFiles(db, officeId, listingId!)).filter((f) =>
          f.datei_id === file.datei_id
        );
        assert.equal(after!.status, "failed");
        assert.equal((await eventsOf(file.datei_id)).length, 1);
        assert.equal(await processDueDocuments(w.deps), 0, "nothing pending");
        await processDocument(w.deps, "not-a-uuid");
        await processDocument(w.deps, crypto.randomUUID());
      },
    );

    await t.step("bad input writes nothing", async () => {
      const n = await fileCount();
      const fails = async (p: Promise<unknown>, code: string, detail?: RegExp) => {
        await assert.rejects(p, (e: unknown) => {
          assert.ok(e instanceof AppError);
          assert.equal(e.code, code);
          if (detail) assert.match(e.detail ?? "", detail);
          return true;
        });
      };
      const base = { objektId: listingId!, name: "x.pdf", sorte: "other" as const, origin: null };
      await fails(
        uploadAs(officeId, { ...base, inhalt: "no base64!" }),
        "invalid_request",
        /inhalt/,
      );
      await fails(uploadAs(officeId, { ...base, inhalt: "QUJD=" }), "invalid_request", /inhalt/);
      await fails(
        uploadAs(officeId, { ...base, inhalt: toBase64(new Uint8Array(FILE_MAX_BYTES + 1)) }),
        "payload_too_large",
      );
      await fails(
        uploadAs(officeId, { ...base, name: "  ", inhalt: "QUJD" }),
        "invalid_request",
        /name/,
      );
      await fails(
        uploadAs(officeId, { ...base, name: "a\u0000b", inhalt: "QUJD" }),
        "invalid_request",
      );
      await fails(uploadAs(otherOffice, { ...base, inhalt: "QUJD" }), "not_found");
      await fails(uploadAs(officeId, { ...base, objektId: "x", inhalt: "QUJD" }), "not_found");
      await fails(
        listFiles(w.deps, otherOffice, { objektId: listingId!, page: 1, page_size: 10 }),
        "not_found",
      );
      assert.equal(await fileCount(), n);
      // Exactly the limit is accepted (whitespace in the Base64 is ignored).
      const big = toBase64(new Uint8Array(FILE_MAX_BYTES)).replace(/(.{76})/g, "$1\n");
      const ok = await uploadAs(officeId, { ...base, inhalt: big });
      assert.equal(ok.file.groesse_bytes, FILE_MAX_BYTES);
      assert.equal((await listFiles(w.deps, otherOffice, { page: 1, page_size: 10 })).total, 0);
    });
  } finally {
    w.kv.close();
    await tdb.close();
  }
});
