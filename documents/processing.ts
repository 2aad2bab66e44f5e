/**
 * The background job that reads uploaded documents (docs/architecture.md §8).
 *
 * A file is read at most once: the job reads a pending file's bytes, extracts its text and values outside any
 * transaction, then stores the result with a conditional update (`… where status = 'pending'`) in one transaction
 * with its `file.processed` event and the agent's hook. Of two processes reading the same file (one whose lease ran out
 * while it was still reading) only one stores a result and records an event; the other changes nothing. A crash before
 * commit leaves the file pending, due again when its lease ({@linkcode DOCUMENT_LEASE_MS}) runs out.
 *
 * The event: owner the listing's office, origin the app that uploaded it (so it is not sent back to it), `angaben`
 * the values read, or `{fehler: code}` when the file could not be read; `satz` names the kind and the outcome,
 * never the file's content or name.
 */
import {
  claimDueFiles,
  type FileResult,
  type FinishedFile,
  finishFile,
  type PendingFile,
  pendingFileContent,
} from "../db/files.ts";
import { type EventOrigin, recordEvent } from "../events/outbox.ts";
import { isUuid } from "../ids.ts";
import { act, type AppDeps } from "../deps.ts";
import { readDocument, sorteDe } from "./read.ts";
import { clip } from "../text.ts";

/** How long an instance holds a file it reads: longer than a reading may take (20 s in the worker). */
export const DOCUMENT_LEASE_MS = 30_000;

const FEHLER_DE: Record<string, string> = {
  not_pdf: "keine PDF-Datei",
  encrypted: "verschlüsselt",
  empty: "leer",
  no_text: "kein lesbarer Text (etwa nur Bilder)",
  unreadable: "nicht lesbar",
};

/** The listing's title quoted for a `satz`, shortened so the sentence stays short. */
function about(title: string | null): string {
  if (!title) return "einem Objekt";
  return `„${clip(title, 120)}“`;
}

/** The one short German sentence of the event. */
function satzOf(f: FinishedFile, result: FileResult): string {
  const what = `${sorteDe(f.sorte)} zu ${about(f.listing_title)}`;
  if (result.status === "failed") return `${what} konnte nicht gelesen werden: ${FEHLER_DE[result.fehler]}.`;
  const n = Object.keys(result.angaben).length;
  return `${what} wurde gelesen: ${n === 1 ? "1 Angabe" : `${n} Angaben`} erkannt.`;
}

/** The app that uploaded the file. */
function originOfFile(f: PendingFile): EventOrigin {
  if (f.origin_client_id) return { clientId: f.origin_client_id };
  if (f.origin_api_key_id) return { apiKeyId: f.origin_api_key_id };
  return null;
}

/** Reads the uploaded file `fileId` once: extracts its `angaben` or records why it could not be read. */
export async function processDocument(deps: AppDeps, fileId: string): Promise<void> {
  if (!isUuid(fileId)) return;
  const id = fileId.toLowerCase();
  const file = await pendingFileContent(deps.db, id);
  if (!file) return;
  const result = await readDocument(file.content, file.sorte);
  const who = { actor: { kind: "service", officeId: file.office_id } as const, origin: originOfFile(file) };
  await act(deps, who, async (a) => {
    const done = await finishFile(a.tx, id, result, a.now);
    if (!done) return;
    await recordEvent(a, {
      name: "file.processed",
      data: {
        objekt_id: done.listing_id,
        datei_id: done.id,
        sorte: done.sorte,
        angaben: result.status === "processed" ? result.angaben : { fehler: result.fehler },
        satz: satzOf(done, result),
      },
      owner: { office: done.office_id },
    });
    await deps.reactions.react(a, { kind: "document_processed", fileId: done.id });
  });
}

/**
 * Reads every pending document that is due, one at a time, each claimed with a lease (a reader that dies leaves
 * the file to the next instance after {@linkcode DOCUMENT_LEASE_MS}); `held` names the files being read, for
 * giving them back when the process stops. Returns how many were read.
 */
export async function processDueDocuments(deps: AppDeps, held: Set<string> = new Set()): Promise<number> {
  let n = 0;
  for (;;) {
    const [id] = await claimDueFiles(deps.db, DOCUMENT_LEASE_MS, 1);
    if (!id) return n;
    held.add(id);
    try {
      await processDocument(deps, id);
      n++;
    } finally {
      held.delete(id);
    }
  }
}
