/**
 * `deno task bench:mcp`: the seeker's MCP tools `search_properties` and `get_property` (stateless protocol
 * 2026-07-28, API key as bearer) against the REST endpoints GET /api/public/properties and
 * GET /api/public/properties/{id} with the same queries, in the same run, on a real Postgres server with 200,000
 * seeded listings. The service runs as a separate process with the rate limiter off; wrk (a separate process)
 * loads it with `mcp.lua`, which also checks every response (REST: 200 with a JSON object; MCP: 200 with
 * `structuredContent` and no `isError`). Before measuring, one request of each kind is compared with its REST
 * twin. Each (API, operation) pair is measured in `BENCH_ROUNDS` rounds, the order alternating between rounds.
 * Expected (issue): MCP req/s >= 0.5 x REST req/s, for search and for get.
 *
 * With `BENCH_AUTH=oauth` the MCP requests carry an OAuth access token instead of the API key: the benchmark
 * registers an app, signs the seeker in and consents through the service's own pages, and exchanges the code, so
 * every MCP request pays the connection check of a real OAuth connection (consent, grant cutoff, revoked token
 * ids, membership: one SQL statement).
 *
 * Environment (all optional):
 * - BENCH_DATABASE_URL: use this server instead of starting a throwaway cluster (seeded only when short of rows;
 *   a seeker account `bench-mcp@example.org` is added when missing, and a new API key on every run).
 * - BENCH_PG_DIR: keep the throwaway cluster in this folder, so the next run reuses its seeded data.
 * - BENCH_LISTINGS (200000), BENCH_SECONDS (10), BENCH_WARMUP (3), BENCH_ROUNDS (2), BENCH_CONNECTIONS (32),
 *   BENCH_THREADS (2), BENCH_QUIET_WAIT (20: longest wait in s for a quiet machine before each round),
 *   BENCH_KV (`file` or `memory`), BENCH_JSON (write the figures to this file), BENCH_AUTH (`key` or `oauth`).
 */
import { sql } from "kysely";
import { createPerson } from "../auth/accounts.ts";
import { createApiKey } from "../auth/api_keys.ts";
import { createAuth } from "../auth/better_auth.ts";
import { configFromEnv } from "../config.ts";
import { userByEmail } from "../db/accounts.ts";
import { type Db, openDb } from "../db/connection.ts";
import { type OAuthWorld, PASSWORD, register, tokensFor } from "../tests/oauth_support.ts";
import { ownRoots } from "./cpu.ts";
import { benchDatabase, ensureListings, publishedIds } from "./database.ts";
import { platform, runBenchmark, say, textSetting, workFolder } from "./harness.ts";
import {
  type Api,
  checkGet,
  checkSearch,
  listTools,
  MCP_PATH,
  type Op,
  requestFiles,
} from "./mcp_requests.ts";
import { reportMcp } from "./mcp_report.ts";
import {
  type McpBenchSettings,
  type McpRuns,
  measure,
  type Measurement,
  roundOrder,
  settingsFromEnv,
} from "./mcp_runs.ts";
import { LIST_PATH, listMix } from "./mix.ts";
import { describe, waitQuiet } from "./quiet.ts";
import { startService } from "./service.ts";
import { ensureWrk } from "./wrk.ts";

export { PROTOCOL, toolCall } from "./mcp_requests.ts";

const SEEKER_EMAIL = "bench-mcp@example.org";

// ---------------------------------------------------------------------------------------------------------------
// Data

/** The seeker account of the benchmark (added when missing, with a password) and a fresh API key of it. */
async function seekerKey(db: Db): Promise<string> {
  const userId = (await userByEmail(db, SEEKER_EMAIL))?.id ?? await newSeeker(db);
  const key = await createApiKey(db, userId, `bench:mcp ${new Date().toISOString()}`);
  say(`seeker ${SEEKER_EMAIL}: API key ${key.displayPrefix}… created`);
  return key.key;
}

async function newSeeker(db: Db): Promise<string> {
  const config = { ...configFromEnv(), authSecret: "bench-only-secret-not-used-for-sessions-0123456789" };
  const auth = createAuth({ config, db, log: { log() {} } });
  await auth.$context;
  return await createPerson(auth, db, {
    email: SEEKER_EMAIL,
    name: "Benchmark Suche",
    password: PASSWORD,
    role: "seeker",
  });
}

/**
 * An OAuth access token of the benchmark seeker for a newly registered app, through the service's own
 * registration, sign-in, consent and token endpoints (valid 10 minutes: long enough for the default run).
 */
