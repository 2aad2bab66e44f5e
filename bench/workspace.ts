/**
 * Page response times of the agent's workspace (issue 22): an office holding 2,000 listings and 5,000 inquiries
 * (each with the agent's draft reply) and 200 viewing slots; every workspace page is requested `BENCH_N` times in
 * turn through the app (in process, signed in, no network), and p50/p99 of each are printed with their ratio to
 * a floor measured in the same run: `/healthz` and the public listing page.
 *
 *   deno run --allow-net --allow-env --allow-read --allow-write --allow-sys --allow-run bench/workspace.ts
 *   DATABASE_URL=postgres://… (same command)   real Postgres (a fresh schema, dropped afterwards)
 *   BENCH_N=300 BENCH_LISTINGS=2000 BENCH_INQUIRIES=5000   sizes (defaults shown, N default 200)
 */
import { createPerson } from "../auth/accounts.ts";
import { act, GUEST, type Who } from "../deps.ts";
import { prng, sampleListing } from "../catalogue/sample.ts";
import { startMembership } from "../db/accounts.ts";
import { insertListings, type NewListing } from "../db/listings.ts";
import { ensureOffice } from "../db/offices.ts";
import { sendInquiry } from "../inquiries/inquiries.ts";
import { openTestDb, testApp } from "../tests/helpers.ts";
import { createViewingSlots } from "../viewings/viewings.ts";
import { atCleanup, intSetting, runBenchmark } from "./harness.ts";
import { ascending, percentile } from "./stats.ts";

const N = intSetting("BENCH_N", 200, 1);
const LISTINGS = intSetting("BENCH_LISTINGS", 2000, 10);
const INQUIRIES = intSetting("BENCH_INQUIRIES", 5000, 1);
const PASSWORD = "bench-werkbank-123";
const STATUSES = ["published", "published", "published", "draft", "withdrawn"] as const;

type App = Awaited<ReturnType<typeof testApp>>;

/** An office with its agent, `LISTINGS` listings, `INQUIRIES` inquiries and 200 viewing slots. */
async function fillOffice(a: App, db: App["deps"]["db"]) {
  const office = await ensureOffice(db, "Bench-Büro");
  const agent = await createPerson(a.auth, db, {
    email: "bench.agent@example.org",
    name: "Bench",
    password: PASSWORD,
    role: "provider",
  });
  await startMembership(db, agent, office);
  const rand = prng(22);
  const rows: NewListing[] = Array.from({ length: LISTINGS }, (_, i) => {
    const s = sampleListing(i, rand, a.now());
    const status = STATUSES[i % STATUSES.length]!;
    return {
      ...s,
      beispiel: false,
      status,
      published_at: status === "draft" ? null : (s.published_at ?? new Date(a.now())),
    };
  });
  const ids: string[] = [];
  for (let i = 0; i < rows.length; i += 500) {
    ids.push(...await insertListings(db, office, rows.slice(i, i + 500)));
  }
  const published = ids.filter((_, i) => STATUSES[i % STATUSES.length] === "published");
  console.error(`${ids.length} listings; sending ${INQUIRIES} inquiries …`);
  const lastInquiry = await inquiries(a, published);
  const provider: Who = {
    actor: { kind: "provider", userId: agent, officeId: office },
    origin: { apiKeyId: crypto.randomUUID() },
  };
  for (let i = 0; i < 40; i++) {
    const start = a.now() + (24 + i * 6) * 3_600_000;
    const slots = [0, 1, 2, 3, 4].map((k) => ({
      start: new Date(start + k * 1_800_000).toISOString(),
      end: new Date(start + (k + 1) * 1_800_000).toISOString(),
      places: 2,
    }));
    await act(a.deps, provider, (x) => createViewingSlots(x, published[i]!, slots));
  }
  return { published, lastInquiry };
}

