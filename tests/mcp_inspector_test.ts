/**
 * The MCP Inspector CLI (an independent client) lists the tools of both servers with an API key, in the legacy
 * era and in the modern era (2026-07-28). Ignored when `npx` is not installed.
 */
import assert from "node:assert/strict";
import { mcpWorld, PROVIDER_TOOLS, SEEKER_TOOLS } from "./mcp_helpers.ts";

/** The pinned Inspector release (its CLI has `--protocol-era legacy|modern`). */
const INSPECTOR = "@modelcontextprotocol/inspector@2.12.0";

async function hasNpx(): Promise<boolean> {
  try {
    const out = await new Deno.Command("npx", { args: ["--version"], stdout: "null", stderr: "null" })
      .output();
    return out.success;
  } catch {
    return false;
  }
}

const ignore = !await hasNpx();

/** Runs the Inspector CLI's `tools/list` against `url` with `key`; returns exit code and stdout/stderr. */
async function inspectorToolsList(
  url: string,
  key: string,
  era: "legacy" | "modern",
  home: string,
): Promise<{ code: number; stdout: string; stderr: string }> {
  const out = await new Deno.Command("npx", {
    args: [
      "-y",
      INSPECTOR,
      "--cli",
      url,
      "--transport",
      "http",
      "--method",
      "tools/list",
      "--header",
      `Authorization: Bearer ${key}`,
      "--protocol-era",
      era,
      // Never start an interactive OAuth login (a refused key must fail, not wait for a browser).
      "--stored-auth-only",
    ],
    env: {
      HOME: home,
      // Keep npm's package cache of the real home, so the pinned Inspector is fetched once, not per run.
      npm_config_cache: Deno.env.get("npm_config_cache") ?? `${Deno.env.get("HOME") ?? home}/.npm`,
      NO_COLOR: "1",
      npm_config_update_notifier: "false",
      npm_config_fund: "false",
    },
    stdout: "piped",
    stderr: "piped",
    stdin: "null",
  }).output();
  const dec = new TextDecoder();
  return { code: out.code, stdout: dec.decode(out.stdout), stderr: dec.decode(out.stderr) };
}

Deno.test({
  name: "MCP Inspector CLI lists the tools of both servers with an API key, in both eras",
  ignore,
  async fn(t) {
    const w = await mcpWorld();
    const home = await Deno.makeTempDir({ prefix: "mcp-inspector-home-" });
    try {
      for (const era of ["legacy", "modern"] as const) {
        for (const who of ["provider", "seeker"] as const) {
          await t.step(`${era} era, ${who} key`, async () => {
            const from = w.seen.length;
            const r = await inspectorToolsList(w.url, w[who].key, era, home);
            assert.equal(r.code, 0, `${r.stdout}\n${r.stderr}`);
            const tools = JSON.parse(r.stdout).tools as Array<{ name: string; outputSchema?: unknown }>;
            assert.deepEqual(
              tools.map((x) => x.name).sort(),
              who === "provider" ? PROVIDER_TOOLS : SEEKER_TOOLS,
            );
            for (const tool of tools) assert.ok(tool.outputSchema, `${tool.name} has an output schema`);
            const versions = new Set(w.seen.slice(from).map((s) => s.version));
            if (era === "modern") {
              assert.ok(versions.has("2026-07-28"), JSON.stringify([...versions]));
              assert.ok(w.seen.slice(from).some((s) => s.method === "server/discover"));
            } else {
              assert.ok(!versions.has("2026-07-28"), JSON.stringify([...versions]));
            }
          });
        }
        await t.step(`${era} era, refused key`, async () => {
          const r = await inspectorToolsList(w.url, "immo_ungueltig", era, home);
          assert.notEqual(r.code, 0);
          assert.match(r.stdout + r.stderr, /auth_required|401|invalid_token/);
        });
      }
    } finally {
      await w.close();
      await Deno.remove(home, { recursive: true });
    }
  },
});
