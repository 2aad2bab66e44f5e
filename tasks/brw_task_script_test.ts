/**
 * `deno task brw:import` and `deno task brw:datasets` as an operator runs them: child processes on a fresh
 * embedded database (a file of its own, so that no PGlite of another test file runs alongside).
 */
import assert from "node:assert/strict";

Deno.test.sanitizer({ ops: true, resources: true });

const fixture = (name: string) => new URL(`../valuation/fixtures/${name}`, import.meta.url).pathname;
const NW = "nw_duesseldorf_koeln_epsg25832.geojson";

Deno.test({
  name: "task: `deno task brw:import` and `brw:datasets` run as scripts on a fresh embedded database",
  fn: async () => {
    const dir = await Deno.makeTempDir();
    try {
      const run = (args: string[]) =>
        new Deno.Command("deno", {
          args: ["task", "-q", ...args],
          cwd: new URL("../", import.meta.url).pathname,
          env: { DATA_DIR: dir, DATABASE_URL: "", NO_COLOR: "1" },
          stdout: "piped",
          stderr: "piped",
        }).output();
      const ok = await run(["brw:import", fixture(NW), "--state", "NW"]);
      const err = new TextDecoder().decode(ok.stderr);
      assert.equal(ok.code, 0, err);
      assert.match(new TextDecoder().decode(ok.stdout), /^imported 7 zones for NW, Stichtag 2024-01-01/);
      assert.match(err, /reading \[#+\] 100%/, "progress bar on stderr");
      const list = await run(["brw:datasets"]);
      assert.match(new TextDecoder().decode(list.stdout), /^NW {2}Stichtag 2024-01-01 {2}7 zones/);
      const refused = await run(["brw:import", fixture(NW), "--state", "BY"]);
      assert.equal(refused.code, 2);
      assert.match(new TextDecoder().decode(refused.stderr), /no licence to reuse/);
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
  },
});
