/**
 * What the office's inquiry list says about each inquiry (issue 31 item 6): the inquirer's name, where it came from
 * (the website, an OAuth app by its registered name, an API key, an e-mail, a portal by the name it gave) and the
 * first line of the inquirer's newest message (not the office's reply; blank lines skipped; clipped). Runs on
 * PGlite and, with DATABASE_URL, on the real Postgres server.
 */
import assert from "node:assert/strict";
import { createPerson } from "../auth/accounts.ts";
import { act } from "../deps.ts";
import { startMembership } from "../db/accounts.ts";
import { insertListings } from "../db/listings.ts";
import { ensureOffice } from "../db/offices.ts";
import { FIRST_LINE_MAX, getOfficeInquiry, listOfficeInquiries } from "../inquiries/inquiries.ts";
import { replyToInquiry, sendSeekerMessage } from "../inquiries/messages.ts";
import {
  closeAfterAll,
  officeWho,
  openTestDb,
  request,
  seekerWho,
  sendInquiryAs,
  testApp,
} from "./helpers.ts";

const tdb = await openTestDb();
const db = tdb.db;
const t = await testApp(db);
closeAfterAll(t, tdb);

const office = await ensureOffice(db, "Büro Eingang");
const agent = await createPerson(t.auth, db, {
  email: "eingang@example.org",
  name: "Eva Eingang",
  password: "eingang-geheim-1",
  role: "provider",
});
await startMembership(db, agent, office);
const seeker = await createPerson(t.auth, db, {
  email: "suche.eingang@example.org",
  name: "Sina Suche",
  password: "eingang-geheim-2",
  role: "seeker",
});
const [listingId] = await insertListings(db, office, [{
  status: "published",
  reference: null,
  title: "Wohnung Eingang",
  description: null,
  city: "Eingangsstadt",
  postal_code: "10115",
  property_type: "apartment",
  transaction_type: "rent",
  asked_price: 800,
  total_rooms: 2,
  square_meters: 50,
  latitude: null,
  longitude: null,
  beispiel: false,
  published_at: new Date("2026-10-01T12:00:00Z"),
}]);

/** Registers an OAuth app named `name` through the service's own registration endpoint; returns its client id. */
async function registerApp(name: string): Promise<string> {
  const res = await request(t.app, "/api/auth/oauth2/register", {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({
      client_name: name,
      redirect_uris: ["http://127.0.0.1:9/callback"],
      token_endpoint_auth_method: "none",
      grant_types: ["authorization_code"],
      response_types: ["code"],
    }),
  });
  const body = await res.json();
  assert.ok(res.ok, JSON.stringify(body));
  return body.client_id;
}

const guest = (n: string) => ({
  seekerId: null,
  name: n,
  email: `${n.toLowerCase()}@example.org`,
  phone: null,
});

Deno.test("the office reads who wrote, where from in words, and the first line of the newest message", async () => {
  const clientId = await registerApp("WohnApp");
  const made: Record<string, string> = {};
  const send = async (key: string, input: Omit<Parameters<typeof sendInquiryAs>[1], "listingId">) => {
    made[key] = (await sendInquiryAs(t.deps, { listingId: listingId!, ...input })).inquiryId;
    t.advance(1_000);
  };
  await send("website", { inquirer: guest("Wanda"), message: "\n\n  Erste Zeile  \nZweite Zeile" });
  await send("app", {
    inquirer: { seekerId: seeker, name: "Sina Suche", email: "suche.eingang@example.org", phone: null },
    message: "Über die App.",
    origin: { clientId },
  });
  await send("key", {
    inquirer: guest("Kai"),
    message: "Mit Schlüssel.",
    origin: { apiKeyId: crypto.randomUUID() },
  });
  await send("email", { inquirer: guest("Emil"), message: "Per Mail.", quelle: "email" });
  await send("portal", {
    inquirer: guest("Paula"),
    message: "x".repeat(500),
    quelle: "portal",
    portalName: "ImmoScout24",
  });
  // The office replies to the app's inquiry, then the seeker writes again: the list shows the seeker's newest line.
  await act(t.deps, officeWho(office, agent), (a) => replyToInquiry(a, made.app!, "Antwort des Büros."));
  t.advance(1_000);
  await act(
    t.deps,
    seekerWho(seeker),
    (a) => sendSeekerMessage(a, made.app!, "Noch eine Frage.\nZu den Nebenkosten."),
  );

  const r = await listOfficeInquiries(t.deps, office, { page: 1, page_size: 20 });
  const byId = new Map(r.items.map((i) => [i.id, i]));
  const seen = (key: string) => {
    const i = byId.get(made[key]!)!;
    return { name: i.name, channel: i.channel, first_line: i.first_line };
  };
  assert.deepEqual(seen("website"), {
    name: "Wanda",
    channel: { kind: "website" },
    first_line: "Erste Zeile",
  });
  assert.deepEqual(seen("app"), {
    name: "Sina Suche",
    channel: { kind: "app", name: "WohnApp" },
    first_line: "Noch eine Frage.",
  });
  assert.deepEqual(seen("key"), { name: "Kai", channel: { kind: "api_key" }, first_line: "Mit Schlüssel." });
  assert.deepEqual(seen("email"), { name: "Emil", channel: { kind: "email" }, first_line: "Per Mail." });
  const portal = seen("portal");
  assert.deepEqual(portal.channel, { kind: "portal", name: "ImmoScout24" });
  assert.equal(portal.first_line.length, FIRST_LINE_MAX);
  assert.ok(portal.first_line.endsWith("…"));
  // The thread says where it came from too.
  assert.deepEqual((await getOfficeInquiry(t.deps, office, made.app!)).channel, {
    kind: "app",
    name: "WohnApp",
  });
});
