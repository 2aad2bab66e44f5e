/**
 * Reading a stored document: its text through `unpdf` (PDF.js), then kind and values through `extract.ts`.
 * Never throws: anything PDF.js cannot read becomes a failure code.
 *
 * Failure codes (`fehler`): `empty` (no bytes at all, or a PDF without pages), `not_pdf` (no `%PDF-` header in the
 * first 1024 bytes, as PDF readers tolerate), `encrypted` (PDF.js needs a password: a user password is set; a PDF
 * with only an owner password opens without one and is read normally), `unreadable` (PDF.js fails to parse it),
 * `no_text` (pages without any extractable text, e.g. a scan or image-only PDF).
 */
import { extractText, getDocumentProxy } from "unpdf";
import type { FileFehler, FileResult, FileSorte } from "../db/files.ts";
import { classifyText, extractAngaben, normaliseText } from "./extract.ts";

/** At most this many characters of text are looked at. */
export const TEXT_MAX = 200_000;

const SORTE_DE: Record<FileSorte, string> = {
  brochure: "Exposé",
  energy_certificate: "Energieausweis",
  other: "sonstiges Dokument",
};

/** The German name of a document kind. */
export function sorteDe(sorte: FileSorte): string {
  return SORTE_DE[sorte];
}

/** Whether `bytes` starts (within its first 1024 bytes) with the PDF header `%PDF-`. */
function hasPdfHeader(bytes: Uint8Array): boolean {
  const head = new TextDecoder("latin1").decode(bytes.subarray(0, 1024));
  return head.includes("%PDF-");
}

/** The text of the PDF `bytes`, or the failure code. */
export async function pdfText(bytes: Uint8Array): Promise<{ text: string } | { fehler: FileFehler }> {
  if (bytes.length === 0) return { fehler: "empty" };
  if (!hasPdfHeader(bytes)) return { fehler: "not_pdf" };
  try {
    // PDF.js may take over the buffer: give it a copy.
    const pdf = await getDocumentProxy(bytes.slice(), { verbosity: 0 });
    try {
      if (pdf.numPages === 0) return { fehler: "empty" };
      const { text } = await extractText(pdf, { mergePages: true });
      const clean = normaliseText(text, TEXT_MAX);
      return clean.length === 0 ? { fehler: "no_text" } : { text: clean };
    } finally {
      await pdf.loadingTask.destroy().catch(() => {});
    }
  } catch (err) {
    return { fehler: (err as { name?: string }).name === "PasswordException" ? "encrypted" : "unreadable" };
  }
}

/**
 * The result of reading `bytes` claimed to be `claimed`: the text decides the recognised kind and what is
 * extracted; the claim is kept, and a note says so when the text contradicts it.
 */
export async function readDocument(bytes: Uint8Array, claimed: FileSorte): Promise<FileResult> {
  const read = await pdfText(bytes);
  if ("fehler" in read) return { status: "failed", fehler: read.fehler };
  const erkannt = classifyText(read.text);
  const contradicts = claimed !== "other" && erkannt !== claimed;
  return {
    status: "processed",
    angaben: extractAngaben(read.text, erkannt),
    erkannteSorte: erkannt,
    hinweis: contradicts
      ? `Als ${SORTE_DE[claimed]} hochgeladen, der Text ist aber ${
        erkannt === "other" ? "weder Exposé noch Energieausweis" : `ein ${SORTE_DE[erkannt]}`
      }.`
      : null,
  };
}
