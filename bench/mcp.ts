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
import { type OAuthWorld, PASSWORD, register, tokensFor } from "../tests/oauth_support.ts";
import type { ListingFilter } from "../catalogue/listing.ts";
import { seedSample } from "../catalogue/seed.ts";
import { userByEmail } from "../db/accounts.ts";
import { type Db, openDb } from "../db/connection.ts";
import { countListings } from "../db/listings.ts";
import { migrate } from "../db/migrate.ts";
import { CpuMeter, type CpuUse, postmasterPid, withChildren } from "./cpu.ts";
import { LIST_PATH, listingPath, listMix, type ListRequest } from "./mix.ts";
import { startCluster } from "./pg_cluster.ts";
import { type Child, killRunning, run } from "./processes.ts";
import { describe, waitQuiet } from "./quiet.ts";
import { startService } from "./service.ts";
import { ensureWrk, parseWrk } from "./wrk.ts";

const LUA = new URL("./mcp.lua", import.meta.url).pathname;
/** The MCP protocol revision the benchmark speaks. */
export const PROTOCOL = "2026-07-28";
const MCP_PATH = "/mcp";
const SEEKER_EMAIL = "bench-mcp@example.org";

/** Settings of one benchmark run. */
export interface McpBenchSettings {
  /** Listings the database must hold. */
  listings: number;
  /** Seconds of each measured run. */
  seconds: number;
  /** Seconds of the warm-up before each measured run. */
  warmup: number;
  /** Rounds of the four runs; the order alternates between rounds. */
  rounds: number;
  /** wrk connections. */
  connections: number;
  /** wrk threads. */
  threads: number;
  /** Longest wait for a quiet machine before each round, in seconds. */
  quietWaitS: number;
  /** List requests in the mix. */
  listMixSize: number;
  /** Listing ids in the mix. */
  idMixSize: number;
  /** Where the service keeps Deno KV. */
  kv: "file" | "memory";
  /** The MCP credential: the seeker's API key, or an OAuth access token of a connected app. */
  auth: "key" | "oauth";
}

/** Which API and operation a run loads. */
export type Api = "rest" | "mcp";
/** `search` = list / search_properties, `get` = single listing / get_property. */
export type Op = "search" | "get";

/** The figures of one measured run. */
export interface Measurement {
  api: Api;
  op: Op;
  round: number;
  /** Requests completed. */
  requests: number;
  /** Requests per second. */
  rps: number;
  /** Median latency in ms. */
  p50Ms: number;
  /** 99th percentile latency in ms. */
  p99Ms: number;
  /** Failed requests: responses that failed the check of mcp.lua (non-200, isError, …) plus socket errors. */
  errors: number;
  /** Responses mcp.lua checked. */
  checked: number;
  /** CPU use in percent of one core: `target` (service), `postgres`, `loader` (wrk), `machine`. */
  cpu: CpuUse;
}

/** Reads the settings from the environment (see the module comment). */
export function settingsFromEnv(): McpBenchSettings {
  const int = (name: string, dflt: number, min: number) => {
    const raw = Deno.env.get(name);
    if (raw === undefined || raw === "") return dflt;
    const v = Number(raw);
    if (!Number.isInteger(v) || v < min) throw new Error(`${name} must be a whole number >= ${min}`);
    return v;
  };
  const kv = Deno.env.get("BENCH_KV") || "file";
  if (kv !== "file" && kv !== "memory") throw new Error("BENCH_KV must be file or memory");
  const auth = Deno.env.get("BENCH_AUTH") || "key";
  if (auth !== "key" && auth !== "oauth") throw new Error("BENCH_AUTH must be key or oauth");
  return {
    listings: int("BENCH_LISTINGS", 200_000, 1),
    seconds: int("BENCH_SECONDS", 10, 1),
    warmup: int("BENCH_WARMUP", 3, 0),
    rounds: int("BENCH_ROUNDS", 2, 1),
    connections: int("BENCH_CONNECTIONS", 32, 1),
    threads: int("BENCH_THREADS", 2, 1),
    quietWaitS: int("BENCH_QUIET_WAIT", 20, 0),
    listMixSize: 2000,
    idMixSize: 2000,
    kv,
    auth,
  };
}

// ---------------------------------------------------------------------------------------------------------------
// Process plumbing (as in bench/catalogue.ts)

const started = performance.now();
let pgDataDir: string | undefined;
const cleanups: Array<() => Promise<void>> = [];
let interrupted = false;

