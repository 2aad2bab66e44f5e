/**
 * Where a signed-in person belongs when nothing else asked for a page (after a plain sign-in, after the e-mail
 * confirmation link): a provider with an active office membership goes to the agent workspace, everyone else
 * (seekers, providers whose membership ended) to their account.
 */
import type { Db } from "../db/connection.ts";
import { type PersonAccess, personAccess } from "../db/accounts.ts";

/** The account start page (a seeker's inquiries and saved searches, links to the other account pages). */
export const ACCOUNT_PAGE = "/konto";
/** The agent workspace of a provider with an active membership. */
export const WORKSPACE_PAGE = "/anbieter";

/** The office whose workspace the person may use: a provider's with an active membership, else undefined. */
export function workspaceOffice(access: PersonAccess | undefined): string | undefined {
  return access?.role === "provider" && access.officeId !== null ? access.officeId : undefined;
}

/** The page `userId` lands on after signing in without an OAuth request. */
export async function accountHome(db: Db, userId: string): Promise<string> {
  return workspaceOffice(await personAccess(db, userId)) ? WORKSPACE_PAGE : ACCOUNT_PAGE;
}
