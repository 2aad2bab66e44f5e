/**
 * The README's start command (docs/operations.md §1) on a fresh data folder: migrations, the sample catalogue, serving; a restart keeps
 * the data; `db:seed --count N` adds N sample listings with a progress bar.
 */
import assert from "node:assert/strict";

Deno.test.sanitizer({ ops: true, resources: true });

/** Splits a text stream into lines. */
function splitLines(): TransformStream<string, string> {
  let rest = "";
  return new TransformStream({
    transform(chunk, ctl) {
      const parts = (rest + chunk).split("\n");
      rest = parts.pop() ?? "";
      for (const p of parts) ctl.enqueue(p);
    },
    flush(ctl) {
      if (rest) ctl.enqueue(rest);
    },
  });
}

const ROOT = new URL("../", import.meta.url).pathname;

/**
 * Reads the child's log lines until the "listening" line and returns its URL. The service binds port 0 (the OS
 * picks a free port), so no other process can answer for it: a port picked beforehand and closed again could be
 * taken by another process between the test's probe and the child's bind.
 */
async function listeningUrl(lines: AsyncIterator<string>): Promise<string> {
  for (;;) {
    const next = await lines.next();
    if (next.done) throw new Error("the service exited before it listened");
    try {
      const line = JSON.parse(next.value);
      if (line.msg === "listening") return line.url.replace("0.0.0.0", "127.0.0.1");
    } catch { /* not a log line */ }
  }
}

async function withServer(dataDir: string, fn: (url: string) => Promise<void>) {
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", "main.ts"],
    cwd: ROOT,
    env: { DATA_DIR: dataDir, PORT: "0", LOG_LEVEL: "info", DATABASE_URL: "", KV_PATH: "" },
    stdout: "null",
    stderr: "piped",
  }).spawn();
  const lines = child.stderr.pipeThrough(new TextDecoderStream()).pipeThrough(splitLines())
    [Symbol.asyncIterator]();
  let drained: Promise<void> | undefined;
  try {
    let timer: ReturnType<typeof setTimeout> | undefined;
    const url = await Promise.race([
      listeningUrl(lines),
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error("server did not start within 60 s")), 60_000);
      }),
    ]).finally(() => clearTimeout(timer));
    // Keep reading the log so the child never blocks on a full pipe.
    drained = (async () => {
      while (!(await lines.next()).done) { /* discard */ }
    })();
    await fn(url);
  } finally {
    child.kill("SIGTERM");
    const { code } = await child.status;
    await drained;
    assert.equal(code, 0, "stops cleanly on SIGTERM");
  }
}

Deno.test({
  name:
    "task start on an empty data folder: migrates, seeds the sample catalogue, serves; a restart keeps it",
  fn: async () => {
    const dir = await Deno.makeTempDir();
    try {
      let total = 0;
      await withServer(dir, async (url) => {
        const page = await (await fetch(`${url}/api/public/properties?page_size=60`)).json();
        total = page.total;
        assert.ok(total >= 300, `at least 300 published sample listings, got ${total}`);
        assert.ok(page.items.every((i: { beispiel: boolean }) => i.beispiel === true));
        const cities = new Set<string>();
        for (let p = 1; p <= Math.ceil(total / 60); p++) {
          const body = await (await fetch(`${url}/api/public/properties?page_size=60&page=${p}`)).json();
          for (const i of body.items) cities.add(i.city);
        }
        assert.ok(cities.size >= 15, `at least 15 cities, got ${cities.size}`);
        const baseline = await (await fetch(`${url}/api/public/valuation/location-baseline`, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ lat: 52.39985581, lng: 13.05097061, property_type: "apartment" }),
        })).json();
        assert.deepEqual(
          [baseline.source, baseline.base_eur_sqm],
          ["bodenrichtwert", 1100],
          "sample zones loaded",
        );
      });
      await withServer(dir, async (url) => {
        const page = await (await fetch(`${url}/api/public/properties?page_size=1`)).json();
        assert.equal(page.total, total, "a restart neither loses nor re-seeds");
      });
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
  },
});

Deno.test("db:seed --count N adds N sample listings and shows progress; bad arguments are refused", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const run = (...args: string[]) =>
      new Deno.Command(Deno.execPath(), {
        args: ["run", "-A", "tasks/seed.ts", ...args],
        cwd: ROOT,
        env: { DATA_DIR: dir, DATABASE_URL: "" },
      }).output();
    const out = await run("--count", "2500");
    const err = new TextDecoder().decode(out.stderr);
    assert.equal(out.code, 0, err);
    assert.match(err, /seeding \[#+\] 100% {2}2500\/2500/);
    assert.match(new TextDecoder().decode(out.stdout), /added 2500 sample listings/);
    assert.equal((await run("--count", "zero")).code, 2);
    assert.equal((await run("--count", "-5")).code, 2);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