function say(line: string): void {
  const t = ((performance.now() - started) / 1000).toFixed(1).padStart(6);
  console.log(`[${t}s] ${line}`);
}

async function cleanup(): Promise<void> {
  while (cleanups.length) {
    try {
      await cleanups.pop()!();
    } catch (e) {
      console.error(`cleanup: ${e instanceof Error ? e.message : e}`);
    }
  }
}

function onSignal(): void {
  if (interrupted) return;
  interrupted = true;
  console.error("\ninterrupted: stopping children and the cluster");
  killRunning();
  cleanup().finally(() => Deno.exit(130));
}

function ownRoots(): number[] {
  const pm = pgDataDir ? postmasterPid(pgDataDir) : undefined;
  return pm ? [Deno.pid, pm] : [Deno.pid];
}

function meter(target: () => number[], loader: () => number[]): CpuMeter {
  const postmaster = () => (pgDataDir ? postmasterPid(pgDataDir) : undefined);
  return new CpuMeter({
    target: { pids: target },
    loader: { pids: loader },
    postgres: {
      pids: (snap) => {
        const pm = postmaster();
        return pm ? withChildren(snap, pm) : [];
      },
      reaper: postmaster,
    },
  });
}

// ---------------------------------------------------------------------------------------------------------------
// Data

async function openDatabase(workdir: string): Promise<{ url: string; pgVersion: string }> {
  const given = Deno.env.get("BENCH_DATABASE_URL") || undefined;
  if (given) {
    say("using BENCH_DATABASE_URL");
    return { url: given, pgVersion: "" };
  }
  const keepDir = Deno.env.get("BENCH_PG_DIR") || undefined;
  say(`starting a throwaway Postgres cluster${keepDir ? ` in ${keepDir} (kept)` : ""}`);
  const cluster = await startCluster({
    dir: keepDir ?? `${workdir}/pg`,
    keep: keepDir !== undefined,
    say: (l) => say(`  ${l}`),
  });
  cleanups.push(() => cluster.stop());
  pgDataDir = cluster.dataDir;
  return { url: cluster.url, pgVersion: cluster.version };
}

async function ensureListings(db: Db, want: number): Promise<void> {
  const have = await countListings(db);
  if (have >= want) {
    say(`${have} listings present: seeding skipped`);
    return;
  }
  const n = want - have;
  say(`seeding ${n} sample listings (${have} present)`);
  const t = performance.now();
  let next = 0;
  await seedSample(db, {
    count: n,
    onProgress: (done, total) => {
      if (done >= next || done === total) {
        say(`  ${done} / ${total}`);
        next = done + Math.ceil(total / 5);
      }
    },
  });
  say(`seeded in ${((performance.now() - t) / 1000).toFixed(1)} s`);
}

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
  const applied = await migrate(db);
  if (applied.length) say(`migrations applied: ${applied.join(", ")}`);
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
  const idRows = await sql<{ id: string }>`
    select id from listings where status = 'published' order by random() limit ${s.idMixSize}`.execute(
    db.kysely,
  );
  return {
    ids: idRows.rows.map((r) => r.id),
    published: st.published,
    pgVersion: st.version,
    key: await seekerKey(db),
  };
}

// ---------------------------------------------------------------------------------------------------------------
// Requests

/** The `tools/call` arguments of `search_properties` for a filter: exactly the filter's fields. */
export function searchArguments(f: ListingFilter): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(f)) if (v !== undefined) out[k] = v;
  return out;
}

/** A stateless 2026-07-28 `tools/call` request as the @modelcontextprotocol/client 2.4 sends it. */
export function toolCall(name: string, args: unknown, id: string | number): unknown {
  return {
    jsonrpc: "2.0",
    id,
    method: "tools/call",
    params: {
      name,
      arguments: args,
      _meta: {
        "io.modelcontextprotocol/protocolVersion": PROTOCOL,
        "io.modelcontextprotocol/clientInfo": { name: "bench-mcp", version: "1.0.0" },
        "io.modelcontextprotocol/clientCapabilities": {},
      },
    },
  };
}

function mcpHeaders(key: string, method: string, name?: string): Record<string, string> {
  return {
    authorization: `Bearer ${key}`,
    "content-type": "application/json",
    accept: "application/json, text/event-stream",
    "mcp-protocol-version": PROTOCOL,
    "mcp-method": method,
    ...(name ? { "mcp-name": name } : {}),
  };
}

