/**
 * The OpenImmo stock import end to end: `deno task openimmo:import` as a child process on the test database
 * (ISO-8859-1 and UTF-8 fixtures, updates keyed by objektnr_extern, DELETE, --publish, --dry-run, --strict,
 * invalid objects, a broken file, bad usage) and the provider tool `import_openimmo` through a real MCP client
 * (a zip made here with fflate, re-import, bad Base64, broken zips). Another office holding the same external
 * numbers is never touched, and a broken file changes nothing.
 */
import assert from "node:assert/strict";
import { zipSync } from "fflate";
import { sql } from "kysely";
import { createApiKey } from "../auth/api_keys.ts";
import { insertUser, startMembership } from "../db/accounts.ts";
import type { Db } from "../db/connection.ts";
import { insertImported } from "../db/openimmo.ts";
import { ensureOffice } from "../db/offices.ts";
import { sendInquiryAs, serveTestApp } from "./helpers.ts";
import { connectClient, type ConnectedClient } from "./mcp_helpers.ts";
import { runDeno, type ServiceDb, serviceDb } from "./service_process.ts";
import { main } from "../tasks/openimmo_import.ts";
import { agentReactions } from "../agent/hooks.ts";

const FIXTURES = new URL("./fixtures/openimmo/", import.meta.url);
const fixturePath = (name: string) => new URL(name, FIXTURES).pathname;
const fixture = (name: string) => Deno.readFileSync(new URL(name, FIXTURES));

// deno-lint-ignore no-explicit-any
type Json = any;

/** Runs `deno task openimmo:import <args>` (the deno.json entry, with its permissions) against `env`'s database. */
async function importTask(args: string[], env: Record<string, string>) {
  return await runDeno(["task", "openimmo:import", ...args], env);
}

/** Output of an import run. */
interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

/**
 * The test database, opened at most once at a time: PGlite on disk admits one process, so the handle is closed
 * before a child process runs ({@linkcode child}) and opened again when the test needs it.
 */
class Shared {
  #db: Db | undefined;
  constructor(readonly sdb: ServiceDb) {}
  /** The open handle (opened on first use). */
  async db(): Promise<Db> {
    return this.#db ??= await this.sdb.open();
  }
  /** Closes the handle if open. */
  async release(): Promise<void> {
    await this.#db?.close();
    this.#db = undefined;
  }
  /** Runs the task as a child process (the way an operator runs it). */
  async child(args: string[]): Promise<Run> {
    await this.release();
    return await importTask(args, this.sdb.env);
  }
  /** Runs the task's `main` in this process on the open handle (quicker; same code as the child). */
  async inProcess(args: string[]): Promise<Run> {
    const db = await this.db();
    const out: string[] = [], err: string[] = [];
    const code = await main(args, {
      open: () =>
        Promise.resolve({
          kind: db.kind,
          kysely: db.kysely,
          search: db.search,
          execScript: (s) => db.execScript(s),
          listen: (...a) => db.listen(...a),
          close: () => Promise.resolve(),
        }),
      out: (l) => out.push(l),
      err: (l) => err.push(l),
      progress: false,
    });
    return { code, stdout: out.join("\n"), stderr: err.join("\n") };
  }
  /** A snapshot of every listing (see {@linkcode snapshot}). */
  async snapshot(): Promise<Record<string, Json>> {
    return await snapshot(await this.db());
  }
}

/** Every listing of the database with the columns the import writes, keyed `office/external_number`. */
async function snapshot(db: Db): Promise<Record<string, Json>> {
  const r = await sql<Json>`
    select office_id, external_number, id, status, reference, title, description, city, postal_code,
      property_type, transaction_type, asked_price::float8 as asked_price, total_rooms::float8 as total_rooms,
      square_meters::float8 as square_meters, latitude, longitude, updated_at, published_at
    from listings order by office_id, external_number, id`.execute(db.kysely);
  return Object.fromEntries(
    r.rows.map((x: Json) => [`${x.office_id}/${x.external_number ?? x.id}`, { ...x }]),
  );
}

/** The listing of `office` with external number `number` (as in {@linkcode snapshot}). */
function of(s: Record<string, Json>, office: string, number: string): Json {
  const l = s[`${office}/${number}`];
  assert.ok(l, `no listing ${number} in ${office}`);
  return l;
}

/** The listings of `office` in `s`. */
function officeRows(s: Record<string, Json>, office: string): Json[] {
  return Object.entries(s).filter(([k]) => k.startsWith(`${office}/`)).map(([, v]) => v);
}

