/**
 * Connects a page of a social network to an office, so the social inbox stores its comments and messages:
 *
 *   deno task social:connect --office <id|name> --netz facebook|instagram --page <page id> [--name "…"]
 *   deno task social:connect --netz facebook|instagram --page <page id> --disconnect [--office <id|name>]
 *
 * A page belongs to one office; connecting it to another office moves it (entries already received stay with
 * the office they arrived for). Exit code 2 for bad input (with a message), 0 otherwise.
 */
import { taskArgs, UsageError } from "./args.ts";
import { migrate } from "../db/migrate.ts";
import { AppError } from "../errors.ts";
import { connectSocialPage, disconnectSocialPage, parseNetz, parsePageId } from "../social/pages.ts";
import { openConfiguredDb } from "./open.ts";

const USAGE = "usage: deno task social:connect --office <id> --netz facebook|instagram --page <page id> " +
  '[--name "…"] [--disconnect]';

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
    USAGE,
  );
  const disconnect = values.disconnect ?? false;
  if (!values.netz || !values.page || (!disconnect && !values.office)) {
    throw new UsageError(
      `${disconnect ? "--netz and --page are" : "--office, --netz and --page are"} required\n${USAGE}`,
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
  let a: Args;
  try {
    a = parse(args);
  } catch (err) {
    if (!(err instanceof UsageError)) throw err;
    console.error(err.message);
    return 2;
  }
  const db = await openConfiguredDb("social:connect");
  try {
    if (db.kind === "pglite") await migrate(db);
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
  } catch (err) {
    if (!(err instanceof AppError)) throw err;
    console.error(err.detail ?? err.code);
    return 2;
  } finally {
    await db.close();
  }
}

if (import.meta.main) Deno.exit(await main(Deno.args));