/** Lines of the wrk request files (see mcp.lua). */
function requestFiles(list: ListRequest[], ids: string[]): Record<`${Api}-${Op}`, string> {
  const post = (name: string, args: Record<string, unknown>, i: number) =>
    `POST\t${MCP_PATH}\t${name}\t${JSON.stringify(toolCall(name, args, i + 1))}`;
  return {
    "rest-search": list.map((r) => `GET\t${r.path}`).join("\n") + "\n",
    "rest-get": ids.map((id) => `GET\t${listingPath(id)}`).join("\n") + "\n",
    "mcp-search": list.map((r, i) => post("search_properties", searchArguments(r.filter), i)).join("\n") +
      "\n",
    "mcp-get": ids.map((id, i) => post("get_property", { id }, i)).join("\n") + "\n",
  };
}

// ---------------------------------------------------------------------------------------------------------------
// Checks before measuring

async function getJson(url: string): Promise<{ status: number; body: unknown }> {
  const res = await fetch(url);
  const text = await res.text();
  return { status: res.status, body: text.startsWith("{") ? JSON.parse(text) : text };
}

async function mcpPost(
  base: string,
  key: string,
  body: { method: string; params?: { name?: string } },
): Promise<{ status: number; msg: Record<string, unknown> }> {
  const res = await fetch(base + MCP_PATH, {
    method: "POST",
    headers: mcpHeaders(key, body.method, body.params?.name),
    body: JSON.stringify(body),
  });
  const text = await res.text();
  if (!res.ok) throw new Error(`POST /mcp ${body.method} answered ${res.status}: ${text.slice(0, 300)}`);
  const json = (res.headers.get("content-type") ?? "").includes("text/event-stream")
    ? JSON.parse(text.split("\n").filter((l) => l.startsWith("data:")).at(-1)!.slice(5))
    : JSON.parse(text);
  return { status: res.status, msg: json as Record<string, unknown> };
}

/** The structured content of a successful tool call; throws on a JSON-RPC error or an isError result. */
async function callTool(
  base: string,
  key: string,
  name: string,
  args: Record<string, unknown>,
): Promise<unknown> {
  const { msg } = await mcpPost(base, key, toolCall(name, args, 1) as { method: string });
  const result = msg.result as
    | { isError?: boolean; structuredContent?: unknown; content?: unknown }
    | undefined;
  if (!result) {
    throw new Error(`${name} ${JSON.stringify(args)}: JSON-RPC error ${JSON.stringify(msg.error)}`);
  }
  if (result.isError || result.structuredContent === undefined) {
    throw new Error(`${name} ${JSON.stringify(args)}: error result ${JSON.stringify(result.content)}`);
  }
  return result.structuredContent;
}

/** JSON with sorted keys, for comparing two answers regardless of key order. */
function canonical(v: unknown): string {
  return JSON.stringify(
    v,
    (_k, x) =>
      x && typeof x === "object" && !Array.isArray(x)
        ? Object.fromEntries(Object.entries(x).sort(([a], [b]) => a < b ? -1 : a > b ? 1 : 0))
        : x,
  );
}

/** The tools the seeker server lists. */
async function listTools(base: string, key: string): Promise<string[]> {
  const { msg } = await mcpPost(base, key, {
    jsonrpc: "2.0",
    id: 1,
    method: "tools/list",
    params: {
      _meta: {
        "io.modelcontextprotocol/protocolVersion": PROTOCOL,
        "io.modelcontextprotocol/clientInfo": { name: "bench-mcp", version: "1.0.0" },
        "io.modelcontextprotocol/clientCapabilities": {},
      },
    },
  } as { method: string });
  const result = msg.result as { tools?: Array<{ name: string }> } | undefined;
  if (!result?.tools) throw new Error(`tools/list failed: ${JSON.stringify(msg).slice(0, 300)}`);
  return result.tools.map((t) => t.name);
}

/** Compares get_property with GET …/{id} for a few ids; throws unless both answer and agree. */
async function checkGet(base: string, key: string, ids: string[]): Promise<string> {
  let identical = 0;
  for (const id of ids.slice(0, 5)) {
    const rest = await getJson(base + listingPath(id));
    if (rest.status !== 200) throw new Error(`GET ${listingPath(id)} answered ${rest.status}`);
    const mcp = await callTool(base, key, "get_property", { id });
    if ((mcp as { id?: string }).id !== id) throw new Error(`get_property ${id} returned another listing`);
    if (canonical(mcp) === canonical(rest.body)) identical++;
  }
  return `get_property: 5 of 5 ids answered, ${identical} of 5 identical to the REST body`;
}

