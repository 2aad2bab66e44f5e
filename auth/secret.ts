/** The AUTH_SECRET of the embedded default, for `deno task start` and operator tasks on a fresh machine. */
import type { Config } from "../config.ts";

/**
 * The configured AUTH_SECRET; without one, on the embedded database a random secret kept in
 * `DATA_DIR/auth-secret` (mode 0600) so sessions and signed links survive a restart (in memory only for
 * `DATA_DIR=:memory:`). A real Postgres server requires AUTH_SECRET: returns undefined then.
 */
export async function resolveAuthSecret(config: Config): Promise<string | undefined> {
  if (config.authSecret) return config.authSecret;
  if (config.databaseUrl) return undefined;
  const fresh = () => btoa(String.fromCharCode(...crypto.getRandomValues(new Uint8Array(32))));
  if (config.dataDir === ":memory:") return fresh();
  const path = `${config.dataDir}/auth-secret`;
  try {
    const have = (await Deno.readTextFile(path)).trim();
    if (have.length >= 32) return have;
  } catch (e) {
    if (!(e instanceof Deno.errors.NotFound)) throw e;
  }
  await Deno.mkdir(config.dataDir, { recursive: true });
  const secret = fresh();
  await Deno.writeTextFile(path, secret, { mode: 0o600 });
  return secret;
}
