/**
 * Operator view of the mail outbox (`--help` for the usage):
 *
 *   deno task mail:outbox [--limit 100] [--json]
 *   deno task mail:outbox --retry <mail id>
 *
 * Lists the mails not sent: those waiting for their next attempt and those given up after the last retry (id,
 * recipient, subject, attempts, last error, next attempt or when given up; never the text). `--retry` makes a
 * given-up (or waiting) mail due now with a fresh series of attempts; the running service sends it with its next
 * sweep. Exit code 1 when `--retry` names no unsent mail, 2 for a wrong command line.
 */
import { listUnsentMails, MAIL_RETRY_DELAYS_MS, retryMail } from "../auth/mail.ts";
import type { UnsentMail } from "../db/mail.ts";
import { isUuid } from "../ids.ts";
import { commandLine, limitOption, taskArgs, UsageError, usageText } from "./args.ts";
import { withTaskDb } from "./open.ts";

/** What to do. */
export type OutboxCommand = { list: { limit: number; json: boolean } } | { retry: string };

const pauses = MAIL_RETRY_DELAYS_MS.map((ms) =>
  ms >= 3_600_000 ? `${ms / 3_600_000} h` : `${ms / 60_000} min`
);

const USAGE = usageText({
  synopsis: ["mail:outbox [--limit N] [--json]", "mail:outbox --retry <mail id>"],
  about: [
    "Lists the outgoing mails not sent: waiting for their next attempt, or given up (id, recipient, subject,",
    "attempts, last error, next attempt or when given up; never the text). Failed attempts are retried after",
    `${pauses.join(", ")}; the sixth failed attempt gives the mail up. Without SMTP_URL mails are only`,
    "recorded and logged, never tried, and not listed here.",
  ],
  options: [
    ["--limit N", "at most N mails, 1 to 10000 (default 100)"],
    ["--json", "print the mails as a JSON array"],
    [
      "--retry <mail id>",
      "make this unsent mail due now with fresh attempts (the service sends it with its next sweep)",
    ],
  ],
  exits: { 1: "--retry: no unsent mail with this id" },
});

/** Parses the command line; throws {@linkcode UsageError} for anything wrong. */
export function parseOutboxArgs(args: string[]): OutboxCommand {
  const { values } = taskArgs<{ limit?: string; json?: boolean; retry?: string }>(args, {
    limit: { type: "string" },
    json: { type: "boolean" },
    retry: { type: "string" },
  });
  if (values.retry !== undefined) {
    if (values.limit !== undefined || values.json) throw new UsageError("--retry takes no other option");
    if (!isUuid(values.retry)) throw new UsageError(`--retry: not a mail id (a UUID): ${values.retry}`);
    return { retry: values.retry.toLowerCase() };
  }
  const limit = limitOption(values.limit, 100);
  return { list: { limit, json: values.json ?? false } };
}

/** One mail as a line for people. */
export function formatMail(m: UnsentMail): string {
  const state = m.givenUpAt
    ? `given up ${m.givenUpAt.toISOString()}`
    : `next ${m.nextAttemptAt?.toISOString()}`;
  return [m.id, m.to, `#${m.attempts}`, state, JSON.stringify(m.subject), m.lastError ?? "-"].join("  ");
}

/** Runs the task with `args`; returns the exit code. */
export async function main(args: string[]): Promise<number> {
  const cmd = commandLine(args, USAGE, parseOutboxArgs);
  if (typeof cmd === "number") return cmd;
  return await withTaskDb("mail:outbox", async (db) => {
    if ("retry" in cmd) {
      if (!await retryMail({ db }, cmd.retry)) {
        console.error(`no unsent mail with id ${cmd.retry}`);
        return 1;
      }
      console.log(`mail ${cmd.retry} is due now; the service sends it with its next sweep`);
      return 0;
    }
    const mails = await listUnsentMails({ db }, cmd.list.limit);
    if (cmd.list.json) console.log(JSON.stringify(mails, null, 2));
    else if (mails.length === 0) console.log("no unsent mails");
    else {
      console.log("id  to  attempts  next attempt / given up  subject  last error");
      for (const m of mails) console.log(formatMail(m));
    }
    return 0;
  });
}

if (import.meta.main) {
  Deno.exit(await main(Deno.args.slice(Deno.args[0] === "mail:outbox" ? 1 : 0)));
}
