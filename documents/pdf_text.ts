/**
 * The text of a PDF through `unpdf` (PDF.js), in the calling thread. Never throws: anything PDF.js cannot read
 * becomes a failure code. `read.ts` runs this in a worker under a deadline.
 */
import type { FileFehler } from "../db/files.ts";
import { normaliseText } from "./extract.ts";

/** At most this many characters of text are looked at. */
export const TEXT_MAX = 200_000;

/** What reading a PDF gave: its text, or why there is none. */
export type PdfText = { text: string } | { fehler: FileFehler };

/** Whether `bytes` starts (within its first 1024 bytes) with the PDF header `%PDF-`. */
export function hasPdfHeader(bytes: Uint8Array): boolean {
  const head = new TextDecoder("latin1").decode(bytes.subarray(0, 1024));
  return head.includes("%PDF-");
}

/** The text of the PDF `bytes`, or the failure code, read in this thread. */
export async function pdfTextHere(bytes: Uint8Array): Promise<PdfText> {
  if (bytes.length === 0) return { fehler: "empty" };
  if (!hasPdfHeader(bytes)) return { fehler: "not_pdf" };
  // PDF.js is loaded on the first PDF, not at start (docs/architecture.md §11.17).
  const { extractText, getDocumentProxy } = await import("unpdf");
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
