/**
 * Reading a stored document: its text through `unpdf` (PDF.js), then kind and values through `extract.ts`.
 * Never throws: anything PDF.js cannot read becomes a failure code.
 *
 * Failure codes (`fehler`): `empty` (no bytes at all, or a PDF without pages), `not_pdf` (no `%PDF-` header in the
 * first 1024 bytes, as PDF readers tolerate), `encrypted` (PDF.js needs a password: a user password is set; a PDF
 * with only an owner password opens without one and is read normally), `unreadable` (PDF.js fails to parse it, or
 * takes longer than {@linkcode PDF_DEADLINE_MS}),
 * `no_text` (pages without any extractable text, e.g. a scan or image-only PDF).
 */
import type { FileFehler, FileResult, FileSorte } from "../db/files.ts";
import { classifyText, extractAngaben } from "./extract.ts";
import { hasPdfHeader, type PdfText, pdfTextHere } from "./pdf_text.ts";

/** How long PDF.js may take for one file before it counts as `unreadable` (its worker is terminated). */
export const PDF_DEADLINE_MS = 20_000;

const SORTE_DE: Record<FileSorte, string> = {
  brochure: "Exposé",
  energy_certificate: "Energieausweis",
  other: "sonstiges Dokument",
};

/** The German name of a document kind. */
export function sorteDe(sorte: FileSorte): string {
  return SORTE_DE[sorte];
}

const WORKER_URL = new URL("./pdf_worker.ts", import.meta.url);

/** Starts a PDF worker; undefined where the runtime has no workers (the PDF is then read in this thread). */
function startWorker(): Worker | undefined {
  try {
    return new Worker(WORKER_URL, { type: "module" });
  } catch {
    return undefined;
  }
}

/**
 * The text of the PDF `bytes`, or the failure code. PDF.js runs in a worker of its own, terminated after
 * `deadlineMs` (then `unreadable`), so a PDF built to take long (deep nesting, a decompression bomb) cannot hold
 * up the service; the cheap checks (empty, no PDF header) are made here first.
 */
export async function pdfText(bytes: Uint8Array, deadlineMs = PDF_DEADLINE_MS): Promise<PdfText> {
  if (bytes.length === 0) return { fehler: "empty" };
  if (!hasPdfHeader(bytes)) return { fehler: "not_pdf" };
  const worker = startWorker();
  if (!worker) return await pdfTextHere(bytes);
  let timer: ReturnType<typeof setTimeout> | undefined;
  try {
    const unreadable: PdfText = { fehler: "unreadable" };
    return await new Promise<PdfText>((resolve) => {
      timer = setTimeout(() => resolve(unreadable), deadlineMs);
      worker.onmessage = (e: MessageEvent<PdfText>) => resolve(validAnswer(e.data) ?? unreadable);
      worker.onerror = (e) => {
        e.preventDefault();
        resolve(unreadable);
      };
      worker.onmessageerror = () => resolve(unreadable);
      const copy = bytes.slice();
      worker.postMessage(copy, [copy.buffer]);
    });
  } finally {
    clearTimeout(timer);
    worker.terminate();
  }
}

const FEHLER: readonly FileFehler[] = ["not_pdf", "encrypted", "empty", "no_text", "unreadable"];

/** The worker's answer when it has the expected shape. */
function validAnswer(data: unknown): PdfText | undefined {
  const d = data as { text?: unknown; fehler?: unknown } | null;
  if (typeof d?.text === "string") return { text: d.text };
  if (FEHLER.includes(d?.fehler as FileFehler)) return { fehler: d!.fehler as FileFehler };
  return undefined;
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
