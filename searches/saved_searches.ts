/**
 * Saved searches of seekers: a name and catalogue filters (docs/contract.md §2.3 without paging). A run (every 5 minutes, by
 * cron) stores the listings published since the search's last run that match its filters and writes one
 * `matches.new` event per search that found any. Used by the MCP tools of the seeker server and by pages.
 */
import { isUuid } from "../ids.ts";
import { z } from "zod";
import {
  checkFilter,
  definedFilters,
  type SearchFilters,
  searchFiltersSchema,
} from "../catalogue/filters.ts";
import type { Listing } from "../catalogue/listing.ts";
import {
  deleteSavedSearchOf,
  dueSavedSearchIds,
  findSavedSearchOf,
  insertNewMatches,
  insertSavedSearchBelow,
  listSavedSearchesOf,
  lockDueSavedSearch,
  savedSearchMatches,
  type SavedSearchRow,
  setLastRun,
} from "../db/saved_searches.ts";
import { AppError } from "../errors.ts";
import { hasControlCharacter } from "../text.ts";
import { recordEvent } from "../events/outbox.ts";
import { recordAlertMail } from "./search_alerts.ts";
import { act, type ActDeps, actingSeeker, type Action, type AppDeps, nowOf, SERVICE } from "../deps.ts";

/** At most this many saved searches per seeker; one more answers `conflict`. */
export const SAVED_SEARCH_MAX = 20;
/** Longest name of a saved search. */
export const SAVED_SEARCH_NAME_MAX = 200;

/**
 * How far back before the last run a run looks again. A listing's `published_at` is set when its transaction
 * starts and becomes visible only at commit, so a listing published just before a run may be invisible to it; the
 * next run finds it in this overlap. Listings found before are not counted twice (one match row per listing).
 */
export const RUN_OVERLAP_MS = 10 * 60_000;

/** The optional name of a saved search: trimmed, at most 200 characters, no control characters. */
export const savedSearchNameSchema = z.string().trim().max(SAVED_SEARCH_NAME_MAX)
  .refine((s) => !hasControlCharacter(s), "must not contain control characters");

/** A saved search as its owner sees it; timestamps are ISO 8601 strings. */
export const savedSearchSchema = z.object({
  id: z.string().describe("Saved search id (UUID)."),
  name: z.string().nullable(),
  filters: searchFiltersSchema,
  created_at: z.string().describe("ISO 8601."),
  last_run_at: z.string().describe("ISO 8601; listings published after it are new for the next run."),
});

/** A saved search. */
export type SavedSearch = z.infer<typeof savedSearchSchema>;

/** Paging of a list: page ≥ 1, page_size 1–60. */
export interface Paging {
  page: number;
  page_size: number;
}

/** What a caller gives to create a saved search. */
export interface NewSavedSearchInput {
  name?: string | undefined;
  filters: SearchFilters;
}

function toSavedSearch(r: SavedSearchRow): SavedSearch {
  return {
    id: r.id,
    name: r.name,
    filters: definedFilters(r.filters as SearchFilters),
    created_at: r.created_at.toISOString(),
    last_run_at: r.last_run_at.toISOString(),
  };
}

/** The filters after the rules between fields: known fields only, at least one set, min_price ≤ max_price. */
function checkedFilters(raw: unknown): SearchFilters {
  const parsed = searchFiltersSchema.safeParse(raw);
  if (!parsed.success) {
    throw new AppError("invalid_request", {
      field: "filters",
      reason: "invalid",
      hint: parsed.error.issues[0]?.message,
    });
  }
  const filters = definedFilters(parsed.data);
  if (Object.keys(filters).length === 0) {
    throw new AppError("invalid_request", { field: "filters", reason: "no_filter" });
  }
  checkFilter(filters);
  return filters;
}

/**
 * Saves a search for the acting seeker. Its last run is now (the domain clock), so only listings published afterwards
 * become matches. Throws `invalid_request` for no filter or min_price > max_price, `conflict` when the seeker already
 * has {@linkcode SAVED_SEARCH_MAX} saved searches.
 */
export async function createSavedSearch(a: Action, input: NewSavedSearchInput): Promise<SavedSearch> {
  const seekerId = actingSeeker(a);
  const filters = checkedFilters(input.filters);
  const name = input.name === undefined ? null : savedSearchNameSchema.safeParse(input.name);
  if (name && !name.success) {
    throw new AppError("invalid_request", {
      field: "name",
      reason: "invalid",
      hint: name.error.issues[0]?.message,
    });
  }
  const row = await insertSavedSearchBelow(a.tx, {
    seekerId,
    name: name?.data || null,
    filters,
    at: a.now,
  }, SAVED_SEARCH_MAX);
  if (!row) throw new AppError("conflict", { reason: "too_many", limit: SAVED_SEARCH_MAX });
  return toSavedSearch(row);
}

