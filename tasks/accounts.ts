/**
 * Operator tasks for people, offices and apps (run `deno task <command> --help` for each one's usage):
 *
 *   deno task office:create --name "Büro Nord"
 *   deno task office:list
 *   deno task provider:add --office <id|name> --email a@b.de --name "Ada" [--password-stdin]
 *   deno task provider:remove --email a@b.de
 *   deno task auth:clients
 *
 * A new provider without `--password-stdin` gets a random password, printed once. Removing a provider ends her
 * membership and her provider credentials at once; her account stays, as a seeker account.
 * Exit codes: 0 done, 1 refused (e.g. no such office), 2 usage, 3 the embedded database is held by another task.
 */
import { addProvider, removeProvider } from "../auth/accounts.ts";
import { createAuth } from "../auth/better_auth.ts";
import { resolveAuthSecret } from "../auth/secret.ts";
import { configFromEnv } from "../config.ts";
import type { Db } from "../db/connection.ts";
import { clientsWithConnections } from "../db/oauth.ts";
import { createOffice, findOffice, listOffices } from "../db/offices.ts";
import { AppError } from "../errors.ts";
import {
  commandLine,
  helpRequested,
  printUsage,
  taskArgs,
  type TaskHelp,
  type TaskOptions,
  UsageError,
  usageFailure,
  usageText,
} from "./args.ts";
import { taskActDeps, withTaskDb } from "./open.ts";

type Values = Record<string, string | boolean | undefined>;

interface Command {
  help: TaskHelp;
  options: TaskOptions;
  /** The options that must be given (checked before the database opens). */
  required?: string[];
  run(db: Db, values: Values): Promise<void>;
}

const QUIET = { log: () => {} };

const COMMANDS: Record<string, Command> = {
  "office:create": {
    help: {
      synopsis: ['office:create --name "…"'],
      about: ["Creates an office (a provider's organisation) and prints its id."],
      options: [['--name "…"', "the office's name, 1 to 200 characters (required)"]],
    },
    options: { name: { type: "string" } },
    required: ["name"],
    async run(db, v) {
      const name = typeof v.name === "string" ? v.name.trim() : "";
      if (!name || name.length > 200) throw new UsageError("--name (1 to 200 characters) is required");
      console.log(`office created: ${await createOffice(db, name)} ${name}`);
    },
  },
  "office:list": {
    help: {
      synopsis: ["office:list"],
      about: ["Lists the offices: id, name and number of active members."],
    },
    options: {},
    async run(db) {
      for (const o of await listOffices(db)) console.log(`${o.id}  ${o.name}  (${o.members} active members)`);
    },
  },
  "provider:add": {
    help: {
      synopsis: ['provider:add --office ID|NAME --email E [--name "…"] [--password-stdin]'],
      about: [
        "Makes a new or existing account a provider member of the office. A new account without",
        "--password-stdin gets a random password, printed once.",
      ],
      options: [
        ["--office ID|NAME", "the office, by id or exact name (required)"],
        ["--email E", "the person's e-mail address (required)"],
        ['--name "…"', "the name of a new account (default: the e-mail address)"],
        ["--password-stdin", "read the password of a new account from stdin"],
      ],
      exits: { 1: "refused: no such office, or a new account without a usable password" },
      env: [["AUTH_SECRET", "required with DATABASE_URL, else exit 2 (the embedded database keeps its own)"]],
    },
    options: {
      office: { type: "string" },
      email: { type: "string" },
      name: { type: "string" },
      "password-stdin": { type: "boolean" },
    },
    required: ["office", "email"],
    run: addProviderCommand,
  },
  "provider:remove": {
    help: {
      synopsis: ["provider:remove --email E"],
      about: [
        "Ends the provider's membership: her API keys and provider app connections stop at once; her account",
        "stays as a seeker account. Without an active membership it says so and changes nothing.",
      ],
      options: [["--email E", "the provider's e-mail address (required)"]],
    },
    options: { email: { type: "string" } },
    required: ["email"],
    async run(db, v) {
      if (typeof v.email !== "string") throw new UsageError("--email is required");
      const ended = await removeProvider(taskActDeps(db), v.email);
      console.log(ended ? `membership ended: ${v.email}` : `no active provider membership for ${v.email}`);
    },
  },
  "auth:clients": {
    help: {
      synopsis: ["auth:clients"],
      about: [
        "Lists the registered apps (OAuth clients): id, name, type, registration time and redirect URIs, and",
        "per app its connections: person, scopes, when connected and last used.",
      ],
    },
    options: {},
    async run(db) {
      for (const c of await clientsWithConnections(db)) {
        console.log(
          `${c.clientId}  ${c.name ?? "(no name)"}  ${c.applicationType ?? "web"}  registered ${
            c.createdAt?.toISOString() ?? "?"
          }  redirect ${c.redirectUris.join(" ")}`,
        );
        for (const k of c.connections) {
          console.log(
            `    ${k.email}  ${k.scopes.join(" ")}  connected ${k.connectedAt.toISOString()}  last used ${
              k.lastUsedAt?.toISOString() ?? "never"
            }`,
          );
        }
      }
    },
  },
};