Deno.test("openimmo:import and import_openimmo create, update and withdraw one office's listings", async (t) => {
  const sh = new Shared(await serviceDb());
  let officeA = "", officeB = "", foreign: Json[] = [];
  const A = (args: string[]) => [...args, "--office", officeA];
  try {
    await t.step("two offices; the other one already uses the same external numbers", async () => {
      const db = await sh.db();
      officeA = await ensureOffice(db, "Import Büro A");
      officeB = await ensureOffice(db, "Import Büro B");
      for (const n of ["OI-1001", "OI-2001", "OI-3001"]) {
        await insertImported(
          db.kysely,
          officeB,
          n,
          {
            reference: n === "OI-1001" ? "MÜ-17" : null,
            title: `Fremdes Objekt ${n}`,
            description: null,
            city: "Bonn",
            postal_code: "53111",
            property_type: "house",
            transaction_type: "buy",
            asked_price: 1,
            total_rooms: 1,
            square_meters: 1,
            latitude: null,
            longitude: null,
          },
          "draft",
          new Date("2020-01-01T00:00:00Z"),
        );
      }
      foreign = officeRows(await sh.snapshot(), officeB);
      assert.equal(foreign.length, 3);
    });

    await t.step("bad usage exits 2 and writes nothing", async () => {
      const noOffice = await sh.child([fixturePath("bestand_utf8.xml")]);
      assert.equal(noOffice.code, 2, noOffice.stderr);
      assert.match(noOffice.stderr, /usage: deno task openimmo:import/);
      const unknown = await sh.inProcess([fixturePath("bestand_utf8.xml"), "--office", "Niemand"]);
      assert.equal(unknown.code, 2, unknown.stderr);
      assert.match(unknown.stderr, /no office "Niemand"/);
      const missing = await sh.inProcess(A(["/nonexistent/x.xml"]));
      assert.equal(missing.code, 2);
      assert.match(missing.stderr, /cannot read/);
      const flag = await sh.inProcess(A([fixturePath("bestand_utf8.xml"), "--verbose"]));
      assert.equal(flag.code, 2);
      assert.equal(officeRows(await sh.snapshot(), officeA).length, 0);
    });

    await t.step("ISO-8859-1 file (child process): four drafts with every mapped field", async () => {
      const r = await sh.child(A([fixturePath("bestand_latin1.xml")]));
      assert.equal(r.code, 0, r.stderr);
      assert.match(r.stdout, /4 objects read \(xml, iso-8859-1\)/);
      assert.match(r.stdout, /created 4, updated 0, unchanged 0, withdrawn 0, invalid 0/);
      assert.match(r.stdout, /unmapped elements[^]*\n {2}ausstattung \(1 object: OI-1001\)/);
      assert.match(r.stderr, /importing \[#+\] 100%\s+4\/4/, "a progress bar");
      const s = await sh.snapshot();
      assert.equal(officeRows(s, officeA).length, 4);
      const a = of(s, officeA, "OI-1001");
      assert.deepEqual(
        [a.status, a.reference, a.title, a.description, a.city, a.postal_code, a.property_type],
        [
          "draft",
          "MÜ-17",
          "Helle Wohnung über den Dächern der Altstadt",
          "Ruhige Lage, große Küche, Südbalkon.",
          "München",
          "80331",
          "apartment",
        ],
      );
      assert.deepEqual(
        [a.transaction_type, a.asked_price, a.total_rooms, a.square_meters, a.latitude, a.longitude],
        ["buy", 485000, 3, 72.5, 48.1374, 11.5755],
      );
      const b = of(s, officeA, "OI-1002");
      assert.deepEqual([b.city, b.transaction_type, b.asked_price, b.total_rooms, b.square_meters], [
        "Köln",
        "rent",
        1234.5,
        4.5,
        118.25,
      ]);
      const land = of(s, officeA, "OI-1003");
      assert.deepEqual([land.property_type, land.square_meters], ["land", 612]);
      assert.equal(of(s, officeA, "OI-1004").property_type, "commercial", "objektnr_extern is trimmed");
      assert.deepEqual(officeRows(s, officeB), foreign);
    });

    await t.step(
      "UTF-8 file with --publish: complete objects published, the incomplete one stays a draft",
      async () => {
        const r = await sh.inProcess(A([fixturePath("bestand_utf8.xml"), "--publish"]));
        assert.equal(r.code, 0, r.stderr);
        assert.match(r.stdout, /created 2, updated 0, unchanged 0, withdrawn 0, invalid 0/);
        assert.match(r.stdout, /left as drafts[^]*OI-2002: title, transaction_type/);
        const s = await sh.snapshot();
        const villa = of(s, officeA, "OI-2001");
        assert.equal(villa.status, "published");
        assert.ok(villa.published_at);
        assert.equal(villa.title, "Stadtvilla „Elbblick“ – saniert");
        assert.equal(of(s, officeA, "OI-2002").status, "draft");
      },
    );

    let inquiry = "";
    /** The rejection proposals of the inquiry on OI-1003, with the origin of their proposal.pending. */
    const rejectionsOf = async (inquiryId: string) =>
      (await sql<{ status: string; origin: string | null }>`
        select p.status, o.origin_client_id as origin from proposals p
        join event_outbox o on o.name = 'proposal.pending' and o.data->>'vorschlag_id' = p.id::text
        where p.inquiry_id = ${inquiryId} and p.vorschlag_art = 'rejection'`.execute((await sh.db()).kysely))
        .rows;
    await t.step("a published listing of the update file has an open inquiry", async () => {
      const db = await sh.db();
      await sql`update listings set status = 'published', published_at = now()
        where office_id = ${officeA} and external_number = 'OI-1003'`.execute(db.kysely);
      const id = of(await sh.snapshot(), officeA, "OI-1003").id;
      const deps = { db, log: { log: () => {} }, reactions: agentReactions };
      inquiry = (await sendInquiryAs(deps, {
        listingId: id,
        inquirer: { seekerId: null, name: "Erika Muster", email: "erika@example.org", phone: null },
        message: "Ist das Haus noch frei?",
        quelle: "email",
      })).inquiryId;
    });

    let beforeUpdate: Record<string, Json> = {};
    await t.step("--dry-run reports the update but writes nothing", async () => {
      beforeUpdate = await sh.snapshot();
      const r = await sh.inProcess(A([fixturePath("bestand_update.xml"), "--dry-run"]));
      assert.equal(r.code, 0, r.stderr);
      assert.match(r.stdout, /created 1, updated 2, unchanged 1, withdrawn 1, invalid 0/);
      assert.match(r.stdout, /nothing was written/);
      assert.deepEqual(await sh.snapshot(), beforeUpdate);
      assert.deepEqual(await rejectionsOf(inquiry), [], "the dry run proposed nothing");
    });

    await t.step(
      "update keyed by objektnr_extern: changed, unchanged, DELETE, new; status kept",
      async () => {
        const r = await sh.inProcess(A([fixturePath("bestand_update.xml")]));
        assert.equal(r.code, 0, r.stderr);
        assert.match(r.stdout, /created 1, updated 2, unchanged 1, withdrawn 1, invalid 0/);
        const s = await sh.snapshot();
        assert.equal(officeRows(s, officeA).length, 7, "updates do not create duplicates");
        const flat = of(s, officeA, "OI-1001");
        const old = of(beforeUpdate, officeA, "OI-1001");
        assert.deepEqual({ ...flat, asked_price: old.asked_price, updated_at: old.updated_at }, old);
        assert.equal(flat.asked_price, 469000);
        assert.deepEqual(
          of(s, officeA, "OI-1002"),
          of(beforeUpdate, officeA, "OI-1002"),
          "unchanged: untouched",
        );
        assert.equal(of(s, officeA, "OI-1003").status, "withdrawn");
        // As withdraw_property: the agent proposes a rejection of the inquiry (the operator acted: no origin).
        assert.deepEqual(await rejectionsOf(inquiry), [{ status: "offen", origin: null }]);
        const villa = of(s, officeA, "OI-2001");
        assert.deepEqual([villa.status, villa.asked_price, villa.published_at], [
          "published",
          649000,
          of(beforeUpdate, officeA, "OI-2001").published_at,
        ]);
        const room = of(s, officeA, "OI-1005");
        assert.deepEqual([room.status, room.property_type], ["draft", "apartment"]);
        assert.deepEqual(officeRows(s, officeB), foreign);
      },
    );

    await t.step(
      "invalid objects are reported with number and reason; the valid one is imported",
      async () => {
        const before = await sh.snapshot();
        const strict = await sh.inProcess(A([fixturePath("bestand_ungueltig.xml"), "--strict"]));
        assert.equal(strict.code, 1, "--strict aborts on invalid objects");
        assert.match(strict.stderr, /--strict: invalid objects, nothing was imported/);
        assert.deepEqual(await sh.snapshot(), before);

        const r = await sh.inProcess(A([fixturePath("bestand_ungueltig.xml")]));
        assert.equal(r.code, 0, r.stderr);
        assert.match(r.stdout, /created 1, updated 0, unchanged 0, withdrawn 0, invalid 8/);
        const lines = r.stdout.split("\n");
        const reasonOf = (n: string) => lines.find((l) => l.startsWith(`  ${n} (`)) ?? `${n}: not reported`;
        assert.match(reasonOf("(no objektnr_extern)"), /\(object 1\): objektnr_extern is missing/);
        assert.match(reasonOf("BAD-PRICE"), /\(object 2\): kaufpreis\/kaltmiete: /);
        assert.match(reasonOf("BAD-ROOMS"), /\(object 3\): anzahl_zimmer: /);
        assert.match(reasonOf("BAD-KIND"), /objektart: unknown or unsupported kind "parken"/);
        assert.match(reasonOf("BAD-TEXT"), /kaufpreis: "viel Geld" is not a number/);
        assert.match(reasonOf("BAD-REF"), /objektnr_intern "MÜ-17" is the reference of another listing/);
        assert.match(reasonOf("NIE-DA"), /aktion DELETE: no listing of this office/);
        assert.match(reasonOf("OI-3001"), /\(object 9\): objektnr_extern appears more than once/);
        const s = await sh.snapshot();
        assert.equal(officeRows(s, officeA).length, 8);
        const shop = of(s, officeA, "OI-3001");
        assert.deepEqual([shop.property_type, shop.asked_price, shop.square_meters, shop.city], [
          "commercial",
          890000,
          210.5,
          "Bremen",
        ]);
        for (const n of ["BAD-PRICE", "BAD-ROOMS", "BAD-KIND", "BAD-TEXT", "BAD-REF"]) {
          assert.equal(s[`${officeA}/${n}`], undefined, n);
        }
        assert.deepEqual(officeRows(s, officeB), foreign);
      },
    );

    await t.step("a broken file (child process) exits 1 and changes nothing", async () => {
      const before = await sh.snapshot();
      const dir = await Deno.makeTempDir();
      try {
        const zip = zipSync({ "bestand.xml": fixture("bestand_update.xml") });
        await Deno.writeFile(`${dir}/cut.zip`, zip.subarray(0, zip.length - 30));
        const cut = await sh.inProcess(A([`${dir}/cut.zip`]));
        assert.equal(cut.code, 1);
        assert.match(cut.stderr, /broken file, nothing changed: not a readable zip/);
      } finally {
        await Deno.remove(dir, { recursive: true });
      }
      const r = await sh.child(A([fixturePath("kaputt.xml")]));
      assert.equal(r.code, 1);
      assert.match(r.stderr, /broken file, nothing changed: malformed XML at line \d+/);
      assert.deepEqual(await sh.snapshot(), before);
    });

    await toolSteps(t, await sh.db(), officeA, officeB, foreign);
  } finally {
    await sh.release();
    await sh.sdb.cleanup();
  }
});

/** The MCP part: the served app on the open database, a provider of office A with an API key. */
async function toolSteps(
  t: Deno.TestContext,
  db: Db,
  officeA: string,
  officeB: string,
  foreign: Json[],
): Promise<void> {
  const served = await serveTestApp(db);
  const { origin, app } = served;
  let client: ConnectedClient | undefined;
  try {
    const userId = await insertUser(db, { email: "import@example.org", name: "Import", role: "seeker" });
    await startMembership(db, userId, officeA);
    const key = (await createApiKey(db, userId, "Import")).key;
    client = await connectClient("v2-modern", `${origin}/mcp`, key);
    const c = client;
    const call = (args: Record<string, unknown>) => c.callTool("import_openimmo", args);
    const b64 = (bytes: Uint8Array) => btoa(Array.from(bytes, (b) => String.fromCharCode(b)).join(""));
    const failure = async (args: Record<string, unknown>) => {
      const res = await call(args);
      assert.equal(res.isError, true, JSON.stringify(res.structuredContent));
      return { code: JSON.parse(res.content[0].text).error, hint: res.content[1]?.text ?? "" };
    };

    await t.step("tool: the tool is listed with its annotations", async () => {
      const tool = (await c.listTools()).tools.find((x) => x.name === "import_openimmo");
      assert.ok(tool, "import_openimmo is listed");
      assert.equal(tool.annotations.readOnlyHint, false);
      assert.equal(tool.annotations.destructiveHint, true);
    });

    const zip = zipSync({
      "bilder/titel.jpg": new Uint8Array([0xff, 0xd8, 0xff, 0xe0, 0, 16]),
      "bestand.xml": fixture("bestand_latin1.xml"),
    });
    let first: Json;
    await t.step("tool: a zip with images re-imports the Latin-1 objects: all unchanged", async () => {
      const res = await call({ inhalt: b64(zip) });
      assert.notEqual(res.isError, true, JSON.stringify(res.content));
      first = res.structuredContent;
      assert.deepEqual(
        [first.container, first.encoding, first.objects, first.created, first.committed],
        ["zip", "iso-8859-1", 4, 0, true],
      );
      // OI-1001 got a new price in the update; OI-1003 was withdrawn (its fields kept, its status stays).
      assert.deepEqual(
        first.listings.map((l: Json) => [l.objektnr_extern, l.result, l.status]),
        [["OI-1001", "updated", "draft"], ["OI-1002", "unchanged", "draft"], [
          "OI-1003",
          "unchanged",
          "withdrawn",
        ], [
          "OI-1004",
          "unchanged",
          "draft",
        ]],
      );
      assert.match(res.content[0].text, /4 Objekte gelesen: 0 angelegt, 1 geändert, 3 unverändert/);
      assert.deepEqual(first.unmapped.find((u: Json) => u.element === "geo/strasse"), {
        element: "geo/strasse",
        objects: 1,
        objektnr_extern: ["OI-1001"],
      });
      const prop = await c.callTool("get_property", { id: first.listings[0].id });
      assert.equal(prop.structuredContent.asked_price, 485000);
      assert.equal(prop.structuredContent.city, "München");
    });

    await t.step("tool: veroeffentlichen publishes new complete objects", async () => {
      const xml = new TextEncoder().encode(
        `<?xml version="1.0"?><openimmo><anbieter><immobilie><objektkategorie><vermarktungsart KAUF="true"/>` +
          `<objektart><wohnung/></objektart></objektkategorie><geo><plz>99084</plz><ort>Erfurt</ort></geo>` +
          `<freitexte><objekttitel>Altbau am Domplatz</objekttitel></freitexte><verwaltung_techn>` +
          `<objektnr_extern>MCP-1</objektnr_extern></verwaltung_techn></immobilie></anbieter></openimmo>`,
      );
      const res = await call({ inhalt: b64(xml), veroeffentlichen: true });
      assert.notEqual(res.isError, true, JSON.stringify(res.content));
      assert.deepEqual(res.structuredContent.listings.map((l: Json) => [l.result, l.status]), [
        ["created", "published"],
      ]);
      const pub = await app.app.request(`/api/public/properties/${res.structuredContent.listings[0].id}`);
      assert.equal(pub.status, 200);
      assert.equal((await pub.json()).title, "Altbau am Domplatz");
    });

    await t.step(
      "tool: a published listing may not lose its title (object invalid, nothing else)",
      async () => {
        const xml = new TextEncoder().encode(
          `<openimmo><anbieter><immobilie><geo><ort>Dresden</ort></geo><verwaltung_techn>` +
            `<objektnr_extern>OI-2001</objektnr_extern></verwaltung_techn></immobilie></anbieter></openimmo>`,
        );
        const res = await call({ inhalt: b64(xml) });
        assert.deepEqual(res.structuredContent.invalid, [{
          objektnr_extern: "OI-2001",
          position: 1,
          reason: "the published listing would lack: title, property_type, transaction_type",
        }]);
      },
    );

    await t.step(
      "tool: bad Base64, broken and oversized files answer invalid_request; nothing written",
      async () => {
        const before = await snapshot(db);
        const bad = await failure({ inhalt: "not base64!" });
        assert.deepEqual([bad.code, /Base64/.test(bad.hint)], ["invalid_request", true]);
        const broken = await failure({ inhalt: b64(fixture("kaputt.xml")) });
        assert.equal(broken.code, "invalid_request");
        assert.match(broken.hint, /malformed XML/);
        const noXml = await failure({ inhalt: b64(zipSync({ "a.jpg": new Uint8Array([1, 2]) })) });
        assert.match(noXml.hint, /no XML file/);
        const bomb = zipSync({ "b.xml": new Uint8Array(51 * 1024 * 1024) }, { level: 9 });
        const big = await failure({ inhalt: b64(bomb) });
        assert.match(big.hint, /larger than 50 MB/);
        const pdf = await failure({ inhalt: b64(new TextEncoder().encode("%PDF-1.7\n%%EOF")) });
        assert.equal(pdf.code, "invalid_request");
        assert.deepEqual(await snapshot(db), before);
      },
    );

    await t.step("tool: the other office's listings were never touched", async () => {
      assert.deepEqual(officeRows(await snapshot(db), officeB), foreign);
    });
  } finally {
    await client?.close();
    await served.close();
  }
}
