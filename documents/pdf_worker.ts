/**
 * The worker that reads one PDF for {@linkcode pdfText} (`read.ts`): it gets the bytes, answers with the text or the
 * failure code, and is terminated by its parent, so a PDF that takes too long or too much memory never stalls the
 * service's own event loop.
 */
import { pdfTextHere } from "./pdf_text.ts";

/** The worker's global scope (the module is only ever loaded as a worker). */
const scope = globalThis as unknown as {
  onmessage: ((e: MessageEvent<Uint8Array>) => void) | null;
  postMessage(message: unknown): void;
};

scope.onmessage = async (e) => {
  scope.postMessage(await pdfTextHere(e.data));
};
