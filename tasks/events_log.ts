/**
 * Operator view of webhook delivery attempts (`--help` for the usage):
 *
 *   deno task events:log --subscription sub_… [--limit 100] [--json]
 *   deno task events:log --event evt_… [--limit 100] [--json]
 *
 * Prints the attempts oldest first, one line each: time, event id, event name, subscription, attempt number,
 * HTTP status or error class, duration and outcome. Exit code 2 for a missing option or a malformed id.
 */
import { commandLine, limitOption, taskArgs, UsageError, usageText } from "./args.ts";
import { eventIdOf, outboxIdOf } from "../db/outbox.ts";
import { attemptLog, type AttemptLogLine } from "../db/delivery_log.ts";
import { withTaskDb } from "./open.ts";

/** What to show. */
export interface LogQuery {
  of: { subscriptionId: string } | { outboxId: string };
  limit: number;
  json: boolean;
}

const USAGE = usageText({
  synopsis: [
    "events:log --subscription sub_… [--limit N] [--json]",
    "events:log --event evt_… [--limit N] [--json]",
  ],
  about: [
    "Lists the webhook delivery attempts of one subscription or of one event, oldest first: time, event id,",
    "event name, subscription, attempt number, HTTP status or error class, duration and outcome.",
  ],
  options: [
    ["--subscription sub_…", "the attempts for this subscription (sub_ and 26 characters a-z, 2-7)"],
    ["--event evt_…", "the attempts for this event (evt_ and 32 hex digits); give one of the two"],
    ["--limit N", "at most N attempts, 1 to 10000 (default 100)"],
    ["--json", "print the attempts as a JSON array"],
  ],
});
const SUBSCRIPTION_ID = /^sub_[a-z2-7]{26}$/;

/** Parses the command line; throws {@linkcode UsageError} for anything wrong. */
export function parseLogArgs(args: string[]): LogQuery {
  const { values } = taskArgs<{ subscription?: string; event?: string; limit?: string; json?: boolean }>(
    args,
    {
      subscription: { type: "string" },
      event: { type: "string" },
      limit: { type: "string" },
      json: { type: "boolean" },
    },
  );
  const limit = limitOption(values.limit, 100);
  const json = values.json ?? false;
  if (values.subscription !== undefined && values.event !== undefined) {
    throw new UsageError("give either --subscription or --event, not both");
  }
  if (values.subscription !== undefined) {
    if (!SUBSCRIPTION_ID.test(values.subscription)) {
      throw new UsageError(
        `--subscription: not a subscription id (sub_ followed by 26 characters a-z, 2-7): ${values.subscription}`,
      );
    }
    return { of: { subscriptionId: values.subscription }, limit, json };
  }
  if (values.event !== undefined) {
    const outboxId = outboxIdOf(values.event);
    if (!outboxId) {
      throw new UsageError(`--event: not an event id (evt_ followed by 32 hex digits): ${values.event}`);
    }
    return { of: { outboxId }, limit, json };
  }
  throw new UsageError("--subscription or --event is required");
}

/** One attempt as a line for people. */
export function formatAttempt(l: AttemptLogLine): string {
  const result = [l.status, l.errorClass].filter((x) => x !== null).join(" ") || "-";
  return [
    l.startedAt.toISOString(),
    l.eventId,
    l.name.padEnd(18),
    l.subscriptionId,
    `#${l.attempt}`,
    result.padEnd(24),
    `${String(l.durationMs).padStart(6)} ms`,
    l.outcome,
  ].join("  ");
}

/** Runs the task with `args`; returns the exit code. */
export async function main(args: string[]): Promise<number> {
  const q = commandLine(args, USAGE, parseLogArgs);
  if (typeof q === "number") return q;
  return await withTaskDb("events:log", async (db) => {
    const lines = await attemptLog(db, q.of, q.limit);
    if (q.json) console.log(JSON.stringify(lines, null, 2));
    else if (lines.length === 0) {
      const what = "subscriptionId" in q.of
        ? `subscription ${q.of.subscriptionId}`
        : `event ${eventIdOf(q.of.outboxId)}`;
      console.log(`no delivery attempts for ${what}`);
    } else for (const l of lines) console.log(formatAttempt(l));
    return 0;
  });
}

if (import.meta.main) {
  Deno.exit(await main(Deno.args.slice(Deno.args[0] === "events:log" ? 1 : 0)));
}