async function addProviderCommand(db: Db, v: Values): Promise<void> {
  if (typeof v.office !== "string" || typeof v.email !== "string") {
    throw new UsageError("--office and --email are required");
  }
  const office = await findOffice(db, v.office);
  if (!office) {
    throw new AppError("not_found", { field: "office", reason: "unknown_office", names: [v.office] });
  }
  const read = configFromEnv();
  const authSecret = await resolveAuthSecret(read);
  if (!authSecret) throw new UsageError("AUTH_SECRET must be set");
  const auth = createAuth({ config: { ...read, authSecret }, db, log: QUIET });
  // better-auth prepares its plugins (a database read) in the background: wait for it before the database closes.
  await auth.$context;
  const password = v["password-stdin"] ? (await readStdin()).trim() : randomPassword();
  const r = await addProvider(auth, db, {
    officeId: office.id,
    email: v.email,
    name: typeof v.name === "string" ? v.name : v.email,
    password,
  });
  console.log(
    `${r.created ? "provider created" : "existing account is now a provider"}: ${v.email} → ${office.name}`,
  );
  if (r.created && !v["password-stdin"]) console.log(`initial password (shown once): ${password}`);
}

/** Runs `command` (named `name`) with `args`; returns the exit code. */
async function runCommand(name: string, command: Command, args: string[]): Promise<number> {
  const usage = usageText(command.help);
  const values = commandLine(args, usage, (a) => commandValues(command, a));
  if (typeof values === "number") return values;
  try {
    return await withTaskDb(name, async (db) => {
      await command.run(db, values);
      return 0;
    });
  } catch (err) {
    if (err instanceof UsageError) return usageFailure(err.message, usage);
    if (!(err instanceof AppError)) throw err;
    console.error(err.detail ?? err.code);
    return 1;
  }
}

/** The options of `args` for `command`; throws {@linkcode UsageError} for unknown or missing ones. */
function commandValues(command: Command, args: string[]): Values {
  const { values } = taskArgs(args, command.options);
  const missing = (command.required ?? []).filter((o) => typeof values[o] !== "string").map((o) => `--${o}`);
  if (missing.length) {
    throw new UsageError(`${missing.join(" and ")} ${missing.length > 1 ? "are" : "is"} required`);
  }
  return values;
}

/** The command lines of every command, for a missing or unknown command name. */
function overview(): string {
  const lines = Object.values(COMMANDS).flatMap((c) => c.help.synopsis.map((s) => `  deno task ${s}`));
  return `usage:\n${lines.join("\n")}\n(each command answers --help)`;
}

async function main(): Promise<number> {
  const [name, ...rest] = Deno.args;
  const command = name ? COMMANDS[name] : undefined;
  if (command) return await runCommand(name!, command, rest);
  if (helpRequested(Deno.args)) return printUsage(overview());
  return usageFailure(name ? `unknown command ${name}` : "", overview());
}

async function readStdin(): Promise<string> {
  return new TextDecoder().decode(await new Response(Deno.stdin.readable).arrayBuffer());
}

function randomPassword(): string {
  return btoa(String.fromCharCode(...crypto.getRandomValues(new Uint8Array(15)))).replaceAll("+", "-")
    .replaceAll("/", "_");
}

if (import.meta.main) Deno.exit(await main());
