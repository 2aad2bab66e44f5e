/** Reading a PDF in its own worker: the text comes back, failures keep their codes, and a deadline ends it. */
import assert from "node:assert/strict";
import { brokenPdf, encryptedPdf, imageOnlyPdf, textPdf } from "../tests/pdf_fixtures.ts";
import { pdfText } from "./read.ts";

Deno.test("pdfText: read in a worker, failure codes, and the deadline", async (t) => {
  await t.step("a PDF's text comes back from the worker", async () => {
    const got = await pdfText(await textPdf([["Energieausweis für Wohngebäude", "Baujahr 1978"]]));
    assert.ok("text" in got, JSON.stringify(got));
    assert.match(got.text, /Energieausweis für Wohngebäude/);
    assert.match(got.text, /Baujahr 1978/);
  });

  await t.step("the worker keeps PDF.js's failure codes: encrypted, unreadable, no_text", async () => {
    assert.deepEqual(await pdfText(encryptedPdf()), { fehler: "encrypted" });
    assert.deepEqual(await pdfText(brokenPdf()), { fehler: "unreadable" });
    assert.deepEqual(await pdfText(await imageOnlyPdf()), { fehler: "no_text" });
  });

  await t.step("empty and not-a-PDF are answered without PDF.js", async () => {
    assert.deepEqual(await pdfText(new Uint8Array()), { fehler: "empty" });
    assert.deepEqual(await pdfText(new TextEncoder().encode("hello")), { fehler: "not_pdf" });
  });

  await t.step(
    "past the deadline: unreadable, the worker is ended, the caller's bytes are untouched",
    async () => {
      const bytes = await textPdf([["Exposé", "Wohnfläche 80 m²"]]);
      const before = bytes.slice();
      const started = performance.now();
      assert.deepEqual(await pdfText(bytes, 1), { fehler: "unreadable" });
      assert.ok(performance.now() - started < 5_000, "the answer does not wait for PDF.js");
      assert.deepEqual(bytes, before);
      // The same bytes with the normal deadline are read (the short deadline was what failed them).
      assert.ok("text" in await pdfText(bytes));
    },
  );
});