/** The seeker's own saved searches, newest first, with their total. */
export async function listSavedSearches(
  deps: Pick<AppDeps, "db">,
  seekerId: string,
  paging: Paging,
): Promise<{ items: SavedSearch[]; total: number } & Paging> {
  const { rows, total } = await listSavedSearchesOf(
    deps.db,
    seekerId,
    paging.page_size,
    (paging.page - 1) * paging.page_size,
  );
  return { items: rows.map(toSavedSearch), total, page: paging.page, page_size: paging.page_size };
}

/** The seeker's saved search `id`; a malformed, unknown or another account's id throws `not_found`. */
export async function getSavedSearch(
  deps: Pick<AppDeps, "db">,
  seekerId: string,
  id: string,
): Promise<SavedSearch> {
  const row = isUuid(id) ? await findSavedSearchOf(deps.db, seekerId, id.toLowerCase()) : undefined;
  if (!row) throw new AppError("not_found");
  return toSavedSearch(row);
}

/**
 * The listings found by the runs of the seeker's saved search `id` that are still published, newest found first,
 * public fields only, with their total. A malformed, unknown or another account's id throws `not_found`.
 */
export async function getSavedSearchMatches(
  deps: Pick<AppDeps, "db">,
  seekerId: string,
  id: string,
  paging: Paging,
): Promise<{ saved_search: SavedSearch; items: Listing[]; total: number } & Paging> {
  const search = await getSavedSearch(deps, seekerId, id);
  const { items, total } = await savedSearchMatches(
    deps.db,
    search.id,
    paging.page_size,
    (paging.page - 1) * paging.page_size,
  );
  return { saved_search: search, items, total, page: paging.page, page_size: paging.page_size };
}

/**
 * Deletes the acting seeker's saved search `id` and its matches; a malformed, unknown or foreign id throws
 * `not_found`.
 */
export async function deleteSavedSearch(a: Action, id: string): Promise<void> {
  const deleted = isUuid(id) ? await deleteSavedSearchOf(a.tx, actingSeeker(a), id.toLowerCase()) : false;
  if (!deleted) throw new AppError("not_found");
}

/** The German sentence of a `matches.new` event, e.g. "3 neue Treffer für Ihre Suche „Altbau Köln“." */
export function matchesSatz(count: number, name: string | null): string {
  const hits = count === 1 ? "1 neuer Treffer" : `${count} neue Treffer`;
  return name ? `${hits} für Ihre Suche „${name}“.` : `${hits} für Ihre gespeicherte Suche.`;
}

/** What a run needs: an action's dependencies and the service's address (the links of alert mails). */
export type RunDeps = ActDeps & { config: Pick<AppDeps["config"], "baseUrl"> };

/**
 * Runs one saved search up to `now` in one transaction: locks it (skipping it when another run holds it or it has
 * already run up to `now`), stores the new matches, moves its last run to `now` and, when it found any, writes one
 * `matches.new` event, and records the alert mail when one is due. Answers the number of new matches, or null when
 * skipped.
 */
async function runOne(deps: RunDeps, id: string, now: Date): Promise<number | null> {
  return await act(deps, SERVICE, async (a) => {
    const tx = a.tx;
    const search = await lockDueSavedSearch(tx, id, now);
    if (!search) return null;
    const filters = definedFilters(searchFiltersSchema.parse(search.filters));
    const after = new Date(
      Math.max(search.created_at.getTime(), search.last_run_at.getTime() - RUN_OVERLAP_MS),
    );
    const count = await insertNewMatches(tx, search.id, { ...filters, page: 1, page_size: 1 }, after, now);
    await setLastRun(tx, search.id, now);
    if (count > 0) {
      await recordEvent(a, {
        name: "matches.new",
        data: { saved_search_id: search.id, count, satz: matchesSatz(count, search.name) },
        owner: { seeker: search.seeker_id },
      });
    }
    await recordAlertMail(a, search.id, deps.config.baseUrl);
    return count;
  });
}

/**
 * Runs every saved search whose last run is before now (the domain clock): stores the listings published since
 * then (after the search was created; looking {@linkcode RUN_OVERLAP_MS} back for late commits) that match its
 * filters and are not yet its matches, and writes one `matches.new` outbox row per search with at least one new
 * match, its `count` being the number of new matches; a search whose e-mail alert is due gets its alert mail
 * (searches/search_alerts.ts) in the same transaction.
 * Safe to run in several processes at once: each search is run by exactly one of them. A search that fails is
 * logged and left for the next run. Answers how many searches ran and how many events were written.
 */
export async function runSavedSearches(deps: RunDeps): Promise<{ searches: number; events: number }> {
  const now = nowOf(deps);
  let searches = 0;
  let events = 0;
  for (const id of await dueSavedSearchIds(deps.db, now)) {
    try {
      const count = await runOne(deps, id, now);
      if (count === null) continue;
      searches++;
      if (count > 0) events++;
    } catch (err) {
      deps.log.log("error", "saved search run failed", {
        saved_search_id: id,
        error: err instanceof Error ? err.message : String(err),
      });
    }
  }
  if (events > 0) deps.log.log("info", "saved searches run", { searches, events });
  return { searches, events };
}
