/** The queued job that reads uploaded documents (DESIGN §1 background). */
import type { AppDeps } from "../routes/env.ts";

/** Reads the uploaded file `fileId` once: extracts its `angaben` or records why it could not be read. */
export async function processDocument(_deps: AppDeps, _fileId: string): Promise<void> {
  // Built by the documents work package.
}

/** Re-queues documents whose job was lost (a crash after upload); returns how many. */
export async function sweepDocuments(_deps: AppDeps): Promise<number> {
  return await Promise.resolve(0);
}
