/**
 * Connects a page of a social network to an office, so the social inbox stores its comments and messages
 * (`--help` for the usage):
 *
 *   deno task social:connect --office <id|name> --netz facebook|instagram --page <page id> [--name "…"]
 *   deno task social:connect --netz facebook|instagram --page <page id> --disconnect [--office <id|name>]
 *
 * A page belongs to one office; connecting it to another office moves it (entries already received stay with
 * the office they arrived for). Exit code 2 for bad input (with a message), 0 otherwise.
 */
import { commandLine, taskArgs, UsageError, usageText } from "./args.ts";
import { AppError } from "../errors.ts";
import { connectSocialPage, disconnectSocialPage, parseNetz, parsePageId } from "../social/pages.ts";
import { withTaskDb } from "./open.ts";

const USAGE = usageText({
  synopsis: [
    'social:connect --office ID|NAME --netz facebook|instagram --page PAGE_ID [--name "…"]',
    "social:connect --netz facebook|instagram --page PAGE_ID --disconnect [--office ID|NAME]",
  ],
  about: [
    "Connects a Facebook or Instagram page to an office, so the social inbox stores its comments and",
    "messages; connecting it to another office moves it (entries already received stay where they are).",
    "With --disconnect the page is no longer connected (to that office only, when --office is given).",
  ],
  options: [
    ["--office ID|NAME", "the office, by id or exact name (required unless --disconnect)"],
    ["--netz facebook|instagram", "the social network (required)"],
    ["--page PAGE_ID", "the page id of the network (required)"],
    ['--name "…"', "a name for the page, shown in the inbox (not with --disconnect)"],
    ["--disconnect", "disconnect the page instead of connecting it"],
  ],
  exits: { 2: "usage: a wrong command line, an unknown network, page id or office (message on stderr)" },
});

/** The parsed command line. */
interface Args {
  office?: string | undefined;
  netz: string;
  page: string;
  name?: string | undefined;
  disconnect: boolean;
}

/** Parses `args`; throws {@linkcode UsageError} for unknown or missing options. */
function parse(args: string[]): Args {
  const { values } = taskArgs<
    { office?: string; netz?: string; page?: string; name?: string; disconnect?: boolean }
  >(
    args,
    {
      office: { type: "string" },
      netz: { type: "string" },
      page: { type: "string" },
      name: { type: "string" },
      disconnect: { type: "boolean" },
    },
  );
  const disconnect = values.disconnect ?? false;
  if (!values.netz || !values.page || (!disconnect && !values.office)) {
    throw new UsageError(
      `${disconnect ? "--netz and --page are" : "--office, --netz and --page are"} required`,
    );
  }
  if (disconnect && values.name !== undefined) throw new UsageError("--name does not go with --disconnect");
  try {
    parseNetz(values.netz);
    parsePageId(values.page);
  } catch (err) {
    if (err instanceof AppError) throw new UsageError(err.detail ?? err.code);
    throw err;
  }
  return { office: values.office, netz: values.netz, page: values.page, name: values.name, disconnect };
}

/** Runs the task with `args`; returns the exit code. */
export async function main(args: string[]): Promise<number> {
  const a = commandLine(args, USAGE, parse);
  if (typeof a === "number") return a;
  return await withTaskDb("social:connect", async (db) => {
    if (a.disconnect) {
      const was = await disconnectSocialPage(db, { office: a.office, netz: a.netz, pageId: a.page });
      console.log(
        was
          ? `disconnected: ${a.netz} page ${a.page} (was office ${was})`
          : `not connected: ${a.netz} page ${a.page}`,
      );
      return 0;
    }
    const r = await connectSocialPage(db, {
      office: a.office!,
      netz: a.netz,
      pageId: a.page,
      name: a.name,
      at: new Date(),
    });
    const moved = r.previousOfficeId && r.previousOfficeId !== r.officeId
      ? ` (moved from office ${r.previousOfficeId})`
      : "";
    console.log(`connected: ${a.netz} page ${a.page} → ${r.officeName} (${r.officeId})${moved}`);
    return 0;
  }).catch((err) => {
    if (!(err instanceof AppError)) throw err;
    console.error(err.detail ?? err.code);
    return 2;
  });
}

if (import.meta.main) Deno.exit(await main(Deno.args));