async function oauthToken(base: string): Promise<string> {
  // The service's own origin is its BASE_URL (localhost), as its protected-resource metadata says: the browser
  // works there (the pages refuse a foreign Origin), and the token's audience is that resource.
  const prm = await (await fetch(`${base}/.well-known/oauth-protected-resource${MCP_PATH}`)).json();
  const resource = String(prm.resource);
  const w = { origin: new URL(resource).origin, resource } as OAuthWorld;
  const clientId = await register(w.origin);
  const tokens = await tokensFor(w, clientId, SEEKER_EMAIL);
  say(`OAuth: app ${clientId} connected for ${SEEKER_EMAIL} (scope ${tokens.scope})`);
  return tokens.access_token as string;
}

async function prepareData(
  db: Db,
  s: McpBenchSettings,
): Promise<{ ids: string[]; published: number; pgVersion: string; key: string }> {
  // Each service child gets a fresh AUTH_SECRET, so signing keys a kept cluster holds from an earlier run can no
  // longer be decrypted; better-auth makes new ones on first use.
  await sql`delete from jwks`.execute(db.kysely);
  await ensureListings(db, s.listings);
  await sql`vacuum (analyze) listings`.execute(db.kysely);
  const st = (await sql<{ published: number; total: number; version: string }>`
    select count(*) filter (where status = 'published')::int as published, count(*)::int as total,
      current_setting('server_version') as version
    from listings`.execute(db.kysely)).rows[0]!;
  say(`listings: ${st.total} (${st.published} published); Postgres ${st.version}`);
  return {
    ids: await publishedIds(db, s.idMixSize),
    published: st.published,
    pgVersion: st.version,
    key: await seekerKey(db),
  };
}

// ---------------------------------------------------------------------------------------------------------------
// Main

/** Writes the request file of each (API, operation) into the working folder. */
async function writeFiles(texts: Record<`${Api}-${Op}`, string>, workdir: string): Promise<McpRuns["files"]> {
  const files = {} as McpRuns["files"];
  for (const [name, text] of Object.entries(texts)) {
    files[name as `${Api}-${Op}`] = `${workdir}/${name}.txt`;
    await Deno.writeTextFile(`${workdir}/${name}.txt`, text);
  }
  return files;
}

async function main(): Promise<void> {
  const s = settingsFromEnv();
  console.log(
    `MCP benchmark: ${s.listings} listings, ${s.connections} connections, ${s.threads} wrk threads, ` +
      `${s.rounds} rounds of ${s.warmup} s warm-up + ${s.seconds} s per run, KV ${s.kv}; ${platform()}`,
  );
  await ensureWrk(say);
  const workdir = await workFolder("mcp-bench-");
  const database = await benchDatabase({ workdir });
  const db = await openDb({ databaseUrl: database.url });
  let data: Awaited<ReturnType<typeof prepareData>>;
  try {
    data = await prepareData(db, s);
  } finally {
    await db.close();
  }
  const list = listMix(s.listMixSize);
  const files = await writeFiles(requestFiles(list, data.ids), workdir);
  say(`mix: ${list.length} list queries (${LIST_PATH}?…), ${data.ids.length} listing ids`);

  say("service, rate limiter off");
  const svc = await startService({
    databaseUrl: database.url,
    workdir,
    label: "mcp",
    rateLimit: false,
    kv: s.kv,
  });
  if (s.auth === "oauth") data.key = await oauthToken(svc.base);
  const tools = await listTools(svc.base, data.key);
  const hasSearch = tools.includes("search_properties");
  say(`seeker server tools: ${tools.join(", ")}`);
  const checks = [await checkGet(svc.base, data.key, data.ids)];
  if (hasSearch) checks.push(await checkSearch(svc.base, data.key, list));
  else checks.push("search_properties: MISSING from tools/list; search not measured");
  for (const c of checks) say(c);
  const ops: Op[] = hasSearch ? ["search", "get"] : ["get"];

  const runs: McpRuns = { s, svc, files, key: data.key, pgDataDir: database.dataDir };
  const results: Measurement[] = [];
  const quiet: string[] = [];
  for (let round = 1; round <= s.rounds; round++) {
    const q = await waitQuiet({ ownRoots: () => ownRoots(database.dataDir), maxWaitS: s.quietWaitS, say });
    quiet.push(`round ${round}: ${q.quiet ? "quiet" : "BUSY"} before the round: ${describe(q.load)}`);
    say(`round ${round} (${quiet.at(-1)})`);
    for (const [api, op] of roundOrder(round, ops)) results.push(await measure(runs, api, op, round));
  }
  await svc.child.stop();

  const ratios = reportMcp(s, results, {
    published: data.published,
    pgVersion: data.pgVersion,
    checks,
    quiet,
  });
  const jsonPath = textSetting("BENCH_JSON");
  if (jsonPath) {
    await Deno.writeTextFile(
      jsonPath,
      JSON.stringify({ settings: s, results, ratios, checks, quiet }, null, 2),
    );
  }
}

if (import.meta.main) await runBenchmark(main);
