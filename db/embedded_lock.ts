/**
 * Who holds the embedded database folder: a lock file beside the PGlite data folder (`<DATA_DIR>/pglite.lock`) that
 * one process at a time holds with an exclusive advisory file lock (flock), and whose text says who it is.
 *
 * The operating system drops the lock when its holder exits in any way (also SIGKILL), so a crashed holder never
 * blocks the next one. Readers never trust the text alone: they read it only while the lock is taken by someone.
 */

/** The process holding the embedded database, as its lock file tells. */
export interface Holder {
  /** `service` (deno task start) shares the database with tasks; a `task` holds it alone until it ends. */
  role: "service" | "task";
  /** What the operator started, e.g. `deno task brw:import`. */
  name: string;
  pid: number;
  /** ISO time the lock was taken. */
  since: string;
  /** The unix socket tasks connect to, once the service serves it; null before. */
  socket: string | null;
}

/** The lock file of a PGlite data folder. */
export function lockPath(folder: string): string {
  return `${folder}.lock`;
}

/**
 * Takes an exclusive lock of `file` if nobody holds one. `FsFile.tryLock` is newer than the Deno that Deno Deploy
 * documents (2.5), where the embedded database is refused anyway (`config.ts`): the type is declared here so the
 * service type-checks there, and a Deno without it gets a clear error instead of a hang.
 */
async function tryLock(file: Deno.FsFile): Promise<boolean> {
  const f = file as Deno.FsFile & { tryLock?: (exclusive: boolean) => Promise<boolean> };
  if (typeof f.tryLock !== "function") {
    file.close();
    throw new Error(
      `the embedded database needs Deno 2.9 or newer (this is ${Deno.version.deno}); set DATABASE_URL`,
    );
  }
  return await f.tryLock(true);
}

/** A lock this process holds; release it when the database is closed (exiting releases it too). */
export class HeldLock {
  #file: Deno.FsFile;
  #holder: Holder;

  private constructor(file: Deno.FsFile, holder: Holder) {
    this.#file = file;
    this.#holder = holder;
  }

  /** Takes the lock of `folder` if nobody holds it, writing `who` into it; undefined when it is held. */
  static async take(folder: string, who: Pick<Holder, "role" | "name">): Promise<HeldLock | undefined> {
    const file = await Deno.open(lockPath(folder), { read: true, write: true, create: true });
    if (!await tryLock(file)) {
      file.close();
      return undefined;
    }
    const lock = new HeldLock(file, {
      ...who,
      pid: Deno.pid,
      since: new Date().toISOString(),
      socket: null,
    });
    await lock.#write();
    return lock;
  }

  /** Tells waiting tasks where the database is served. */
  async announce(socket: string): Promise<void> {
    this.#holder = { ...this.#holder, socket };
    await this.#write();
  }

  /** Empties the lock file and lets go of the lock. */
  async release(): Promise<void> {
    try {
      await this.#file.truncate(0);
      await this.#file.unlock();
    } finally {
      this.#file.close();
    }
  }

  async #write(): Promise<void> {
    const text = new TextEncoder().encode(JSON.stringify(this.#holder) + "\n");
    await this.#file.truncate(0);
    await this.#file.seek(0, Deno.SeekMode.Start);
    for (let at = 0; at < text.length;) at += await this.#file.write(text.subarray(at));
  }
}

/** What the lock file of `folder` says, or undefined when it is empty, missing or being written. */
export async function readHolder(folder: string): Promise<Holder | undefined> {
  try {
    const h = JSON.parse(await Deno.readTextFile(lockPath(folder)));
    const ok = (h.role === "service" || h.role === "task") && typeof h.name === "string" &&
      Number.isInteger(h.pid) && typeof h.since === "string" &&
      (h.socket === null || typeof h.socket === "string");
    return ok ? h as Holder : undefined;
  } catch {
    return undefined;
  }
}

/** One line for a person: who holds the database since when. */
export function describeHolder(h: Holder): string {
  return `\`${h.name}\` (pid ${h.pid}, since ${h.since.slice(11, 19)} UTC)`;
}