/** Compares search_properties with the list endpoint for one request of every kind in the mix. */
async function checkSearch(base: string, key: string, list: ListRequest[]): Promise<string> {
  const kinds = new Map<string, ListRequest>();
  for (const r of list) if (!kinds.has(r.kind)) kinds.set(r.kind, r);
  let identical = 0;
  for (const r of kinds.values()) {
    const rest = await getJson(base + r.path);
    if (rest.status !== 200) throw new Error(`GET ${r.path} answered ${rest.status}`);
    const mcp = await callTool(base, key, "search_properties", searchArguments(r.filter));
    type P = { total: number; items: Array<{ id: string }> };
    const [a, b] = [rest.body as P, mcp as P];
    const same = a.total === b.total &&
      canonical(a.items.map((i) => i.id)) === canonical(b.items.map((i) => i.id));
    if (!same) {
      throw new Error(
        `search_properties ${
          JSON.stringify(searchArguments(r.filter))
        }: total ${b.total} / ${b.items?.length} ` +
          `items, REST ${r.path}: total ${a.total} / ${a.items.length} items (or other ids)`,
      );
    }
    if (canonical(mcp) === canonical(rest.body)) identical++;
  }
  return `search_properties: ${kinds.size} of ${kinds.size} kinds of query with the same total and ids as REST, ` +
    `${identical} of ${kinds.size} identical to the REST body`;
}

// ---------------------------------------------------------------------------------------------------------------
// wrk runs

interface WrkRun {
  rps: number;
  requests: number;
  p50Ms: number;
  p99Ms: number;
  socketErrors: number;
  good: number;
  bad: number;
  goodSample: string;
  badSample: string;
}

async function runWrk(
  s: McpBenchSettings,
  base: string,
  file: string,
  api: Api,
  key: string,
  seconds: number,
  onSpawn?: (pid: number) => void,
): Promise<WrkRun> {
  const args = [`-t${s.threads}`, `-c${s.connections}`, `-d${seconds}s`, "--timeout", "5s", "--latency"];
  const raw = await run("wrk", [...args, "-s", LUA, base, "--", file, api, key], onSpawn ? { onSpawn } : {});
  const w = parseWrk(raw);
  const checked = /mcp\.lua checked: good (\d+) bad (\d+)/.exec(raw);
  if (!checked) throw new Error(`wrk output without the check counts of mcp.lua:\n${raw}`);
  return {
    rps: w.rps,
    requests: w.requests,
    p50Ms: w.p50Ms,
    p99Ms: w.p99Ms,
    socketErrors: w.socketErrors,
    good: Number(checked[1]),
    bad: Number(checked[2]),
    goodSample: /^mcp\.lua good sample: (.*)$/m.exec(raw)?.[1] ?? "",
    badSample: /^mcp\.lua bad sample: (.*)$/m.exec(raw)?.[1] ?? "",
  };
}

async function measure(
  s: McpBenchSettings,
  svc: { child: Child; base: string },
  files: Record<`${Api}-${Op}`, string>,
  key: string,
  api: Api,
  op: Op,
  round: number,
): Promise<Measurement> {
  const file = files[`${api}-${op}`];
  if (s.warmup > 0) await runWrk(s, svc.base, file, api, key, s.warmup);
  let wrkPid = 0;
  const cpu = meter(() => [svc.child.pid], () => (wrkPid ? [wrkPid] : []));
  await cpu.start();
  const r = await runWrk(s, svc.base, file, api, key, s.seconds, (pid) => (wrkPid = pid));
  const cpuUse = await cpu.stop();
  const m: Measurement = {
    api,
    op,
    round,
    requests: r.requests,
    rps: r.rps,
    p50Ms: r.p50Ms,
    p99Ms: r.p99Ms,
    errors: r.bad + r.socketErrors,
    checked: r.good + r.bad,
    cpu: cpuUse,
  };
  say(`  ${label(api, op).padEnd(26)} ${fmtRow(m)}`);
  if (round === 1) say(`    sample response: ${r.goodSample.slice(0, 140)}`);
  if (r.bad > 0) say(`    FAILED response sample: ${r.badSample}`);
  return m;
}

function label(api: Api, op: Op): string {
  if (api === "rest") return op === "search" ? "REST GET list" : "REST GET {id}";
  return op === "search" ? "MCP search_properties" : "MCP get_property";
}

