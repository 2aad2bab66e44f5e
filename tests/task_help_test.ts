/**
 * Every task explains itself: each `deno task` in deno.json has a description that `deno task` lists, and each
 * operator task (a task running `tasks/…`) answers `--help` and `-h` with its usage on stdout and exit 0 without
 * opening the database (no `pglite` folder, lock file or KV file in DATA_DIR; on Postgres no table in a fresh
 * schema), and an unknown option with exit 2 and the usage on stderr.
 */
import assert from "node:assert/strict";
import postgres from "postgres";
import { helpRequested, usageText } from "../tasks/args.ts";
import { DATABASE_URL } from "./helpers.ts";
import { ROOT, runDeno } from "./service_process.ts";

/** A task entry of deno.json in its object form. */
interface TaskEntry {
  description?: unknown;
  command?: unknown;
}

/** The tasks of deno.json. */
async function denoTasks(): Promise<Record<string, TaskEntry | string>> {
  return JSON.parse(await Deno.readTextFile(`${ROOT}deno.json`)).tasks;
}

/** The names of the operator tasks: those whose command runs a file under `tasks/`. */
async function operatorTasks(): Promise<string[]> {
  return Object.entries(await denoTasks())
    .filter(([, t]) => typeof t === "object" && / tasks\/\S+\.ts\b/.test(String(t.command)))
    .map(([name]) => name);
}

/** Where the children would find their database, and a check that they left it alone. */
interface Untouched {
  env: Record<string, string>;
  /** Throws when the children created or changed anything. */
  verify(): Promise<void>;
  cleanup(): Promise<void>;
}

/** A fresh empty DATA_DIR, and on Postgres a fresh empty schema the children are pointed at. */
async function untouchedDatabase(): Promise<Untouched> {
  const dir = await Deno.makeTempDir({ prefix: "task_help_" });
  const env = { DATA_DIR: dir, KV_PATH: `${dir}/kv.sqlite3`, DATABASE_URL: "", NO_COLOR: "1" };
  const emptyDir = async () => {
    const left = await Array.fromAsync(Deno.readDir(dir), (e) => e.name);
    assert.deepEqual(left, [], "DATA_DIR stays empty (no pglite folder, lock or KV file)");
  };
  if (!DATABASE_URL) {
    return { env, verify: emptyDir, cleanup: () => Deno.remove(dir, { recursive: true }) };
  }
  const schema = `t_${crypto.randomUUID().replaceAll("-", "").slice(0, 16)}`;
  const admin = postgres(DATABASE_URL, { max: 1, onnotice: () => {} });
  await admin.unsafe(`create schema ${schema}`);
  const url = new URL(DATABASE_URL);
  url.searchParams.set("search_path", schema);
  return {
    env: { ...env, DATABASE_URL: url.toString() },
    async verify() {
      await emptyDir();
      const [row] = await admin`select count(*)::int as n from information_schema.tables
        where table_schema = ${schema}`;
      assert.equal(row?.n, 0, "no table was created in the fresh schema");
    },
    async cleanup() {
      await admin.unsafe(`drop schema ${schema} cascade`);
      await admin.end();
      await Deno.remove(dir, { recursive: true });
    },
  };
}

/** Runs `fn` on every item, two at a time (the machine has two cores); throws the first failure at the end. */
async function twoAtATime<T>(items: T[], fn: (item: T) => Promise<void>): Promise<void> {
  const queue = [...items];
  const worker = async () => {
    for (let item = queue.shift(); item !== undefined; item = queue.shift()) await fn(item);
  };
  const failed = (await Promise.allSettled([worker(), worker()])).find((r) => r.status === "rejected");
  if (failed) throw failed.reason;
}

/** Checks the answer of `deno task <name> <flag>` for `--help` or `-h`. */
async function checkHelp(name: string, flag: string, env: Record<string, string>): Promise<void> {
  const r = await runDeno(["task", "-q", name, flag], env);
  const what = `deno task ${name} ${flag}`;
  assert.equal(r.code, 0, `${what} exits 0: ${r.stderr}`);
  assert.equal(r.stderr, "", `${what} writes nothing on stderr`);
  assert.match(r.stdout, new RegExp(`^usage: deno task ${name}\\b`, "m"), `${what}: a usage line on stdout`);
  assert.match(r.stdout, /^options:$/m, `${what} lists the options`);
  assert.match(r.stdout, /--help/, `${what} names --help`);
  assert.match(r.stdout, /^exit codes:\n {2}0 .*\n(?: {2}\d .*\n)* {2}2 /m, `${what} lists the exit codes`);
}

/** Checks that an unknown option exits 2 with the usage on stderr and nothing on stdout. */
async function checkUnknownOption(name: string, env: Record<string, string>): Promise<void> {
  const r = await runDeno(["task", "-q", name, "--no-such-option"], env);
  const what = `deno task ${name} --no-such-option`;
  assert.equal(r.code, 2, `${what} exits 2: ${r.stderr}`);
  assert.equal(r.stdout, "", `${what} writes nothing on stdout`);
  assert.match(r.stderr, /--no-such-option/, `${what} names the option`);
  assert.match(r.stderr, new RegExp(`^usage: deno task ${name}\\b`, "m"), `${what}: the usage on stderr`);
  assert.doesNotMatch(r.stderr, /^\s+at /m, `${what}: no stack trace`);
}

Deno.test("every task in deno.json has a description, and `deno task` lists it", async () => {
  const tasks = await denoTasks();
  assert.ok(Object.keys(tasks).length > 0);
  const listed = await runDeno(["task"], { NO_COLOR: "1" });
  assert.equal(listed.code, 0, listed.stderr);
  for (const [name, task] of Object.entries(tasks)) {
    assert.equal(typeof task, "object", `${name} uses the object form { description, command }`);
    const { description, command } = task as TaskEntry;
    assert.ok(typeof description === "string" && description.trim() !== "", `${name} has a description`);
    assert.ok(typeof command === "string" && command.trim() !== "", `${name} has a command`);
    assert.ok(listed.stdout.includes(`- ${name}\n    // ${description}\n`), `deno task lists ${name}`);
  }
});

Deno.test("every operator task answers --help and -h without touching the database", async () => {
  const names = await operatorTasks();
  assert.ok(
    ["db:migrate", "office:create", "mail:outbox"].every((n) => names.includes(n)),
    names.join(", "),
  );
  const db = await untouchedDatabase();
  try {
    const runs = names.flatMap((name) => [["--help", name], ["-h", name]] as const);
    await twoAtATime([...runs], ([flag, name]) => checkHelp(name, flag, db.env));
    await db.verify();
  } finally {
    await db.cleanup();
  }
});

Deno.test("every operator task refuses an unknown option with exit 2 and its usage on stderr", async () => {
  const names = await operatorTasks();
  const db = await untouchedDatabase();
  try {
    await twoAtATime(names, (name) => checkUnknownOption(name, db.env));
    await db.verify();
  } finally {
    await db.cleanup();
  }
});

Deno.test("helpRequested: --help or -h before any --; usageText starts with the usage line", () => {
  assert.equal(helpRequested(["--count", "3", "--help"]), true);
  assert.equal(helpRequested(["-h"]), true);
  assert.equal(helpRequested(["--", "--help"]), false);
  assert.equal(helpRequested(["--helpful"]), false);
  const text = usageText({ synopsis: ["x:y [--a]", "x:y --b"], about: ["Does x."], database: false });
  assert.match(text, /^usage: deno task x:y \[--a\]\n {7}deno task x:y --b\n/);
  assert.doesNotMatch(text, /DATABASE_URL/);
});
