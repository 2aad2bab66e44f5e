/**
 * The structure stays true: the import graph of every source file (from `deno info --json`, value and type-only
 * imports alike) has no circle, and no file imports from a layer above its own. Layers, from the bottom:
 *
 * 1. root utilities (`config.ts`, `errors.ts`, `log.ts`, `ids.ts`, `text.ts`, `crypto.ts`, `paging.ts`): import only each
 *    other;
 * 2. `db/`: SQL, migrations, connections, KV keys; imports only `db/` and the root utilities;
 * 3. the domain folders and `deps.ts` (the dependency type they receive): import the domain, `db/` and the root;
 * 4. adapters (`routes/`, `pages/`, `mcp/`, `tasks/`, `bench/`) and the composition (`app.ts`, `main.ts`,
 *    `background.ts`): anything below. Tests are not part of the graph.
 *
 * See docs/architecture.md ("Layers").
 */
import assert from "node:assert/strict";

const ROOT = new URL("../", import.meta.url);
const ROOT_PATH = decodeURIComponent(ROOT.pathname);
const UTILITIES = new Set([
  "config.ts",
  "errors.ts",
  "log.ts",
  "ids.ts",
  "text.ts",
  "crypto.ts",
  "paging.ts",
]);
const DOMAIN = new Set([
  "agent",
  "auth",
  "catalogue",
  "documents",
  "events",
  "inquiries",
  "intake",
  "jobs",
  "photos",
  "searches",
  "social",
  "valuation",
  "viewings",
]);
const ADAPTERS = new Set(["routes", "pages", "mcp", "tasks", "bench", "tests"]);
const COMPOSITION = new Set(["app.ts", "main.ts", "background.ts", "cron.ts"]);
const LAYER_NAMES = ["root utilities", "db", "domain", "adapters"];

/** The layer of a repository path (0 lowest); throws for a file that belongs to no layer. */
export function layerOf(path: string): number {
  const top = path.split("/")[0]!;
  if (!path.includes("/")) {
    if (UTILITIES.has(path)) return 0;
    if (path === "deps.ts") return 2;
    if (COMPOSITION.has(path)) return 3;
  }
  if (top === "db") return 1;
  if (DOMAIN.has(top)) return 2;
  if (ADAPTERS.has(top)) return 3;
  throw new Error(`${path} belongs to no layer: add its folder to tests/import_graph_test.ts`);
}

async function sourceFiles(dir = ""): Promise<string[]> {
  const out: string[] = [];
  for await (const e of Deno.readDir(new URL(dir || ".", ROOT))) {
    const path = dir ? `${dir}/${e.name}` : e.name;
    if (e.isDirectory) {
      if (!e.name.startsWith(".") && !["tests", "test-output", "node_modules", "fixtures"].includes(e.name)) {
        out.push(...await sourceFiles(path));
      }
    } else if (/\.tsx?$/.test(e.name) && !/_test\.tsx?$/.test(e.name)) out.push(path);
  }
  return out;
}

/** Repository path → the repository paths it imports (value and type imports). */
async function importGraph(): Promise<Map<string, Set<string>>> {
  const files = await sourceFiles();
  const dir = await Deno.makeTempDir({ prefix: "import_graph_" });
  try {
    const entry = `${dir}/entry.ts`;
    await Deno.writeTextFile(entry, files.map((f) => `import "${new URL(f, ROOT).href}";`).join("\n"));
    const out = await new Deno.Command(Deno.execPath(), {
      args: ["info", "--json", entry],
      cwd: ROOT_PATH,
      stdout: "piped",
      stderr: "piped",
    }).output();
    assert.equal(out.code, 0, new TextDecoder().decode(out.stderr));
    const info = JSON.parse(new TextDecoder().decode(out.stdout)) as {
      modules: Array<{
        specifier: string;
        dependencies?: Array<{ code?: { specifier: string }; type?: { specifier: string } }>;
      }>;
    };
    const local = (spec: string | undefined) =>
      spec?.startsWith(ROOT.href) ? decodeURIComponent(spec.slice(ROOT.href.length)) : undefined;
    const graph = new Map<string, Set<string>>();
    for (const m of info.modules) {
      const from = local(m.specifier);
      if (!from || !files.includes(from)) continue;
      const to = new Set<string>();
      for (const d of m.dependencies ?? []) {
        for (const spec of [d.code?.specifier, d.type?.specifier]) {
          const target = local(spec);
          if (target && /\.tsx?$/.test(target)) to.add(target);
        }
      }
      graph.set(from, to);
    }
    return graph;
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

/** The strongly connected components with more than one file (or a file importing itself): the circles. */
function circles(graph: Map<string, Set<string>>): string[][] {
  let index = 0;
  const idx = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const on = new Set<string>();
  const found: string[][] = [];
  const visit = (v: string) => {
    idx.set(v, index);
    low.set(v, index++);
    stack.push(v);
    on.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!idx.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (on.has(w)) low.set(v, Math.min(low.get(v)!, idx.get(w)!));
    }
    if (low.get(v) === idx.get(v)) {
      const scc: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        on.delete(w);
        scc.push(w);
      } while (w !== v);
      if (scc.length > 1 || graph.get(v)?.has(v)) found.push(scc.sort());
    }
  };
  for (const v of graph.keys()) if (!idx.has(v)) visit(v);
  return found;
}

const graph = await importGraph();

Deno.test("the import graph covers the service's source files", () => {
  for (const f of ["main.ts", "app.ts", "deps.ts", "db/connection.ts", "routes/catalogue.ts"]) {
    assert.ok(graph.has(f), `${f} is in the graph`);
  }
  assert.ok([...graph.values()].reduce((n, s) => n + s.size, 0) > 300, "hundreds of imports were read");
});

Deno.test("no import circle", () => {
  assert.deepEqual(circles(graph), []);
});

Deno.test("no import from a lower layer into a higher one", () => {
  const wrong: string[] = [];
  for (const [from, targets] of graph) {
    for (const to of targets) {
      if (layerOf(to) > layerOf(from)) {
        wrong.push(`${from} (${LAYER_NAMES[layerOf(from)]}) imports ${to} (${LAYER_NAMES[layerOf(to)]})`);
      }
    }
  }
  assert.deepEqual(wrong.sort(), []);
});

Deno.test("the checks can fail: a circle and an upward import are found", () => {
  const g = new Map([["a.ts", new Set(["b.ts"])], ["b.ts", new Set(["a.ts"])], ["c.ts", new Set<string>()]]);
  assert.deepEqual(circles(g), [["a.ts", "b.ts"]]);
  assert.ok(layerOf("db/x.ts") < layerOf("catalogue/x.ts"));
  assert.ok(layerOf("routes/x.ts") > layerOf("deps.ts"));
});
