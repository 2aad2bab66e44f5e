/**
 * Command-line handling shared by the operator tasks: strict options, a usage error, the usage text every task
 * prints for `--help`/`-h` (stdout, exit 0) and, after its message, for a wrong command line (stderr, exit 2).
 */
import { parseArgs, type ParseArgsConfig } from "node:util";

/** A wrong command line: the task prints the message and its usage on stderr and exits with code 2. */
export class UsageError extends Error {
  override name = "UsageError";
}

/** The options a task accepts, in `node:util` `parseArgs` form. */
export type TaskOptions = NonNullable<ParseArgsConfig["options"]>;

/** How a task describes itself: its command lines, what it does, its options and its exit codes. */
export interface TaskHelp {
  /** The command lines after `deno task`, e.g. `db:seed [--count N] [--seed S]`. */
  synopsis: string[];
  /** What the task does, line by line. */
  about: string[];
  /** Each option as written on the command line, with what it means (`-h, --help` is added). */
  options?: Array<[string, string]>;
  /** Exit codes with their meaning, over the common ones (0 done, 2 usage, 3 embedded database busy). */
  exits?: Record<number, string>;
  /** Whether the task opens the configured database (adds the environment it reads; default true). */
  database?: boolean;
  /** Further environment variables the task reads, with what they mean. */
  env?: Array<[string, string]>;
}

/** The exit codes every operator task shares. */
export const COMMON_EXITS: Record<number, string> = {
  0: "done",
  2: "usage: a wrong command line (the message and this usage on stderr)",
  3: "the embedded database is held by another process",
};

/** The usage text of a task, starting with `usage: deno task …`. */
export function usageText(h: TaskHelp): string {
  return [
    ...h.synopsis.map((s, i) => `${i === 0 ? "usage:" : "      "} deno task ${s}`),
    "",
    ...h.about.map((l) => `  ${l}`),
    "",
    "options:",
    ...table([...(h.options ?? []), ["-h, --help", "print this usage and exit (opens nothing)"]]),
    ...environment(h),
    "",
    "exit codes:",
    ...table(Object.entries({ ...COMMON_EXITS, ...h.exits }).sort(([a], [b]) => Number(a) - Number(b))),
  ].join("\n");
}

function environment(h: TaskHelp): string[] {
  const rows: Array<[string, string]> = h.database === false ? [] : [
    ["DATABASE_URL", "the Postgres server; when empty, the embedded database in DATA_DIR/pglite"],
    ["DATA_DIR", "the data folder of the embedded database (default ./.data)"],
  ];
  rows.push(...(h.env ?? []));
  return rows.length ? ["", "environment:", ...table(rows)] : [];
}

function table(rows: Array<[string, string]>): string[] {
  const width = Math.max(...rows.map(([k]) => k.length));
  return rows.map(([k, v]) => `  ${k.padEnd(width)}  ${v}`);
}

/** Whether `args` ask for the usage: `--help` or `-h` anywhere before a `--`. */
export function helpRequested(args: string[]): boolean {
  const end = args.indexOf("--");
  return (end < 0 ? args : args.slice(0, end)).some((a) => a === "--help" || a === "-h");
}

/** Prints `usage` on stdout (the answer to `--help`) and returns exit code 0. */
export function printUsage(usage: string, out: (text: string) => void = console.log): 0 {
  out(usage);
  return 0;
}

/** Prints `message` and `usage` on stderr (a wrong command line) and returns exit code 2. */
export function usageFailure(
  message: string,
  usage: string,
  err: (text: string) => void = console.error,
): 2 {
  err(message ? `${message}\n${usage}` : usage);
  return 2;
}

/**
 * Parses `args` strictly against `options` (positionals only when `positionals` is true); an unknown or malformed
 * option throws {@linkcode UsageError} with the parser's message (print it with {@linkcode usageFailure}).
 */
export function taskArgs<V = Record<string, string | boolean | undefined>>(
  args: string[],
  options: TaskOptions,
  positionals = false,
): { values: V; positionals: string[] } {
  try {
    const r = parseArgs({ args, options, strict: true, allowPositionals: positionals });
    return { values: r.values as V, positionals: r.positionals };
  } catch (err) {
    throw new UsageError((err as Error).message);
  }
}

/** The most rows a listing task prints (`--limit`). */
const MAX_LIMIT = 10_000;

/** A listing task's `--limit N`: `fallback` when absent; throws {@linkcode UsageError} unless 1 to 10000. */
export function limitOption(value: string | undefined, fallback: number): number {
  const limit = value === undefined ? fallback : Number(value);
  if (!Number.isInteger(limit) || limit < 1 || limit > MAX_LIMIT) {
    throw new UsageError(`--limit must be an integer from 1 to ${MAX_LIMIT}`);
  }
  return limit;
}

/** {@linkcode taskArgs} for a task that reads exactly one FILE: its options and that file. */
export function fileTaskArgs<V = Record<string, string | boolean | undefined>>(
  args: string[],
  options: TaskOptions,
): { values: V; file: string } {
  const { values, positionals } = taskArgs<V>(args, options, true);
  const [file, ...rest] = positionals;
  if (!file) throw new UsageError("FILE is required");
  if (rest.length > 0) throw new UsageError(`one FILE only, not also ${rest.join(" ")}`);
  return { values, file };
}

/** Where a task writes: stdout and stderr by default; tests pass their own. */
export interface TaskOutput {
  out?: (text: string) => void;
  err?: (text: string) => void;
}

/**
 * The command line parsed by `parse`, or the exit code after answering it: the usage on stdout for `--help`/`-h`
 * (0), or the message and the usage on stderr for a {@linkcode UsageError} (2). Other errors are rethrown.
 */
export function commandLine<T extends object>(
  args: string[],
  usage: string,
  parse: (args: string[]) => T,
  io: TaskOutput = {},
): T | number {
  if (helpRequested(args)) return printUsage(usage, io.out);
  try {
    return parse(args);
  } catch (e) {
    if (e instanceof UsageError) return usageFailure(e.message, usage, io.err);
    throw e;
  }
}
