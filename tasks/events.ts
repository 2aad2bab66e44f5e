/**
 * Operator view of the event outbox (`--help` for the usage):
 *
 *   deno task events:outbox [--pending] [--name inquiry.received] [--limit 50] [--json]
 *
 * Prints the newest rows first: time, event name, owner, originating app and the data (IDs and `satz` only).
 */
import { listOutbox, type OutboxRow } from "../db/outbox.ts";
import { commandLine, limitOption, taskArgs, usageText } from "./args.ts";
import { withTaskDb } from "./open.ts";

const USAGE = usageText({
  synopsis: ["events:outbox [--pending] [--name NAME] [--limit N] [--json]"],
  about: [
    "Lists the rows of the event outbox, newest first: time, event name, dispatched or pending, owner",
    "(office or seeker), originating app or API key, and the event data (ids and satz only).",
  ],
  options: [
    ["--pending", "only events not yet dispatched"],
    ["--name NAME", "only events of this name, e.g. inquiry.received"],
    ["--limit N", "at most N rows, 1 to 10000 (default 50)"],
    ["--json", "print the rows as a JSON array"],
  ],
});

/** What to list. */
interface OutboxQuery {
  pending: boolean;
  name: string | undefined;
  limit: number;
  json: boolean;
}

/** Parses `args`; throws {@linkcode UsageError} for anything wrong. */
function parse(args: string[]): OutboxQuery {
  const { values } = taskArgs<{ pending?: boolean; name?: string; limit?: string; json?: boolean }>(args, {
    pending: { type: "boolean" },
    name: { type: "string" },
    limit: { type: "string" },
    json: { type: "boolean" },
  });
  const limit = limitOption(values.limit, 50);
  return { pending: values.pending ?? false, name: values.name, limit, json: values.json ?? false };
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

/** Runs the task with `args`; returns the exit code. */
export async function main(args: string[]): Promise<number> {
  const q = commandLine(args, USAGE, parse);
  if (typeof q === "number") return q;
  return await withTaskDb("events:outbox", async (db) => {
    const rows = await listOutbox(db, { limit: q.limit, pendingOnly: q.pending, name: q.name });
    if (q.json) console.log(JSON.stringify(rows, null, 2));
    else if (rows.length === 0) console.log("the outbox is empty");
    else for (const r of rows) console.log(line(r));
    return 0;
  });
}

if (import.meta.main) Deno.exit(await main(Deno.args.slice(Deno.args[0] === "events:outbox" ? 1 : 0)));
