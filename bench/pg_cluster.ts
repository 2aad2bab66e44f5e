/**
 * A throwaway Postgres cluster for benchmarks: `initdb` into a folder, `pg_ctl start` on a free loopback port,
 * and a `stop` that shuts the server down and removes the folder. As root the server runs as the `postgres` user
 * (through `runuser`), like `.ci/run` does.
 */
import { run, runQuiet } from "./processes.ts";

/** A running cluster. */
export interface PgCluster {
  /** Connection URL of the `catalogue` database (trust auth over 127.0.0.1). */
  url: string;
  /** Server version, e.g. "15.18". */
  version: string;
  /** The data folder (holds `postmaster.pid`). */
  dataDir: string;
  /** Stops the server and (unless the folder was given to keep) removes it; safe to call twice. */
  stop(): Promise<void>;
}

/** Options of {@linkcode startCluster}. */
export interface ClusterOptions {
  /** Parent folder of the cluster; it is removed on stop unless `keep`. */
  dir: string;
  /** Keep the data folder on stop (reused, with its data, by the next start on the same folder). */
  keep?: boolean;
  /** Called with progress lines. */
  say?: (line: string) => void;
}

const USER = "bench";
const DATABASE = "catalogue";

/** True when this process runs as root (then the cluster runs as `postgres` and apt-get may be used). */
export function isRoot(): boolean {
  return Deno.uid() === 0;
}

/** The newest `/usr/lib/postgresql/N/bin` folder, installing the `postgresql` package first when root and none is found. */
export async function findPgBin(say: (line: string) => void = () => {}): Promise<string> {
  let bin = await newestPgBin();
  if (!bin && isRoot()) {
    say("postgresql is missing: apt-get install postgresql");
    await aptInstall(["postgresql"]);
    bin = await newestPgBin();
  }
  if (!bin) {
    throw new Error(
      "no Postgres server binaries under /usr/lib/postgresql/*/bin (apt-get install postgresql)",
    );
  }
  return bin;
}

async function newestPgBin(): Promise<string | undefined> {
  const versions: number[] = [];
  try {
    for await (const e of Deno.readDir("/usr/lib/postgresql")) {
      if (/^[0-9]+$/.test(e.name) && await exists(`/usr/lib/postgresql/${e.name}/bin/initdb`)) {
        versions.push(Number(e.name));
      }
    }
  } catch {
    return undefined;
  }
  versions.sort((a, b) => b - a);
  return versions.length ? `/usr/lib/postgresql/${versions[0]}/bin` : undefined;
}

/** Runs `apt-get update` and `apt-get install -y` for `packages` (root only). */
export async function aptInstall(packages: string[]): Promise<void> {
  const env = { DEBIAN_FRONTEND: "noninteractive" };
  await runQuiet("apt-get", ["update", "-qq"], { env });
  await runQuiet("apt-get", ["install", "-y", "-qq", ...packages], { env });
}

/** A free TCP port on 127.0.0.1 (the OS picks it; there is a small race until the caller binds it). */
export function freePort(): number {
  const l = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (l.addr as Deno.NetAddr).port;
  l.close();
  return port;
}

/** Starts a cluster in `opts.dir/data` (running `initdb` when the folder holds none) and creates its database. */
export async function startCluster(opts: ClusterOptions): Promise<PgCluster> {
  const say = opts.say ?? (() => {});
  const bin = await findPgBin(say);
  const root = isRoot();
  const asPg = (cmd: string, args: string[]) =>
    root ? runQuiet("runuser", ["-u", "postgres", "--", cmd, ...args]) : runQuiet(cmd, args);
  const data = `${opts.dir}/data`;
  await Deno.mkdir(opts.dir, { recursive: true });
  await Deno.chmod(opts.dir, 0o755);
  if (root) await runQuiet("chown", ["postgres", opts.dir]);
  const fresh = !await exists(`${data}/PG_VERSION`);
  if (fresh) {
    say(`initdb ${data}`);
    await asPg(`${bin}/initdb`, ["-D", data, "-U", USER, "--auth=trust", "-E", "UTF8", "--locale=C.UTF-8"]);
  }
  const port = freePort();
  const serverOpts = [
    `-p ${port}`,
    `-k ${opts.dir}`,
    "-c listen_addresses=127.0.0.1",
    "-c fsync=off",
    "-c synchronous_commit=off",
    "-c full_page_writes=off",
    "-c max_connections=200",
  ].join(" ");
  await asPg(`${bin}/pg_ctl`, ["-D", data, "-l", `${opts.dir}/server.log`, "-w", "-o", serverOpts, "start"]);
  let stopped = false;
  const stop = async () => {
    if (stopped) return;
    stopped = true;
    try {
      await asPg(`${bin}/pg_ctl`, ["-D", data, "-m", "fast", "-w", "-t", "30", "stop"]);
    } catch {
      await asPg(`${bin}/pg_ctl`, ["-D", data, "-m", "immediate", "stop"]).catch(() => {});
    }
    if (!opts.keep) await Deno.remove(opts.dir, { recursive: true }).catch(() => {});
  };
  try {
    if (fresh) {
      await runQuiet(`${bin}/createdb`, ["-h", "127.0.0.1", "-p", String(port), "-U", USER, DATABASE]);
    }
    const version = (await run(`${bin}/postgres`, ["--version"])).trim().replace(/^.* ([0-9.]+).*$/, "$1");
    return { url: `postgres://${USER}@127.0.0.1:${port}/${DATABASE}`, version, dataDir: data, stop };
  } catch (e) {
    await stop();
    throw e;
  }
}

async function exists(path: string): Promise<boolean> {
  try {
    await Deno.stat(path);
    return true;
  } catch {
    return false;
  }
}
