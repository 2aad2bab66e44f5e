/**
 * The provider's stock tools (list_properties, get_property, create_property, update_property, publish_property,
 * withdraw_property) through real clients of all three kinds: the whole lifecycle against the public REST
 * catalogue and the seeker's get_property, publication rules, unique references, argument checks, annotations,
 * and isolation between offices (another office's id answers exactly like an unknown one and changes nothing).
 */
import assert from "node:assert/strict";
import { createApiKey } from "../auth/api_keys.ts";
import { LISTING_FIELDS } from "../catalogue/listing.ts";
import { NO_DETAILS } from "../catalogue/listing_details.ts";
import { insertUser, startMembership } from "../db/accounts.ts";
import { ensureOffice } from "../db/offices.ts";
import { ADDS, DESTROYS, READ_ONLY, UPDATES } from "../mcp/tools/define.ts";
import { request } from "./helpers.ts";
import { CLIENT_KINDS, connectClient, type ConnectedClient, mcpWorld } from "./mcp_helpers.ts";

const w = await mcpWorld();
const db = w.tdb.db;

// A second office with its own provider and key.
const office2 = await ensureOffice(db, "Zweites Testbüro");
const provider2 = await insertUser(db, { email: "zweit@example.org", name: "Zweit", role: "seeker" });
await startMembership(db, provider2, office2);
const key2 = (await createApiKey(db, provider2, "Zweitbüro")).key;

const TOOLS = {
  list_properties: READ_ONLY,
  get_property: READ_ONLY,
  create_property: ADDS,
  update_property: UPDATES,
  publish_property: UPDATES,
  withdraw_property: DESTROYS,
};

// deno-lint-ignore no-explicit-any
type Json = any;

/** The structured content of a successful call. */
async function ok(c: ConnectedClient, name: string, args: Record<string, unknown>): Promise<Json> {
  const res = await c.callTool(name, args);
  assert.notEqual(res.isError, true, `${name}: ${JSON.stringify(res.content)}`);
  return res.structuredContent;
}

/** The error code of a failed call, checking the error shape. */
async function fails(c: ConnectedClient, name: string, args: Record<string, unknown>): Promise<string> {
  const res = await c.callTool(name, args);
  assert.equal(res.isError, true, `${name} should fail: ${JSON.stringify(res.structuredContent)}`);
  assert.equal(res.structuredContent, undefined);
  return JSON.parse(res.content[0].text).error;
}

/** The stored listing row with its contact (to compare before and after). */
async function row(id: string): Promise<Json> {
  const l = await db.kysely.selectFrom("listings").selectAll().where("id", "=", id).executeTakeFirst();
  const c = await db.kysely.selectFrom("listing_contacts").selectAll().where("listing_id", "=", id)
    .executeTakeFirst();
  return { l, c: c ?? null };
}

/** Number of listings of an office. */
async function countOf(officeId: string): Promise<number> {
  const r = await db.kysely.selectFrom("listings").select((eb) => eb.fn.countAll<number>().as("n"))
    .where("office_id", "=", officeId).executeTakeFirstOrThrow();
  return Number(r.n);
}

/** The domain clock as ISO string. */
const nowIso = () => new Date(w.t.now()).toISOString();

/** Status and body of the public REST listing `id`. */
async function restById(id: string): Promise<{ status: number; body: Json }> {
  const res = await request(w.t.app, `/api/public/properties/${id}`);
  return { status: res.status, body: await res.json() };
}

/** Ids of the public REST search for `city`. */
async function restSearchIds(city: string): Promise<string[]> {
  const res = await request(w.t.app, `/api/public/properties?city=${encodeURIComponent(city)}`);
  assert.equal(res.status, 200);
  return (await res.json()).items.map((i: Json) => i.id);
}

