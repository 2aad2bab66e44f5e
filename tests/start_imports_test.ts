/**
 * A fast start (docs/architecture.md §11.17): what only the embedded database, PDF reading, XML, zip files, mail,
 * images, coordinate transforms or tests need is not loaded when the service starts, but by the first request that
 * needs it. Checked on the static import graph of what `main.ts` loads at start (`deno info --json`): itself, and
 * the modules it imports while the database connects or right after it listens. Only a later `import()` may reach
 * those packages.
 */
import assert from "node:assert/strict";

const ROOT = new URL("../", import.meta.url);

/** What `main.ts` loads at every start: itself, then (by `import()`) the app, the agent's hooks, the background. */
const LOADED_AT_START = ["main.ts", "app.ts", "agent/hooks.ts", "background.ts"];

/** Packages the service loads on first use only. */
const LAZY = [
  "@electric-sql/pglite",
  "unpdf",
  "fast-xml-parser",
  "fflate",
  "nodemailer",
  "postal-mime",
  "proj4",
  "@streamparser/json",
  "shapefile",
  "saxes",
  "sharp",
  "pdf-lib",
  "playwright-core",
  "@modelcontextprotocol/client",
  "@modelcontextprotocol/sdk",
  "standardwebhooks",
  "svix",
  "better-auth",
  "@better-auth/core",
  "@better-auth/mcp",
  "@modelcontextprotocol/server",
  "jose",
];

interface InfoModule {
  specifier: string;
  dependencies?: Array<{ code?: { specifier?: string }; isDynamic?: boolean }>;
}

/** The npm packages the start modules reach through static (not `import()`) imports, with a path to each. */
async function staticPackages(): Promise<Map<string, string[]>> {
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["info", "--json", "main.ts"],
    cwd: decodeURIComponent(ROOT.pathname),
    stdout: "piped",
    stderr: "piped",
  }).output();
  assert.equal(out.code, 0, new TextDecoder().decode(out.stderr));
  const info = JSON.parse(new TextDecoder().decode(out.stdout)) as { roots: string[]; modules: InfoModule[] };
  const modules = new Map(info.modules.map((m) => [m.specifier, m]));
  const found = new Map<string, string[]>();
  const seen = new Set<string>();
  const walk = (specifier: string, path: string[]) => {
    if (seen.has(specifier)) return;
    seen.add(specifier);
    for (const d of modules.get(specifier)?.dependencies ?? []) {
      const target = d.code?.specifier;
      if (!target || d.isDynamic) continue;
      if (target.startsWith("npm:")) {
        const name = target.replace(/^npm:\/?/, "").replace(/^((?:@[^/]+\/)?[^@/]+).*$/, "$1");
        if (!found.has(name)) found.set(name, [...path, specifier]);
      } else walk(target, [...path, specifier]);
    }
  };
  for (const file of LOADED_AT_START) {
    const specifier = new URL(file, ROOT).href;
    assert.ok(modules.has(specifier), `${file} is in the graph of main.ts`);
    walk(specifier, []);
  }
  return found;
}

Deno.test("main.ts loads no package at start that only some requests need", async () => {
  const packages = await staticPackages();
  assert.ok(packages.has("hono") && packages.has("postgres"), "the graph was read");
  for (const name of LAZY) {
    const path = packages.get(name);
    assert.equal(
      path,
      undefined,
      `${name} is loaded at start through ${path?.map((p) => p.replace(ROOT.href, "")).join(" → ")}`,
    );
  }
});
