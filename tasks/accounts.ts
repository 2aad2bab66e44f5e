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
import { migrate } from "../db/migrate.ts";
import { clientsWithConnections } from "../db/oauth.ts";
import { createOffice, findOffice, listOffices } from "../db/offices.ts";
import { AppError } from "../errors.ts";
import { taskArgs, type TaskOptions, UsageError } from "./args.ts";
import { openConfiguredDb } from "./open.ts";

interface Command {
  usage: string;
  options: TaskOptions;
  run(db: Db, values: Record<string, string | boolean | undefined>): Promise<void>;
}

const QUIET = { log: () => {} };

const COMMANDS: Record<string, Command> = {
  "office:create": {
    usage:
      "deno task office:create --name NAME\n  Creates an office (a provider's organisation) and prints its id.",
    options: { name: { type: "string" } },
    async run(db, v) {
      const name = typeof v.name === "string" ? v.name.trim() : "";
      if (!name || name.length > 200) throw new UsageError("--name (1 to 200 characters) is required");
      console.log(`office created: ${await createOffice(db, name)} ${name}`);
    },
  },
  "office:list": {
    usage: "deno task office:list\n  Lists offices with their number of active members.",
    options: {},
    async run(db) {
      for (const o of await listOffices(db)) console.log(`${o.id}  ${o.name}  (${o.members} active members)`);
    },
  },
  "provider:add": {
    usage: "deno task provider:add --office ID|NAME --email E [--name N] [--password-stdin]\n" +
      "  Makes a new or existing account a provider member of the office. A new account without\n" +
      "  --password-stdin gets a random password, printed once.",
    options: {
      office: { type: "string" },
      email: { type: "string" },
      name: { type: "string" },
      "password-stdin": { type: "boolean" },
    },
    run: addProviderCommand,
  },
  "provider:remove": {
    usage: "deno task provider:remove --email E\n" +
      "  Ends the provider's membership: her API keys and provider app connections stop at once; her account\n" +
      "  stays as a seeker account.",
    options: { email: { type: "string" } },
    async run(db, v) {
      if (typeof v.email !== "string") throw new UsageError("--email is required");
      const ended = await removeProvider({ db, log: QUIET }, v.email);
      console.log(ended ? `membership ended: ${v.email}` : `no active provider membership for ${v.email}`);
    },
  },
  "auth:clients": {
    usage: "deno task auth:clients\n  Lists registered apps (OAuth clients) and, per app, its connections.",
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

async function addProviderCommand(db: Db, v: Record<string, string | boolean | undefined>): Promise<void> {
  if (typeof v.office !== "string" || typeof v.email !== "string") {
    throw new UsageError("--office and --email are required");
  }
  const office = await findOffice(db, v.office);
  if (!office) throw new AppError("not_found", `no office ${v.office}`);
  const config = configFromEnv();
  config.authSecret = await resolveAuthSecret(config);
  if (!config.authSecret) throw new UsageError("AUTH_SECRET must be set");
  const auth = createAuth({ config, db, log: QUIET });
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

async function main(): Promise<number> {
  const [name, ...rest] = Deno.args;
  const command = name ? COMMANDS[name] : undefined;
  if (!command) {
    console.error(`usage:\n${Object.values(COMMANDS).map((c) => `  ${c.usage.split("\n")[0]}`).join("\n")}`);
    return 2;
  }
  if (rest.includes("--help") || rest.includes("-h")) {
    console.log(`usage: ${command.usage}`);
    return 0;
  }
  let values;
  try {
    values = taskArgs(rest, command.options, `usage: ${command.usage}`).values;
  } catch (err) {
    console.error((err as Error).message);
    return 2;
  }
  const db = await openConfiguredDb(name!);
  try {
    if (db.kind === "pglite") await migrate(db);
    await command.run(db, values);
    return 0;
  } catch (err) {
    if (err instanceof UsageError) console.error(`${err.message}\nusage: ${command.usage}`);
    else if (err instanceof AppError) console.error(err.detail ?? err.code);
    else throw err;
    return err instanceof UsageError ? 2 : 1;
  } finally {
    await db.close();
  }
}

async function readStdin(): Promise<string> {
  return new TextDecoder().decode(await new Response(Deno.stdin.readable).arrayBuffer());
}

function randomPassword(): string {
  return btoa(String.fromCharCode(...crypto.getRandomValues(new Uint8Array(15)))).replaceAll("+", "-")
    .replaceAll("/", "_");
}

if (import.meta.main) Deno.exit(await main());
