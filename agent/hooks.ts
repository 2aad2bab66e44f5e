/**
 * The service's agent as the other domains call it: each hook runs inside the transaction of the action that
 * triggers it, so a proposal (and its `proposal.pending` event) commits together with that action or not at all.
 */
import type { Kysely } from "kysely";
import type { Database } from "../db/schema.ts";

/** What a hook needs to know about the moment it runs. */
export interface HookContext {
  /** The domain clock's time of the triggering action. */
  now: Date;
}

/** Prepares a draft reply to the new enquiry `inquiryId` (any `quelle`), awaiting the provider's approval. */
export async function proposeForInquiry(
  _tx: Kysely<Database>,
  _inquiryId: string,
  _ctx: HookContext,
): Promise<void> {
  // Built by the agent work package.
}

/** Prepares a property change when the processed document `fileId` contradicts or completes its listing. */
export async function proposeForDocument(
  _tx: Kysely<Database>,
  _fileId: string,
  _ctx: HookContext,
): Promise<void> {
  // Built by the agent work package.
}