function fmtRow(m: Measurement): string {
  return `${m.rps.toFixed(0).padStart(7)} req/s  p50 ${m.p50Ms.toFixed(2).padStart(7)} ms  p99 ${
    m.p99Ms.toFixed(2).padStart(7)
  } ms  (${m.requests} requests, ${m.errors} errors; service ${pct(m.cpu.target)}, postgres ${
    pct(m.cpu.postgres)
  }, wrk ${pct(m.cpu.loader)}, other ${pct(otherCpu(m.cpu))} of a core)`;
}

/** CPU of the run that none of the watched processes accounts for (other work on the host, kernel). */
function otherCpu(c: CpuUse): number {
  return Math.max(0, (c.machine ?? 0) - (c.target ?? 0) - (c.postgres ?? 0) - (c.loader ?? 0));
}

function pct(v: number | undefined): string {
  return v === undefined ? "-" : `${v.toFixed(0)}%`;
}

/** The four runs of a round: odd rounds REST first, even rounds MCP first. */
function roundOrder(round: number, ops: Op[]): Array<[Api, Op]> {
  const apis: Api[] = round % 2 === 1 ? ["rest", "mcp"] : ["mcp", "rest"];
  return ops.flatMap((op) => apis.map((api): [Api, Op] => [api, op]));
}

// ---------------------------------------------------------------------------------------------------------------
// Report

interface Summary {
  rps: number;
  p50Ms: number;
  p99Ms: number;
  requests: number;
  errors: number;
  /** CPU time of the service per request in ms (mean of the rounds). */
  cpuMsPerReq: number;
}

function summarise(results: Measurement[], api: Api, op: Op): Summary | undefined {
  const rs = results.filter((r) => r.api === api && r.op === op);
  if (!rs.length) return undefined;
  const mean = (f: (r: Measurement) => number) => rs.reduce((a, r) => a + f(r), 0) / rs.length;
  return {
    rps: mean((r) => r.rps),
    p50Ms: mean((r) => r.p50Ms),
    p99Ms: Math.max(...rs.map((r) => r.p99Ms)),
    requests: rs.reduce((a, r) => a + r.requests, 0),
    errors: rs.reduce((a, r) => a + r.errors, 0),
    cpuMsPerReq: mean((r) => (r.cpu.target ?? 0) * 10 / r.rps),
  };
}

function report(
  s: McpBenchSettings,
  results: Measurement[],
  info: { published: number; pgVersion: string; checks: string[]; quiet: string[] },
): Record<Op, number | undefined> {
  console.log(
    `\nResults (${s.rounds} rounds of ${s.seconds} s measured after ${s.warmup} s warm-up each; ` +
      `${s.connections} connections, ${s.threads} wrk threads; ${info.published} published listings; ` +
      `Postgres ${info.pgVersion}; rate limiter off; MCP: stateless ${PROTOCOL}, ${
        s.auth === "oauth" ? "OAuth access token" : "API key"
      }):`,
  );
  console.log(
    `  ${"run".padEnd(26)} ${"req/s".padStart(8)} ${"p50 ms".padStart(8)} ${"p99 ms".padStart(8)} ${
      "requests".padStart(9)
    } ${"errors".padStart(7)} ${"svc CPU ms/req".padStart(15)}`,
  );
  for (const op of ["search", "get"] as const) {
    for (const api of ["rest", "mcp"] as const) {
      const m = summarise(results, api, op);
      const row = m
        ? `${m.rps.toFixed(0).padStart(8)} ${m.p50Ms.toFixed(2).padStart(8)} ${
          m.p99Ms.toFixed(2).padStart(8)
        } ${String(m.requests).padStart(9)} ${String(m.errors).padStart(7)} ${
          m.cpuMsPerReq.toFixed(2).padStart(15)
        }`
        : "   not measured (search_properties missing)";
      console.log(`  ${label(api, op).padEnd(26)} ${row}`);
    }
  }
  console.log(
    "  (req/s, p50 and service CPU per request: mean of the rounds; p99: worst round; requests and errors: sum)",
  );
  console.log("\nRatio MCP / REST of req/s (expected >= 0.5):");
  const ratios: Record<Op, number | undefined> = { search: undefined, get: undefined };
  for (const op of ["search", "get"] as const) {
    const rest = summarise(results, "rest", op);
    const mcp = summarise(results, "mcp", op);
    const name = op === "search" ? "search_properties / GET list" : "get_property / GET {id}";
    if (!rest || !mcp) {
      console.log(
        `  ${name.padEnd(30)}    -   not measured: the seeker server has no search_properties tool`,
      );
      continue;
    }
    const perRound = Array.from({ length: s.rounds }, (_, i) => {
      const a = results.find((r) => r.api === "mcp" && r.op === op && r.round === i + 1)!;
      const b = results.find((r) => r.api === "rest" && r.op === op && r.round === i + 1)!;
      return (a.rps / b.rps).toFixed(2);
    });
    const v = mcp.rps / rest.rps;
    ratios[op] = v;
    console.log(
      `  ${name.padEnd(30)} ${v.toFixed(2).padStart(6)}   ${v >= 0.5 ? "yes" : "NO"} (rounds: ${
        perRound.join(", ")
      })`,
    );
  }
  console.log("\nChecks:");
  for (const c of info.checks) console.log(`  ${c}`);
  for (const q of info.quiet) console.log(`  ${q}`);
  const errors = results.reduce((a, r) => a + r.errors, 0);
  const checked = results.reduce((a, r) => a + r.checked, 0);
  console.log(`  responses checked by mcp.lua during the measured runs: ${checked}, failed: ${errors}`);
  if (errors > 0) console.log(`\nWARNING: ${errors} failed requests in total (see the errors column)`);
  return ratios;
}

