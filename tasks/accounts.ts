/**
 * Operator tasks for people, offices and apps:
 *
 *   deno task office:create --name "Büro Nord"
 *   deno task office:list
 *   deno task provider:add --office <id|name> --email a@b.de --name "Ada" [--password-stdin]
 *   deno task provider:remove --email a@b.de
 *   deno task auth:clients
 *
 * A new provider without `--password-stdin` gets a random password, printed once. Ending a membership stops the
 * provider's tokens and API keys on their next request.
 */
import { parseArgs } from "node:util";
import { addProvider, removeProvider } from "../auth/accounts.ts";
import { createAuth } from "../auth/better_auth.ts";
import { resolveAuthSecret } from "../auth/secret.ts";
import { configFromEnv } from "../config.ts";
import { migrate } from "../db/migrate.ts";
import { clientsWithConnections } from "../db/oauth.ts";
import { createOffice, findOffice, listOffices } from "../db/offices.ts";
import { AppError } from "../errors.ts";
import { openConfiguredDb } from "./open.ts";

const [command, ...rest] = Deno.args;
const { values } = parseArgs({
  args: rest,
  options: {
    name: { type: "string" },
    office: { type: "string" },
    email: { type: "string" },
    "password-stdin": { type: "boolean" },
  },
  strict: true,
});

function fail(msg: string): never {
  console.error(msg);
  Deno.exit(2);
}

const config = configFromEnv();
const db = await openConfiguredDb();
try {
  if (db.kind === "pglite") await migrate(db);
  switch (command) {
    case "office:create": {
      const name = values.name?.trim();
      if (!name || name.length > 200) fail("--name (1 to 200 characters) is required");
      console.log(`office created: ${await createOffice(db, name)} ${name}`);
      break;
    }
    case "office:list":
      for (const o of await listOffices(db)) console.log(`${o.id}  ${o.name}  (${o.members} active members)`);
      break;
    case "provider:add": {
      if (!values.office || !values.email) fail("--office and --email are required");
      const office = await findOffice(db, values.office);
      if (!office) fail(`no office ${values.office}`);
      const password = values["password-stdin"] ? (await readStdin()).trim() : randomPassword();
      config.authSecret = await resolveAuthSecret(config);
      if (!config.authSecret) fail("AUTH_SECRET must be set");
      const auth = createAuth({ config, db, log: { log: () => {} } });
      const r = await addProvider(auth, db, {
        officeId: office.id,
        email: values.email,
        name: values.name ?? values.email,
        password,
      });
      console.log(
        `${
          r.created ? "provider created" : "existing account is now a provider"
        }: ${values.email} → ${office.name}`,
      );
      if (r.created && !values["password-stdin"]) console.log(`initial password (shown once): ${password}`);
      break;
    }
    case "provider:remove": {
      if (!values.email) fail("--email is required");
      const ended = await removeProvider(db, values.email);
      console.log(ended ? `membership ended: ${values.email}` : `no active membership for ${values.email}`);
      break;
    }
    case "auth:clients":
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
      break;
    default:
      fail("usage: deno task office:create|office:list|provider:add|provider:remove|auth:clients [options]");
  }
} catch (e) {
  if (e instanceof AppError) fail(e.detail ?? e.code);
  throw e;
} finally {
  await db.close();
}

async function readStdin(): Promise<string> {
  return new TextDecoder().decode(await new Response(Deno.stdin.readable).arrayBuffer());
}

function randomPassword(): string {
  return btoa(String.fromCharCode(...crypto.getRandomValues(new Uint8Array(15)))).replaceAll("+", "-")
    .replaceAll("/", "_");
}
