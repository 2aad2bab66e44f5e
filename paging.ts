/**
 * Paging of every list (docs/contract.md §2.3): `page` from 1, `page_size` from 1 to 60 (default 24). The bounds
 * live here and nowhere else: REST and the MCP tools check them with their schemas (`pagingFields` in
 * `catalogue/listing.ts` builds on these), the domain with {@linkcode pageWindow}, pages with
 * {@linkcode forgivingPage}.
 */
import { AppError } from "./errors.ts";

/** Default page size of docs/contract.md §2.3. */
export const PAGE_SIZE_DEFAULT = 24;
/** Largest page size a caller may ask for. */
export const PAGE_SIZE_MAX = 60;
/** Largest page number accepted (pages past the last one answer with empty `items`). */
export const PAGE_MAX = 1_000_000;

/** Paging as a caller gives it: either may be left out. */
export interface Paging {
  page?: number | undefined;
  page_size?: number | undefined;
}

/** A checked page: its number, its size and the rows to skip. */
export interface PageWindow {
  page: number;
  page_size: number;
  offset: number;
}

/** The page `p` asks for; `invalid_request` naming `page` or `page_size` when out of bounds. */
export function pageWindow(p: Paging): PageWindow {
  const page = p.page ?? 1;
  const page_size = p.page_size ?? PAGE_SIZE_DEFAULT;
  if (!Number.isInteger(page) || page < 1 || page > PAGE_MAX) {
    throw new AppError("invalid_request", { field: "page", reason: "out_of_range", hint: "from 1" });
  }
  if (!Number.isInteger(page_size) || page_size < 1 || page_size > PAGE_SIZE_MAX) {
    throw new AppError("invalid_request", {
      field: "page_size",
      reason: "out_of_range",
      hint: `from 1 to ${PAGE_SIZE_MAX}`,
    });
  }
  return { page, page_size, offset: (page - 1) * page_size };
}

/** The page number of a page's query (`?page=`): 1 when absent or not a whole number, at most {@linkcode PAGE_MAX}. */
export function forgivingPage(raw: string | undefined): number {
  const n = /^[0-9]{1,7}$/.test(raw ?? "") ? Number(raw) : 1;
  return Math.min(Math.max(n, 1), PAGE_MAX);
}