// ---------------------------------------------------------------------------------------------------------------
// Main

async function main(): Promise<void> {
  const s = settingsFromEnv();
  Deno.addSignalListener("SIGINT", onSignal);
  Deno.addSignalListener("SIGTERM", onSignal);
  console.log(
    `MCP benchmark: ${s.listings} listings, ${s.connections} connections, ${s.threads} wrk threads, ` +
      `${s.rounds} rounds of ${s.warmup} s warm-up + ${s.seconds} s per run, KV ${s.kv}; ` +
      `deno ${Deno.version.deno}, ${navigator.hardwareConcurrency} cores`,
  );
  await ensureWrk(say);
  const workdir = await Deno.makeTempDir({ prefix: "mcp-bench-" });
  await Deno.chmod(workdir, 0o755);
  cleanups.push(() => Deno.remove(workdir, { recursive: true }));

  const { url } = await openDatabase(workdir);
  const db = await openDb({ databaseUrl: url });
  let data: Awaited<ReturnType<typeof prepareData>>;
  try {
    data = await prepareData(db, s);
  } finally {
    await db.close();
  }
  const list = listMix(s.listMixSize);
  const texts = requestFiles(list, data.ids);
  const files = {} as Record<`${Api}-${Op}`, string>;
  for (const [name, text] of Object.entries(texts)) {
    files[name as `${Api}-${Op}`] = `${workdir}/${name}.txt`;
    await Deno.writeTextFile(`${workdir}/${name}.txt`, text);
  }
  say(`mix: ${list.length} list queries (${LIST_PATH}?…), ${data.ids.length} listing ids`);

  say("service, rate limiter off");
  const svc = await startService({
    databaseUrl: url,
    workdir,
    label: "mcp",
    rateLimit: false,
    kv: s.kv,
    onSpawn: (child) => cleanups.push(() => child.stop()),
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

  const results: Measurement[] = [];
  const quiet: string[] = [];
  for (let round = 1; round <= s.rounds; round++) {
    const q = await waitQuiet({ ownRoots, maxWaitS: s.quietWaitS, say });
    quiet.push(`round ${round}: ${q.quiet ? "quiet" : "BUSY"} before the round: ${describe(q.load)}`);
    say(`round ${round} (${quiet.at(-1)})`);
    for (const [api, op] of roundOrder(round, ops)) {
      results.push(await measure(s, svc, files, data.key, api, op, round));
    }
  }
  await svc.child.stop();

  const ratios = report(s, results, { published: data.published, pgVersion: data.pgVersion, checks, quiet });
  const jsonPath = Deno.env.get("BENCH_JSON");
  if (jsonPath) {
    await Deno.writeTextFile(
      jsonPath,
      JSON.stringify({ settings: s, results, ratios, checks, quiet }, null, 2),
    );
  }
}

if (import.meta.main) {
  let code = 0;
  try {
    await main();
  } catch (e) {
    console.error(`\nbenchmark failed: ${e instanceof Error ? e.stack ?? e.message : e}`);
    code = 1;
  } finally {
    if (!interrupted) {
      say("cleaning up");
      await cleanup();
      say(`done in ${((performance.now() - started) / 1000).toFixed(0)} s`);
    }
  }
  if (!interrupted) Deno.exit(code);
}
