/**
 * Operator view of the event outbox (until webhook delivery exists, this is where events can be seen):
 *
 *   deno task events:outbox [--pending] [--name inquiry.received] [--limit 50] [--json]
 *
 * Prints the newest rows first: time, event name, owner, originating app and the data (IDs and `satz` only).
 */
import { parseArgs } from "node:util";
import { migrate } from "../db/migrate.ts";
import { listOutbox, type OutboxRow } from "../db/outbox.ts";
import { openConfiguredDb } from "./open.ts";

const { values } = parseArgs({
  args: Deno.args.slice(Deno.args[0] === "events:outbox" ? 1 : 0),
  options: {
    pending: { type: "boolean" },
    name: { type: "string" },
    limit: { type: "string" },
    json: { type: "boolean" },
  },
  strict: true,
});

const limit = values.limit === undefined ? 50 : Number(values.limit);
if (!Number.isInteger(limit) || limit < 1 || limit > 10_000) {
  console.error("--limit must be an integer from 1 to 10000");
  Deno.exit(2);
}

/** One line per row, for people. */
function line(r: OutboxRow): string {
  const owner = r.ownerOfficeId ? `office ${r.ownerOfficeId}` : `seeker ${r.ownerUserId}`;
  const origin = r.originClientId
    ? `app ${r.originClientId}`
    : r.originApiKeyId
    ? `key ${r.originApiKeyId}`
    : "-";
  const state = r.dispatchedAt ? "dispatched" : "pending";
  return `${r.createdAt.toISOString()}  ${r.name.padEnd(18)} ${
    state.padEnd(10)
  } ${owner}  origin ${origin}\n` +
    `    ${JSON.stringify(r.data)}`;
}

const db = await openConfiguredDb("events:outbox");
try {
  if (db.kind === "pglite") await migrate(db);
  const rows = await listOutbox(db, { limit, pendingOnly: values.pending ?? false, name: values.name });
  if (values.json) console.log(JSON.stringify(rows, null, 2));
  else if (rows.length === 0) console.log("the outbox is empty");
  else for (const r of rows) console.log(line(r));
} finally {
  await db.close();
}
