/**
 * Operator replay of what a subscription missed (`--help` for the usage):
 *
 *   deno task events:replay --subscription sub_… --since <ISO time | 90m | 2h> [--dry-run]
 *
 * Sends again every event of the subscription since the given time (at most 24 hours back) whose delivery failed or
 * was kept while delivery was suspended, in event order, one at a time and at most 10 per second (the running
 * service sends them; docs/contract.md §6.4). A suspended subscription is reactivated, as by a renewal. With
 * `--dry-run` it only lists them. Exit code 1 when the subscription is not live, 2 for a wrong command line.
 */
import { AppError } from "../errors.ts";
import { REPLAY_WINDOW_MS, replayMissed, REPLAYS_PER_SECOND } from "../events/suspension.ts";
import { commandLine, taskArgs, UsageError, usageText } from "./args.ts";
import { taskActDeps, withTaskDb } from "./open.ts";
import { act, SERVICE } from "../deps.ts";

/** What to replay. */
export interface ReplayCommand {
  subscriptionId: string;
  since: Date;
  dryRun: boolean;
}

const USAGE = usageText({
  synopsis: ["events:replay --subscription sub_… --since <ISO time | 90m | 2h> [--dry-run]"],
  about: [
    "Sends again every event of the subscription since the given time whose delivery failed or was kept while",
    "delivery was suspended: each once, with its event id as webhook-id, in event order, one at a time and at",
    `most ${REPLAYS_PER_SECOND} per second (the running service sends them). A suspended subscription is`,
    "reactivated as by a renewal: every event kept from the last 24 hours is sent too. Events older than 24 hours",
    "are never sent again.",
  ],
  options: [
    ["--subscription sub_…", "the subscription (sub_ and 26 characters a-z, 2-7)"],
    ["--since T", "an ISO 8601 time with zone (2026-10-01T08:00:00Z) or a time back from now: 90m, 2h, 24h"],
    ["--dry-run", "list the events and change nothing"],
  ],
  exits: { 1: "no live subscription with this id (unknown, ended or expired)" },
});
const SUBSCRIPTION_ID = /^sub_[a-z2-7]{26}$/;
const RELATIVE = /^(\d{1,4})(m|h)$/;
const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,3})?)?(Z|[+-]\d{2}:\d{2})$/;

/** The time `--since` names (relative to `now`); throws {@linkcode UsageError} when it is malformed or out of range. */
export function parseSince(value: string, now: number): Date {
  const rel = RELATIVE.exec(value);
  const at = rel
    ? now - Number(rel[1]) * (rel[2] === "h" ? 3_600_000 : 60_000)
    : ISO.test(value)
    ? Date.parse(value)
    : NaN;
  if (Number.isNaN(at)) {
    throw new UsageError(`--since: not an ISO 8601 time with zone or a time back like 90m or 2h: ${value}`);
  }
  if (at > now) throw new UsageError(`--since: lies in the future: ${value}`);
  if (now - at > REPLAY_WINDOW_MS) {
    throw new UsageError(`--since: at most 24 hours back (older events are never sent again): ${value}`);
  }
  return new Date(at);
}

/** Parses the command line; throws {@linkcode UsageError} for anything wrong. */
export function parseReplayArgs(args: string[], now = Date.now()): ReplayCommand {
  const { values } = taskArgs<{ subscription?: string; since?: string; "dry-run"?: boolean }>(args, {
    subscription: { type: "string" },
    since: { type: "string" },
    "dry-run": { type: "boolean" },
  });
  if (values.subscription === undefined) throw new UsageError("--subscription is required");
  if (!SUBSCRIPTION_ID.test(values.subscription)) {
    throw new UsageError(
      `--subscription: not a subscription id (sub_ followed by 26 characters a-z, 2-7): ${values.subscription}`,
    );
  }
  if (values.since === undefined) throw new UsageError("--since is required");
  return {
    subscriptionId: values.subscription,
    since: parseSince(values.since, now),
    dryRun: values["dry-run"] ?? false,
  };
}

/** Runs the task with `args`; returns the exit code. */
export async function main(args: string[]): Promise<number> {
  const cmd = commandLine(args, USAGE, parseReplayArgs);
  if (typeof cmd === "number") return cmd;
  return await withTaskDb("events:replay", async (db) => {
    try {
      const r = await act(
        taskActDeps(db),
        SERVICE,
        (a) => replayMissed(a, cmd.subscriptionId, cmd.since, cmd.dryRun),
      );
      if (r.suspended) {
        console.log(
          `subscription ${cmd.subscriptionId} is suspended: ${
            cmd.dryRun ? "it would be reactivated" : "reactivated"
          }; every event kept from the last 24 hours is sent again`,
        );
      }
      for (const e of r.events) {
        console.log([e.at.toISOString(), e.eventId, e.name.padEnd(18), e.state].join("  "));
      }
      if (r.events.length === 0) {
        console.log(`nothing to send again for ${cmd.subscriptionId} since ${cmd.since.toISOString()}`);
      } else if (cmd.dryRun) {
        console.log(`dry run: ${r.events.length} events would be sent again; nothing changed`);
      } else {
        console.log(
          `${r.sent} events are sent again by the running service, in this order, one at a time, at most ${REPLAYS_PER_SECOND} per second`,
        );
      }
      return 0;
    } catch (err) {
      if (!(err instanceof AppError && err.code === "not_found")) throw err;
      console.error(`no live subscription ${cmd.subscriptionId} (unknown, ended or expired)`);
      return 1;
    }
  });
}

if (import.meta.main) {
  Deno.exit(await main(Deno.args.slice(Deno.args[0] === "events:replay" ? 1 : 0)));
}