/** `INQUIRIES` guest inquiries spread over the published listings; returns the id of the last. */
async function inquiries(a: App, published: string[]): Promise<string> {
  const t0 = performance.now();
  let lastInquiry = "";
  for (let i = 0; i < INQUIRIES; i++) {
    const r = await act(a.deps, GUEST, (x) =>
      sendInquiry(x, {
        listingId: published[i % published.length]!,
        inquirer: { seekerId: null, name: `Gast ${i}`, email: `gast${i}@example.org`, phone: null },
        message: `Ist das Objekt noch frei? (${i})`,
      }));
    lastInquiry = r.inquiryId;
    if (i % 500 === 499) a.advance(3_600_000); // stay inside the per-listing limit of §9
  }
  console.error(`inquiries in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
  return lastInquiry;
}

/** Signs the agent in through the sign-in page; returns a GET through the app with the agent's cookies. */
async function signedIn(a: App): Promise<(path: string, init?: RequestInit) => Promise<Response>> {
  const jar = new Map<string, string>();
  const get = async (path: string, init: RequestInit = {}): Promise<Response> => {
    const headers = new Headers(init.headers);
    if (jar.size) headers.set("cookie", [...jar].map(([k, v]) => `${k}=${v}`).join("; "));
    const res = await a.app.request(path, { ...init, headers }, {
      remoteAddr: { transport: "tcp", hostname: "198.51.100.9", port: 40000 },
    });
    for (const c of res.headers.getSetCookie()) {
      const [pair] = c.split(";");
      const eq = pair!.indexOf("=");
      jar.set(pair!.slice(0, eq).trim(), pair!.slice(eq + 1).trim());
    }
    return res;
  };
  await (await get("/anmelden")).body?.cancel();
  const signIn = await get("/anmelden", {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({
      _csrf: jar.get("immo_csrf") ?? "",
      email: "bench.agent@example.org",
      password: PASSWORD,
    }),
  });
  await signIn.body?.cancel();
  if (signIn.status !== 303) throw new Error(`sign-in answered ${signIn.status}`);
  return get;
}

async function main(): Promise<void> {
  const tdb = await openTestDb();
  atCleanup(() => tdb.close());
  const a = await testApp(tdb.db);
  atCleanup(() => a.close());
  const { published, lastInquiry } = await fillOffice(a, tdb.db);
  const get = await signedIn(a);
  const pages: Array<[string, string]> = [
    ["floor /healthz", "/healthz"],
    ["floor public listing", `/objekte/${published[0]}`],
    ["/anbieter", "/anbieter"],
    ["/anbieter/objekte", "/anbieter/objekte"],
    ["/anbieter/objekte?page=50", "/anbieter/objekte?page=50"],
    ["/anbieter/objekte?q=…", "/anbieter/objekte?q=berlin"],
    ["/anbieter/objekte/{id}", `/anbieter/objekte/${published[1]}`],
    ["/anbieter/anfragen", "/anbieter/anfragen"],
    ["/anbieter/anfragen?status=open&page=100", "/anbieter/anfragen?status=open&page=100"],
    ["/anbieter/anfragen/{id}", `/anbieter/anfragen/${lastInquiry}`],
    ["/anbieter/termine", "/anbieter/termine"],
    ["/anbieter/vorschlaege", "/anbieter/vorschlaege"],
  ];
  const times = new Map<string, number[]>(pages.map(([name]) => [name, []]));
  for (const [, path] of pages) for (let i = 0; i < 5; i++) await (await get(path)).body?.cancel(); // warm-up
  for (let i = 0; i < N; i++) {
    for (const [name, path] of pages) {
      const t = performance.now();
      const res = await get(path);
      await res.arrayBuffer();
      times.get(name)!.push(performance.now() - t);
      if (res.status !== 200) throw new Error(`${path} answered ${res.status}`);
    }
  }
  const pct = (xs: number[], p: number) => percentile(ascending(xs), p);
  const floor = pct(times.get("floor public listing")!, 0.5);
  console.log(
    `workspace pages, ${LISTINGS} listings, ${INQUIRIES} inquiries, N=${N}, ${
      Deno.env.get("DATABASE_URL") ? "Postgres" : "PGlite"
    }`,
  );
  console.log("page | p50 ms | p99 ms | p50 / public listing page p50");
  for (const [name] of pages) {
    const xs = times.get(name)!;
    const p50 = pct(xs, 0.5);
    console.log(`${name} | ${p50.toFixed(1)} | ${pct(xs, 0.99).toFixed(1)} | ${(p50 / floor).toFixed(2)}`);
  }
}

if (import.meta.main) await runBenchmark(main);
