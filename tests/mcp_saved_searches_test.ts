/**
 * Saved searches on the seeker server through real MCP clients of all three kinds, with the controllable clock:
 * create (rules, the limit of 20 also under concurrent calls), list, runs (matches stored, exactly one
 * `matches.new` outbox row per search and run with the right count, none when nothing is new, exactly once under
 * two concurrent runs), matches (still published only), delete, and isolation against a second seeker.
 */
import assert from "node:assert/strict";
import { createApiKey } from "../auth/api_keys.ts";
import { insertUser } from "../db/accounts.ts";
import { insertListings, type NewListing, setListingStatus } from "../db/listings.ts";
import { listOutbox } from "../db/outbox.ts";
import { createSavedSearch, runSavedSearches, SAVED_SEARCH_MAX } from "../searches/saved_searches.ts";
import { request, seekerWho } from "./helpers.ts";
import { act } from "../deps.ts";
import { CLIENT_KINDS, connectClient, type ConnectedClient, mcpWorld } from "./mcp_helpers.ts";

const w = await mcpWorld();
const db = w.tdb.db;
const logs: Array<{ level: string; msg: string }> = [];
const runDeps = {
  ...w.t.deps,
  log: { log: (level: string, msg: string) => void logs.push({ level, msg }) },
};
const MINUTE = 60_000;

// The city of each client kind, so the runs of one kind's step never match another kind's searches.
const CITY: Record<string, string> = { "v2-modern": "Köln", "v2-legacy": "Bonn", "v1": "Aachen" };

function listing(city: string, p: Partial<NewListing> = {}): NewListing {
  return {
    status: "published",
    reference: null,
    title: `Altbauwohnung in ${city}`,
    description: "Beschreibung",
    city,
    postal_code: "50667",
    property_type: "apartment",
    transaction_type: "buy",
    asked_price: 250_000,
    total_rooms: 3,
    square_meters: 80,
    latitude: null,
    longitude: null,
    beispiel: false,
    published_at: new Date(w.t.now()),
    contact: {
      provider_name: "Büro",
      contact_name: "Frau Test",
      contact_email: "t@example.org",
      contact_phone: null,
    },
    ...p,
  };
}

async function publish(rows: NewListing[]): Promise<string[]> {
  return await insertListings(db, w.officeId, rows);
}

async function newSeeker(label: string): Promise<{ userId: string; key: string; keyId: string }> {
  const userId = await insertUser(db, { email: `${label}@example.org`, name: label, role: "seeker" });
  const k = await createApiKey(db, userId, `Schlüssel ${label}`);
  return { userId, key: k.key, keyId: k.id };
}

async function matchesOf(searchId: string): Promise<string[]> {
  const rows = await db.kysely.selectFrom("saved_search_matches").select("listing_id")
    .where("saved_search_id", "=", searchId).execute();
  return rows.map((r) => r.listing_id).sort();
}

async function searchRow(id: string) {
  return await db.kysely.selectFrom("saved_searches").selectAll().where("id", "=", id).executeTakeFirst();
}

async function eventsOf(searchId: string) {
  const rows = await listOutbox(db, { limit: 10_000, name: "matches.new" });
  return rows.filter((r) => r.data.saved_search_id === searchId).reverse(); // oldest first
}

async function countSearches(): Promise<number> {
  const r = await db.kysely.selectFrom("saved_searches").select((eb) => eb.fn.countAll<number>().as("n"))
    .executeTakeFirstOrThrow();
  return Number(r.n);
}

// deno-lint-ignore no-explicit-any
function errorOf(res: any): string {
  assert.equal(res.isError, true, JSON.stringify(res));
  return JSON.parse(res.content[0].text).error;
}

// deno-lint-ignore no-explicit-any
async function ok(client: ConnectedClient, tool: string, args: Record<string, unknown>): Promise<any> {
  const res = await client.callTool(tool, args);
  assert.notEqual(res.isError, true, `${tool}: ${JSON.stringify(res.content)}`);
  return res;
}

async function restListing(id: string): Promise<unknown> {
  const res = await request(w.t.app, `/api/public/properties/${id}`);
  assert.equal(res.status, 200);
  return await res.json();
}

