/**
 * Connecting a page of a social network (a Facebook page or an Instagram account, by its id) to an office: the
 * inbox stores comments and messages only of connected pages. A page belongs to one office at a time.
 */
import { connectPage, disconnectPage, type SocialNetz } from "../db/social.ts";
import type { Db } from "../db/connection.ts";
import { findOffice } from "../db/offices.ts";
import { SOCIAL_NETWORKS } from "../events/catalogue.ts";
import { AppError } from "../errors.ts";
import { hasControlCharacter } from "../text.ts";
import { PAGE_ID } from "./payload.ts";

/** What to connect; values as typed by an operator. */
export interface ConnectRequest {
  office: string;
  netz: string;
  pageId: string;
  name?: string | undefined;
  at: Date;
}

/** The network `netz`, or `invalid_request`. */
export function parseNetz(netz: string): SocialNetz {
  if (!(SOCIAL_NETWORKS as readonly string[]).includes(netz)) {
    throw new AppError("invalid_request", {
      field: "netz",
      reason: "invalid",
      hint: `one of ${SOCIAL_NETWORKS.join(", ")}`,
    });
  }
  return netz as SocialNetz;
}

/** The page id `pageId`, or `invalid_request`. */
export function parsePageId(pageId: string): string {
  if (!PAGE_ID.test(pageId)) {
    throw new AppError("invalid_request", {
      field: "page",
      reason: "invalid",
      hint: "the page's id: 1 to 100 characters 0-9 A-Z a-z _ . -",
    });
  }
  return pageId;
}

/** The trimmed name (1–200 characters without control characters), null when absent, else `invalid_request`. */
function parseName(name: string | undefined): string | null {
  if (name === undefined) return null;
  const n = name.trim();
  if (n.length < 1 || n.length > 200 || hasControlCharacter(n)) {
    throw new AppError("invalid_request", {
      field: "name",
      reason: "control_character",
      hint: "1 to 200 characters",
    });
  }
  return n;
}

/** Connects the page to the office (id or exact name); returns the office and the office it moved from. */
export async function connectSocialPage(
  db: Db,
  r: ConnectRequest,
): Promise<{ officeId: string; officeName: string; previousOfficeId: string | null }> {
  const netz = parseNetz(r.netz);
  const pageId = parsePageId(r.pageId);
  const name = parseName(r.name);
  const office = await findOffice(db, r.office);
  if (!office) {
    throw new AppError("not_found", { field: "office", reason: "unknown_office", names: [r.office] });
  }
  const { previousOfficeId } = await connectPage(db, { netz, pageId, officeId: office.id, name, at: r.at });
  return { officeId: office.id, officeName: office.name, previousOfficeId };
}

/**
 * Disconnects the page (only from `office`, id or exact name, when given); returns the office it was connected
 * to, or null when it was not connected (to that office).
 */
export async function disconnectSocialPage(
  db: Db,
  r: { office?: string | undefined; netz: string; pageId: string },
): Promise<string | null> {
  const netz = parseNetz(r.netz);
  const pageId = parsePageId(r.pageId);
  let officeId: string | undefined;
  if (r.office !== undefined) {
    officeId = (await findOffice(db, r.office))?.id;
    if (!officeId) {
      throw new AppError("not_found", { field: "office", reason: "unknown_office", names: [r.office] });
    }
  }
  return await disconnectPage(db, netz, pageId, officeId);
}
