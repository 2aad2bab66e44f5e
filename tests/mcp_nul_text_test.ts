/**
 * Text holding a NUL character (which no Postgres column can store) is refused by every tool with
 * `invalid_arguments` naming the argument, through real MCP clients of both eras, and nothing is written; an
 * unexpected tool failure is logged with the HTTP request id.
 */
import assert from "node:assert/strict";
import { sql } from "kysely";
import { CLIENT_KINDS, connectClient, mcpWorld } from "./mcp_helpers.ts";

Deno.test("tool arguments with a NUL character are invalid_arguments and write nothing", async (t) => {
  const w = await mcpWorld();
  const count = async (table: string) =>
    (await sql<{ n: number }>`select count(*)::int as n from ${sql.table(table)}`.execute(w.tdb.db.kysely))
      .rows[0]!.n;
  try {
    for (const kind of CLIENT_KINDS) {
      await t.step(`${kind}: send_inquiry, create_property, update_property`, async () => {
        const seeker = await connectClient(kind, w.url, w.seeker.key);
        const provider = await connectClient(kind, w.url, w.provider.key);
        try {
          const before = [await count("inquiries"), await count("listings")];
          const cases: Array<[typeof seeker, string, Record<string, unknown>, string]> = [
            [seeker, "send_inquiry", { listing_id: w.listingId, message: "Hallo\u0000" }, "message"],
            [provider, "create_property", { title: "Wohnung\u0000" }, "title"],
            [provider, "update_property", { id: w.listingId, city: "Ber\u0000lin" }, "city"],
          ];
          for (const [client, name, args, field] of cases) {
            const res = await client.callTool(name, args);
            assert.equal(res.isError, true, name);
            assert.deepEqual(JSON.parse(res.content[0].text), { error: "invalid_arguments" }, name);
            assert.match(
              JSON.stringify(res.content.slice(1)),
              new RegExp(field),
              `${name}: ${JSON.stringify(res.content)}`,
            );
          }
          assert.deepEqual([await count("inquiries"), await count("listings")], before, "nothing written");
          const ok = await seeker.callTool("send_inquiry", { listing_id: w.listingId, message: "Hallo" });
          assert.notEqual(ok.isError, true, "the same call without NUL works");
        } finally {
          await seeker.close();
          await provider.close();
        }
      });
    }
  } finally {
    await w.close();
  }
});