Deno.test("provider stock tools in every client kind", async (t) => {
  const seeker = await connectClient("v2-modern", w.url, w.seeker.key);
  try {
    for (const kind of CLIENT_KINDS) {
      const c = await connectClient(kind, w.url, w.provider.key);
      const c2 = await connectClient(kind, w.url, key2);
      try {
        await t.step(`${kind}: tools/list shows the stock tools with their annotations`, async () => {
          const { tools } = await c.listTools();
          for (const [name, ann] of Object.entries(TOOLS)) {
            const tool = tools.find((x) => x.name === name);
            assert.ok(tool, `${name} listed`);
            assert.ok(tool.outputSchema, `${name} has an output schema`);
            for (const k of ["readOnlyHint", "destructiveHint", "idempotentHint", "openWorldHint"] as const) {
              assert.equal(tool.annotations?.[k], ann[k], `${name}.${k}`);
            }
          }
          assert.equal(tools.filter((x) => x.name === "get_property").length, 1);
          const seekerTools = (await seeker.listTools()).tools.map((x) => x.name);
          assert.ok(!seekerTools.includes("create_property") && !seekerTools.includes("list_properties"));
        });

        await t.step(
          `${kind}: lifecycle create → update → publish → update → withdraw → publish`,
          async () => {
            const city = `Bestandheim ${kind}`;
            const created = await ok(c, "create_property", {
              reference: `LC-${kind}`,
              title: "Helle Wohnung",
              description: "Intern: Schlüssel beim Hausmeister.",
              city,
              postal_code: "10115",
              property_type: "apartment",
              transaction_type: "rent",
              asked_price: 1250.5,
              total_rooms: 3.5,
              square_meters: 82,
              latitude: 52.53,
              longitude: 13.38,
              contact: {
                provider_name: "Geheim Immobilien GmbH",
                contact_name: "Frau Muster",
                contact_email: "muster@example.org",
                contact_phone: "+49 30 1234567",
              },
            });
            const id = created.id;
            assert.deepEqual(
              { ...created, id: "x" },
              {
                id: "x",
                title: "Helle Wohnung",
                city,
                postal_code: "10115",
                property_type: "apartment",
                transaction_type: "rent",
                asked_price: 1250.5,
                total_rooms: 3.5,
                square_meters: 82,
                latitude: 52.53,
                longitude: 13.38,
                beispiel: false,
                status: "draft",
                reference: `LC-${kind}`,
                description: "Intern: Schlüssel beim Hausmeister.",
                contact: {
                  provider_name: "Geheim Immobilien GmbH",
                  contact_name: "Frau Muster",
                  contact_email: "muster@example.org",
                  contact_phone: "+49 30 1234567",
                },
                created_at: nowIso(),
                updated_at: nowIso(),
                published_at: null,
                ...NO_DETAILS,
              },
            );
            const stored = await row(id);
            assert.equal(stored.l.office_id, w.officeId);
            assert.equal(stored.l.status, "draft");
            assert.equal(stored.l.created_at.toISOString(), nowIso());
            assert.equal(stored.c.contact_email, "muster@example.org");
            assert.deepEqual(await ok(c, "get_property", { id }), { ...created, dateien: [], fotos: [] });
            assert.deepEqual(await ok(c, "get_property", { id: id.toUpperCase() }), {
              ...created,
              dateien: [],
              fotos: [],
            });
            // A draft is not public.
            assert.equal((await restById(id)).status, 404);
            assert.equal(await fails(seeker, "get_property", { id }), "not_found");

            w.t.advance(60_000);
            const updated = await ok(c, "update_property", {
              id,
              title: "Helle Wohnung mit Balkon",
              asked_price: null,
              contact: { contact_phone: null },
            });
            assert.equal(updated.title, "Helle Wohnung mit Balkon");
            assert.equal(updated.asked_price, null);
            assert.equal(updated.description, created.description);
            assert.deepEqual(updated.contact, { ...created.contact, contact_phone: null });
            assert.equal(updated.created_at, created.created_at);
            assert.equal(updated.updated_at, nowIso());
            assert.equal(updated.status, "draft");
            assert.equal((await row(id)).l.asked_price, null);

            w.t.advance(60_000);
            const published = await ok(c, "publish_property", { id });
            const firstPublication = nowIso();
            assert.equal(published.status, "published");
            assert.equal(published.published_at, firstPublication);
            assert.equal(published.updated_at, firstPublication);
            const rest = await restById(id);
            assert.equal(rest.status, 200);
            assert.deepEqual(Object.keys(rest.body).sort(), [...LISTING_FIELDS].sort());
            assert.deepEqual(rest.body, Object.fromEntries(LISTING_FIELDS.map((k) => [k, published[k]])));
            assert.deepEqual(await ok(seeker, "get_property", { id }), { ...rest.body, ...NO_DETAILS });
            assert.deepEqual(await restSearchIds(city), [id]);

            // Publishing again changes nothing.
            w.t.advance(60_000);
            assert.deepEqual(await ok(c, "publish_property", { id }), published);
            assert.equal((await row(id)).l.updated_at.toISOString(), firstPublication);

            // Changing a published listing changes the public view at once; it stays published.
            const changed = await ok(c, "update_property", { id, title: "Neu: Balkon", asked_price: 1300 });
            assert.equal(changed.status, "published");
            assert.equal(changed.updated_at, nowIso());
            assert.equal(changed.published_at, firstPublication);
            const rest2 = await restById(id);
            assert.equal(rest2.body.title, "Neu: Balkon");
            assert.equal(rest2.body.asked_price, 1300);
            assert.deepEqual(await ok(seeker, "get_property", { id }), { ...rest2.body, ...NO_DETAILS });

            // A published listing cannot lose a field it needs.
            const before = await row(id);
            const clearing = await c.callTool("update_property", {
              id,
              title: null,
              city: null,
              postal_code: null,
            });
            assert.equal(clearing.isError, true);
            assert.equal(JSON.parse(clearing.content[0].text).error, "conflict");
            assert.match(clearing.content[1].text, /title, city or postal_code/);
            assert.deepEqual(await row(id), before);

            w.t.advance(60_000);
            const withdrawn = await ok(c, "withdraw_property", { id });
            assert.equal(withdrawn.status, "withdrawn");
            assert.equal(withdrawn.updated_at, nowIso());
            assert.equal((await restById(id)).status, 404);
            assert.deepEqual(await restById(id), { status: 404, body: { error: "not_found" } });
            assert.equal(await fails(seeker, "get_property", { id }), "not_found");
            assert.deepEqual(await restSearchIds(city), []);
            // Withdrawing again changes nothing.
            w.t.advance(60_000);
            assert.deepEqual(await ok(c, "withdraw_property", { id }), withdrawn);

            // Publishing again keeps the time of the first publication.
            const again = await ok(c, "publish_property", { id });
            assert.equal(again.status, "published");
            assert.equal(again.published_at, firstPublication);
            assert.equal(again.updated_at, nowIso());
            assert.equal((await restById(id)).status, 200);
            await ok(c, "withdraw_property", { id });
            assert.equal((await restById(id)).status, 404);
          },
        );

        await t.step(
          `${kind}: publishing without the needed fields is a conflict and changes nothing`,
          async () => {
            const draft = await ok(c, "create_property", { description: "Nur eine Notiz" });
            assert.deepEqual(draft.contact, {
              provider_name: null,
              contact_name: null,
              contact_email: null,
              contact_phone: null,
            });
            assert.equal((await row(draft.id)).c, null);
            const before = await row(draft.id);
            w.t.advance(1000);
            const res = await c.callTool("publish_property", { id: draft.id });
            assert.equal(res.isError, true);
            assert.equal(JSON.parse(res.content[0].text).error, "conflict");
            assert.match(res.content[1].text, /title, property_type, transaction_type, city or postal_code/);
            assert.deepEqual(await row(draft.id), before);

            await ok(c, "update_property", { id: draft.id, title: "Baugrund", property_type: "land" });
            const res2 = await c.callTool("publish_property", { id: draft.id });
            assert.equal(JSON.parse(res2.content[0].text).error, "conflict");
            assert.match(res2.content[1].text, /: transaction_type, city or postal_code$/);
            assert.equal((await row(draft.id)).l.status, "draft");

            // A postal code is enough as the place.
            await ok(c, "update_property", { id: draft.id, transaction_type: "buy", postal_code: "80331" });
            assert.equal((await ok(c, "publish_property", { id: draft.id })).status, "published");
            assert.equal((await restById(draft.id)).status, 200);
            await ok(c, "withdraw_property", { id: draft.id });
          },
        );

        await t.step(`${kind}: a reference is unique within an office`, async () => {
          const ref = `DUP-${kind}`;
          const first = await ok(c, "create_property", { reference: ref, title: "Erstes" });
          const n = await countOf(w.officeId);
          assert.equal(await fails(c, "create_property", { reference: ref, title: "Zweites" }), "conflict");
          assert.equal(await countOf(w.officeId), n);
          const other = await ok(c, "create_property", { reference: `${ref}-B` });
          const before = await row(other.id);
          assert.equal(
            await fails(c, "update_property", { id: other.id, reference: ref, title: "x" }),
            "conflict",
          );
          assert.deepEqual(await row(other.id), before);
          // Another office may use the same reference.
          const foreign = await ok(c2, "create_property", { reference: ref });
          assert.equal((await row(foreign.id)).l.office_id, office2);
          // Clearing and reusing works.
          await ok(c, "update_property", { id: first.id, reference: null });
          assert.equal((await ok(c, "update_property", { id: other.id, reference: ref })).reference, ref);
        });

        await t.step(`${kind}: invalid arguments are refused and change nothing`, async () => {
          const target = await ok(c, "create_property", { title: "Ziel", postal_code: "01067" });
          const before = await row(target.id);
          const n = await countOf(w.officeId);
          const bad: Array<Record<string, unknown>> = [
            { postal_code: "1234" },
            { postal_code: "123456" },
            { asked_price: -1 },
            { total_rooms: -0.5 },
            { square_meters: 1e15 },
            { property_type: "castle" },
            { transaction_type: "lease" },
            { latitude: 91 },
            { longitude: -181 },
            { title: "x".repeat(301) },
            { city: "y".repeat(101) },
            { reference: "r".repeat(101) },
            { contact: { contact_email: "keine-adresse" } },
            { contact: { contact_phone: "1".repeat(51) } },
            { unknown_field: 1 },
            // Single-line fields refuse control characters: line breaks, tabs, C1.
            { title: "Zeile eins\r\nZeile zwei" },
            { title: "Zeile eins\nZeile zwei" },
            { title: "Tab\tTitel" },
            { reference: "R\n1" },
            { contact: { contact_name: "Frau\nMuster" } },
            { contact: { provider_name: "Makler\u0085GmbH" } },
            { contact: { contact_phone: "030\r\n123" } },
          ];
          for (const args of bad) {
            const label = JSON.stringify(args).slice(0, 60);
            assert.equal(await fails(c, "create_property", args), "invalid_arguments", `create ${label}`);
            assert.equal(
              await fails(c, "update_property", { id: target.id, ...args }),
              "invalid_arguments",
              `update ${label}`,
            );
          }
          assert.equal(await fails(c, "list_properties", { page_size: 61 }), "invalid_arguments");
          assert.equal(await fails(c, "list_properties", { status: "archived" }), "invalid_arguments");
          assert.equal(await fails(c, "get_property", { id: "x".repeat(101) }), "invalid_arguments");
          assert.equal(await countOf(w.officeId), n);
          assert.deepEqual(await row(target.id), before);
        });

        await t.step(
          `${kind}: another office's ids answer exactly like unknown ones and change nothing`,
          async () => {
            const draft = await ok(c, "create_property", {
              title: "Fremder Entwurf",
              property_type: "house",
              transaction_type: "buy",
              city: "Köln",
              contact: { contact_name: "Herr Geheim" },
            });
            const pub = await ok(c, "create_property", {
              title: "Fremd veröffentlicht",
              property_type: "house",
              transaction_type: "buy",
              city: "Köln",
            });
            await ok(c, "publish_property", { id: pub.id });
            const ids = [draft.id, pub.id, w.listingId];
            const before = await Promise.all(ids.map(row));
            const reference = await c2.callTool("get_property", { id: crypto.randomUUID() });
            assert.equal(reference.isError, true);
            assert.deepEqual(JSON.parse(reference.content[0].text), { error: "not_found" });

            w.t.advance(1000);
            const attempts: Array<[string, Record<string, unknown>]> = [
              ["get_property", { id: draft.id }],
              ["get_property", { id: pub.id }],
              ["get_property", { id: w.listingId }],
              ["update_property", { id: draft.id, title: "gekapert" }],
              ["update_property", { id: pub.id, contact: null }],
              ["publish_property", { id: draft.id }],
              ["withdraw_property", { id: pub.id }],
              ["withdraw_property", { id: w.listingId }],
              ["get_property", { id: "kein-objekt" }],
              ["update_property", { id: "'; drop table listings; --", title: "x" }],
              ["publish_property", { id: "" }],
              ["withdraw_property", { id: crypto.randomUUID() }],
              ["update_property", { id: crypto.randomUUID(), title: "x" }],
            ];
            for (const [name, args] of attempts) {
              const res = await c2.callTool(name, args);
              assert.deepEqual(
                { isError: res.isError, content: res.content, structuredContent: res.structuredContent },
                { isError: true, content: reference.content, structuredContent: undefined },
                `${name} ${JSON.stringify(args)}`,
              );
            }
            assert.deepEqual(await Promise.all(ids.map(row)), before);
            assert.equal((await restById(pub.id)).status, 200);

            // Each office lists only its own listings.
            const mine = await ok(c, "list_properties", { page_size: 60 });
            const theirs = await ok(c2, "list_properties", { page_size: 60 });
            assert.equal(mine.total, await countOf(w.officeId));
            assert.equal(theirs.total, await countOf(office2));
            const theirIds = new Set(theirs.items.map((i: Json) => i.id));
            for (const id of ids) assert.ok(!theirIds.has(id));
            await ok(c, "withdraw_property", { id: pub.id });
          },
        );

        await t.step(`${kind}: list_properties pages, filters by status, newest update first`, async () => {
          const total = await countOf(w.officeId);
          const all = await ok(c, "list_properties", {});
          assert.equal(all.total, total);
          assert.equal(all.page, 1);
          assert.equal(all.page_size, 24);
          assert.deepEqual(Object.keys(all.items[0]).sort(), [
            "asked_price",
            "city",
            "id",
            "postal_code",
            "property_type",
            "published_at",
            "reference",
            "status",
            "title",
            "transaction_type",
            "updated_at",
          ]);
          const stamps = all.items.map((i: Json) => i.updated_at);
          assert.deepEqual(stamps, [...stamps].sort().reverse());

          const p1 = await ok(c, "list_properties", { page: 1, page_size: 2 });
          const p2 = await ok(c, "list_properties", { page: 2, page_size: 2 });
          assert.equal(p1.items.length, 2);
          assert.deepEqual([...p1.items, ...p2.items], all.items.slice(0, 4));
          const far = await ok(c, "list_properties", { page: 1000, page_size: 60 });
          assert.deepEqual(far.items, []);
          assert.equal(far.total, total);

          for (const status of ["draft", "published", "withdrawn"] as const) {
            const page = await ok(c, "list_properties", { status, page_size: 60 });
            const r = await db.kysely.selectFrom("listings").select("id").where("office_id", "=", w.officeId)
              .where("status", "=", status).execute();
            assert.equal(page.total, r.length, status);
            assert.ok(page.items.every((i: Json) => i.status === status));
            assert.deepEqual(new Set(page.items.map((i: Json) => i.id)), new Set(r.map((x) => x.id)));
          }
        });
      } finally {
        await c.close();
        await c2.close();
      }
    }
  } finally {
    await seeker.close();
    await w.close();
  }
});