Deno.test("saved searches through MCP in every client kind", async (t) => {
  try {
    for (const kind of CLIENT_KINDS) {
      await t.step(kind, async (t) => {
        const city = CITY[kind]!;
        const me = await newSeeker(`suche-${kind}`);
        const other = await newSeeker(`andere-${kind}`);
        const client = await connectClient(kind, w.url, me.key);
        const stranger = await connectClient(kind, w.url, other.key);
        try {
          let a = "";
          let b = "";
          const name = `Altbau ${city}`;

          await t.step("tools are listed with fitting annotations", async () => {
            const { tools } = await client.listTools();
            const hints = (n: string) => {
              const tool = tools.find((x) => x.name === n);
              assert.ok(tool?.outputSchema, n);
              return [tool.annotations?.readOnlyHint, tool.annotations?.destructiveHint];
            };
            assert.deepEqual(hints("create_saved_search"), [false, false]);
            assert.deepEqual(hints("list_saved_searches"), [true, false]);
            assert.deepEqual(hints("get_saved_search_matches"), [true, false]);
            assert.deepEqual(hints("delete_saved_search"), [false, true]);
            const create = tools.find((x) => x.name === "create_saved_search") as { description?: string };
            assert.match(create.description ?? "", new RegExp(`${SAVED_SEARCH_MAX}`));
          });

          await t.step("create_saved_search stores the search with last_run_at = now", async () => {
            const filters = { city, transaction_type: "buy", property_type: "apartment" };
            const res = await ok(client, "create_saved_search", { name: `  ${name} `, filters });
            a = res.structuredContent.id;
            const now = new Date(w.t.now()).toISOString();
            assert.deepEqual(res.structuredContent, {
              id: a,
              name,
              filters,
              created_at: now,
              last_run_at: now,
            });
            assert.match(res.content[0].text, new RegExp(name));
            const row = await searchRow(a);
            assert.equal(row?.seeker_id, me.userId);
            assert.equal(row?.name, name);
            assert.deepEqual(row?.filters, filters);
            assert.equal(new Date(row!.last_run_at).getTime(), w.t.now());
            assert.equal(new Date(row!.created_at).getTime(), w.t.now());

            w.t.advance(1000);
            const res2 = await ok(client, "create_saved_search", { filters: { city, max_price: 300_000 } });
            b = res2.structuredContent.id;
            assert.equal(res2.structuredContent.name, null);
            assert.deepEqual(res2.structuredContent.filters, { city, max_price: 300_000 });
          });

          await t.step("create_saved_search refuses bad input and stores nothing", async () => {
            const before = await countSearches();
            const bad: Array<[Record<string, unknown>, string]> = [
              [{ filters: {} }, "invalid_request"],
              [{ name: "leer", filters: { min_price: 500, max_price: 100 } }, "invalid_request"],
              [{ filters: { city, colour: "red" } }, "invalid_arguments"],
              [{ filters: { property_type: "castle" } }, "invalid_arguments"],
              [{ filters: { min_sqm: -1 } }, "invalid_arguments"],
              [{ filters: { city: "Köln\u0085" } }, "invalid_arguments"],
              [{ filters: { city: "K\ud800ln" } }, "invalid_arguments"],
              [{ name: "x".repeat(201), filters: { city } }, "invalid_arguments"],
              [{ name: "ok" }, "invalid_arguments"],
            ];
            for (const [args, code] of bad) {
              assert.equal(
                errorOf(await client.callTool("create_saved_search", args)),
                code,
                JSON.stringify(args),
              );
            }
            assert.equal(await countSearches(), before);
          });

          await t.step("list_saved_searches lists only the caller's own, newest first", async () => {
            const res = await ok(client, "list_saved_searches", {});
            assert.equal(res.structuredContent.total, 2);
            assert.deepEqual(res.structuredContent.items.map((s: { id: string }) => s.id), [b, a]);
            assert.equal(res.structuredContent.page, 1);
            assert.equal(res.structuredContent.page_size, 24);
            const paged = await ok(client, "list_saved_searches", { page: 2, page_size: 1 });
            assert.deepEqual(paged.structuredContent.items.map((s: { id: string }) => s.id), [a]);
            const theirs = await ok(stranger, "list_saved_searches", {});
            assert.deepEqual(theirs.structuredContent, { items: [], total: 0, page: 1, page_size: 24 });
          });

          let first: string[] = [];
          let cheap = "";
          await t.step("a run stores matches and writes one matches.new row per search", async () => {
            // published before the search existed: never new
            await publish([listing(city, { published_at: new Date(w.t.now() - 10 * MINUTE) })]);
            w.t.advance(MINUTE);
            first = await publish([
              listing(city, { asked_price: 250_000 }),
              listing(city, { asked_price: 400_000 }),
            ]);
            cheap = first[0]!;
            await publish([
              listing(city, { transaction_type: "rent", asked_price: 900 }), // B matches it, A does not
              listing("Nirgendwo", {}),
              listing(city, { status: "draft", published_at: null }),
              listing(city, { status: "withdrawn" }),
            ]);
            const rent = (await db.kysely.selectFrom("listings").select("id").where("city", "=", city)
              .where("transaction_type", "=", "rent").executeTakeFirstOrThrow()).id;
            w.t.advance(1000);
            const runAt = w.t.now();
            const r = await runSavedSearches(runDeps);
            assert.equal(r.searches, await countSearches());
            assert.equal(r.events, 2);

            assert.deepEqual(await matchesOf(a), [...first].sort());
            assert.deepEqual(await matchesOf(b), [cheap, rent].sort());
            assert.equal(new Date((await searchRow(a))!.last_run_at).getTime(), runAt);

            const [ea, eb] = [await eventsOf(a), await eventsOf(b)];
            assert.equal(ea.length, 1);
            assert.equal(eb.length, 1);
            assert.deepEqual(ea[0]!.data, {
              saved_search_id: a,
              count: 2,
              satz: `2 neue Treffer für Ihre Suche „${name}“.`,
            });
            assert.deepEqual(eb[0]!.data, {
              saved_search_id: b,
              count: 2,
              satz: "2 neue Treffer für Ihre gespeicherte Suche.",
            });
            for (const e of [ea[0]!, eb[0]!]) {
              assert.equal(e.server, "suche");
              assert.equal(e.ownerUserId, me.userId);
              assert.equal(e.ownerOfficeId, null);
              assert.equal(e.originClientId, null);
              assert.equal(e.originApiKeyId, null);
              assert.equal(e.createdAt.getTime(), runAt);
            }
          });

          await t.step("get_saved_search_matches returns the public listings, total and paging", async () => {
            const res = await ok(client, "get_saved_search_matches", { saved_search_id: a });
            const sc = res.structuredContent;
            assert.equal(sc.saved_search.id, a);
            assert.equal(sc.total, 2);
            assert.deepEqual(sc.items.map((l: { id: string }) => l.id).sort(), [...first].sort());
            for (const item of sc.items) assert.deepEqual(item, await restListing(item.id));
            assert.match(res.content[0].text, /^2 Treffer der Suche/);
            const page2 = await ok(client, "get_saved_search_matches", {
              saved_search_id: a.toUpperCase(),
              page: 2,
              page_size: 1,
            });
            assert.equal(page2.structuredContent.total, 2);
            assert.deepEqual(page2.structuredContent.items, [sc.items[1]]);
          });

          await t.step("a second run with nothing new writes no row", async () => {
            w.t.advance(MINUTE);
            const r = await runSavedSearches(runDeps);
            assert.equal(r.events, 0);
            assert.equal((await eventsOf(a)).length, 1);
            assert.equal((await eventsOf(b)).length, 1);
          });

          let later = "";
          await t.step("a listing published later: the next run counts 1", async () => {
            later = (await publish([listing(city, { asked_price: 500_000 })]))[0]!;
            w.t.advance(MINUTE);
            const r = await runSavedSearches(runDeps);
            assert.equal(r.events, 1);
            const ea = await eventsOf(a);
            assert.equal(ea.length, 2);
            assert.deepEqual(ea[1]!.data, {
              saved_search_id: a,
              count: 1,
              satz: `1 neuer Treffer für Ihre Suche „${name}“.`,
            });
            assert.equal((await eventsOf(b)).length, 1);
            const res = await ok(client, "get_saved_search_matches", { saved_search_id: a });
            assert.equal(res.structuredContent.items[0].id, later, "newest found first");
          });

          await t.step("matches that are no longer published are left out", async () => {
            assert.ok(await setListingStatus(db.kysely, cheap, "withdrawn", new Date()));
            const res = await ok(client, "get_saved_search_matches", { saved_search_id: a });
            assert.equal(res.structuredContent.total, 2);
            assert.ok(!res.structuredContent.items.some((l: { id: string }) => l.id === cheap));
          });

          await t.step("two concurrent runs: exactly one row per search and run", async () => {
            const fresh = await publish([
              listing(city, { asked_price: 200_000 }),
              listing(city, { asked_price: 210_000 }),
            ]);
            w.t.advance(MINUTE);
            const total = await countSearches();
            const [r1, r2] = await Promise.all([runSavedSearches(runDeps), runSavedSearches(runDeps)]);
            assert.equal(r1.searches + r2.searches, total);
            assert.equal(r1.events + r2.events, 2);
            const [ea, eb] = [await eventsOf(a), await eventsOf(b)];
            assert.equal(ea.length, 3);
            assert.equal(eb.length, 2);
            assert.equal(ea[2]!.data.count, 2);
            assert.equal(eb[1]!.data.count, 2);
            for (const id of fresh) {
              assert.ok((await matchesOf(a)).includes(id));
              assert.ok((await matchesOf(b)).includes(id));
            }
          });

          await t.step("isolation: another seeker gets the same not_found and changes nothing", async () => {
            const matchesBefore = await matchesOf(a);
            const searchesBefore = await countSearches();
            const answers: unknown[] = [];
            const attempts: Array<[string, Record<string, unknown>]> = [
              ["get_saved_search_matches", { saved_search_id: a }],
              ["get_saved_search_matches", { saved_search_id: "kein-suchauftrag" }],
              ["get_saved_search_matches", { saved_search_id: crypto.randomUUID() }],
              ["get_saved_search_matches", { saved_search_id: "" }],
              ["delete_saved_search", { saved_search_id: a }],
              ["delete_saved_search", { saved_search_id: b.toUpperCase() }],
              ["delete_saved_search", { saved_search_id: "'; drop table saved_searches; --" }],
              ["delete_saved_search", { saved_search_id: crypto.randomUUID() }],
            ];
            for (const [tool, args] of attempts) {
              const res = await stranger.callTool(tool, args);
              assert.equal(errorOf(res), "not_found", `${tool} ${JSON.stringify(args)}`);
              answers.push(res.content);
            }
            // the owner gets the very same answer for malformed and unknown ids
            answers.push(
              (await client.callTool("delete_saved_search", { saved_search_id: crypto.randomUUID() }))
                .content,
            );
            answers.push(
              (await client.callTool("get_saved_search_matches", { saved_search_id: "x" })).content,
            );
            for (const c of answers) assert.deepEqual(c, answers[0]);
            assert.equal(await countSearches(), searchesBefore);
            assert.deepEqual(await matchesOf(a), matchesBefore);
            assert.ok(await searchRow(a));
            assert.ok(await searchRow(b));
          });

          await t.step(
            `the ${SAVED_SEARCH_MAX + 1}st saved search is a conflict, also when racing`,
            async () => {
              for (let i = 0; i < SAVED_SEARCH_MAX - 4; i++) {
                await act(runDeps, seekerWho(me.userId), (a) =>
                  createSavedSearch(a, {
                    name: `Füller ${i}`,
                    filters: { city: "Nirgendwo2" },
                  }));
              }
              const race = await Promise.all(
                [1, 2, 3].map((i) =>
                  client.callTool("create_saved_search", { filters: { city: "Nirgendwo2", min_rooms: i } })
                ),
              );
              assert.equal(race.filter((r) => r.isError !== true).length, 2);
              assert.deepEqual(race.filter((r) => r.isError === true).map(errorOf), ["conflict"]);
              assert.equal(
                errorOf(await client.callTool("create_saved_search", { filters: { city } })),
                "conflict",
              );
              const list = await ok(client, "list_saved_searches", { page: 4, page_size: 6 });
              assert.equal(list.structuredContent.total, SAVED_SEARCH_MAX);
              assert.equal(list.structuredContent.items.length, 2);
              // the other seeker is not limited by this one's searches
              await ok(stranger, "create_saved_search", { filters: { city: "Nirgendwo3" } });
            },
          );

          await t.step(
            "delete_saved_search removes the search and its matches; again → not_found",
            async () => {
              const res = await ok(client, "delete_saved_search", { saved_search_id: b });
              assert.deepEqual(res.structuredContent, { saved_search_id: b, deleted: true });
              assert.equal(await searchRow(b), undefined);
              assert.deepEqual(await matchesOf(b), []);
              assert.equal(
                errorOf(await client.callTool("delete_saved_search", { saved_search_id: b })),
                "not_found",
              );
              assert.equal(
                errorOf(await client.callTool("get_saved_search_matches", { saved_search_id: b })),
                "not_found",
              );
              assert.ok(await searchRow(a));
              const list = await ok(client, "list_saved_searches", { page_size: 60 });
              assert.equal(list.structuredContent.total, SAVED_SEARCH_MAX - 1);
            },
          );
        } finally {
          await client.close();
          await stranger.close();
        }
      });
    }
    assert.deepEqual(logs.filter((l) => l.level === "error"), []);
  } finally {
    await w.close();
  }
});
