/**
 * MCP tools of the seeker server for saved searches: create, list, read the matches, delete. Thin adapters over
 * `searches/saved_searches.ts`; a seeker only ever sees their own searches.
 */
import { z } from "zod";
import { seekerOf } from "../../auth/principal.ts";
import { actAs } from "./acting.ts";
import { searchFiltersSchema } from "../../catalogue/filters.ts";
import { filtersText } from "../../catalogue/german.ts";
import { listingSchema, pageOf, pagingFields } from "../../catalogue/listing.ts";
import type { AppDeps } from "../../deps.ts";
import {
  createSavedSearch,
  deleteSavedSearch,
  getSavedSearchMatches,
  listSavedSearches,
  SAVED_SEARCH_MAX,
  SAVED_SEARCH_NAME_MAX,
  type SavedSearch,
  savedSearchNameSchema,
  savedSearchSchema,
} from "../../searches/saved_searches.ts";
import { pageText } from "./catalogue.ts";
import { ADDS, addTool, DESTROYS, READ_ONLY, type ToolTarget } from "./define.ts";

const searchId = z.string().max(100).describe("Saved search id (UUID).");

function searchLine(s: SavedSearch): string {
  return `- ${s.name ? `„${s.name}“` : "(ohne Namen)"}: ${filtersText(s.filters)} (ID ${s.id})`;
}

/** Registers the saved-search tools on the seeker server. */
export function registerSavedSearchTools(server: ToolTarget, deps: AppDeps): void {
  addTool(server, deps, {
    name: "create_saved_search",
    title: "Suche speichern / Save a search",
    description: [
      "Speichert eine Suche mit Katalogfiltern. Der Dienst prüft sie alle 5 Minuten auf neu veröffentlichte " +
      `passende Objekte (Ereignis matches.new). Höchstens ${SAVED_SEARCH_MAX} gespeicherte Suchen je Konto.`,
      "Saves a search: an optional name (at most 200 characters) and the catalogue filters of search_properties " +
      "without paging (city, transaction_type, property_type, min_price, max_price, min_rooms, min_sqm); at least " +
      "one filter. Every 5 minutes the service runs it: listings published after the previous run that match " +
      "become matches (read them with get_saved_search_matches) and the event matches.new is sent. Only listings " +
      "published after now count. Returns the saved search {id, name, filters, created_at, last_run_at}. " +
      `At most ${SAVED_SEARCH_MAX} saved searches per account: one more answers conflict (delete one first). ` +
      "No filter or min_price > max_price → invalid_request; a value out of bounds or an unknown field → " +
      "invalid_arguments.",
    ].join("\n\n"),
    input: z.strictObject({
      name: savedSearchNameSchema.optional().describe(`Name, at most ${SAVED_SEARCH_NAME_MAX} characters.`),
      filters: searchFiltersSchema.describe("Catalogue filters (at least one)."),
    }),
    output: savedSearchSchema,
    annotations: ADDS,
  }, async (args, principal) => {
    const saved = await actAs(deps, principal, (a) => createSavedSearch(a, args));
    return {
      data: saved,
      text: `Suche gespeichert${saved.name ? ` als „${saved.name}“` : ""}: ${filtersText(saved.filters)} ` +
        `(ID ${saved.id}). Neue passende Objekte werden ab jetzt alle 5 Minuten gesucht.`,
    };
  });

  addTool(server, deps, {
    name: "list_saved_searches",
    title: "Gespeicherte Suchen / Saved searches",
    description: [
      "Listet Ihre gespeicherten Suchen, neueste zuerst.",
      "Lists your own saved searches, newest first. Returns {items, total, page, page_size}; each item is " +
      "{id, name, filters, created_at, last_run_at}. page >= 1 (default 1), page_size 1–60 (default 24).",
    ].join("\n\n"),
    input: z.strictObject({ ...pagingFields }),
    output: pageOf(savedSearchSchema),
    annotations: READ_ONLY,
  }, async (args, principal) => {
    const list = await listSavedSearches(deps, seekerOf(principal), args);
    const head = `${list.total} gespeicherte Suche(n), Seite ${list.page}.`;
    return { data: list, text: [head, ...list.items.map(searchLine)].join("\n") };
  });

  addTool(server, deps, {
    name: "get_saved_search_matches",
    title: "Treffer einer Suche / Matches of a saved search",
    description: [
      "Liefert die Objekte, die die Läufe einer Ihrer gespeicherten Suchen gefunden haben und die noch " +
      "veröffentlicht sind, zuletzt gefundene zuerst.",
      "Returns the listings the runs of one of your saved searches found that are still published, newest found " +
      "first, with their public fields: {saved_search, items, total, page, page_size}. Use it after the event " +
      "matches.new. An unknown id or one of another account answers not_found.",
    ].join("\n\n"),
    input: z.strictObject({ saved_search_id: searchId, ...pagingFields }),
    output: z.object({ saved_search: savedSearchSchema, ...pageOf(listingSchema).shape }),
    annotations: READ_ONLY,
  }, async ({ saved_search_id, ...paging }, principal) => {
    const res = await getSavedSearchMatches(deps, seekerOf(principal), saved_search_id, paging);
    const name = res.saved_search.name ? ` „${res.saved_search.name}“` : "";
    return { data: res, text: pageText(res, `Treffer der Suche${name}`) };
  });

  addTool(server, deps, {
    name: "delete_saved_search",
    title: "Suche löschen / Delete a saved search",
    description: [
      "Löscht eine Ihrer gespeicherten Suchen mit ihren Treffern; sie wird danach nicht mehr ausgeführt.",
      "Deletes one of your saved searches and its stored matches; it is no longer run. Returns " +
      "{saved_search_id, deleted: true}. An unknown id, one already deleted or one of another account answers " +
      "not_found and changes nothing.",
    ].join("\n\n"),
    input: z.strictObject({ saved_search_id: searchId }),
    output: z.object({ saved_search_id: z.string(), deleted: z.literal(true) }),
    annotations: DESTROYS,
  }, async ({ saved_search_id }, principal) => {
    await actAs(deps, principal, (a) => deleteSavedSearch(a, saved_search_id));
    return {
      data: { saved_search_id: saved_search_id.toLowerCase(), deleted: true as const },
      text: `Gespeicherte Suche ${saved_search_id.toLowerCase()} gelöscht.`,
    };
  });
}
