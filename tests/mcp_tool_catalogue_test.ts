/**
 * The tool catalogue of both servers, as real clients of both eras see it: exactly the tools the issue names,
 * each with a title, a real description, an input and an output schema, and the four MCP annotations.
 */
import assert from "node:assert/strict";
import { CLIENT_KINDS, connectClient, mcpWorld, PROVIDER_TOOLS, SEEKER_TOOLS } from "./mcp_helpers.ts";
import { fileWorld } from "./helpers.ts";

const w = await fileWorld(() => mcpWorld());

for (const kind of CLIENT_KINDS) {
  for (const who of ["provider", "seeker"] as const) {
    Deno.test(`${kind}: the ${who} server lists exactly its tools, each fully described`, async () => {
      const client = await connectClient(kind, w.url, w[who].key);
      try {
        // deno-lint-ignore no-explicit-any
        const { tools } = await client.listTools() as { tools: any[] };
        assert.deepEqual(tools.map((t) => t.name).sort(), who === "provider" ? PROVIDER_TOOLS : SEEKER_TOOLS);
        for (const tool of tools) {
          assert.ok(tool.title, `${tool.name}: title`);
          assert.ok(tool.description.length >= 60, `${tool.name}: description`);
          assert.equal(tool.inputSchema?.type, "object", `${tool.name}: input schema`);
          assert.equal(tool.outputSchema?.type, "object", `${tool.name}: output schema`);
          for (const hint of ["readOnlyHint", "destructiveHint", "idempotentHint", "openWorldHint"]) {
            assert.equal(typeof tool.annotations?.[hint], "boolean", `${tool.name}: ${hint}`);
          }
          if (tool.annotations.readOnlyHint) {
            assert.equal(
              tool.annotations.destructiveHint,
              false,
              `${tool.name}: read-only is not destructive`,
            );
          }
        }
      } finally {
        await client.close();
      }
    });
  }
}
