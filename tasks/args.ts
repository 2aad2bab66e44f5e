/** Command-line parsing shared by the operator tasks: strict options, and a usage error carrying the usage text. */
import { parseArgs, type ParseArgsConfig } from "node:util";

/** A wrong command line: the task prints the message and exits with code 2. */
export class UsageError extends Error {
  override name = "UsageError";
}

/** The options a task accepts, in `node:util` `parseArgs` form. */
export type TaskOptions = NonNullable<ParseArgsConfig["options"]>;

/**
 * Parses `args` strictly against `options` (positionals only when `positionals` is true); an unknown or malformed
 * option throws {@linkcode UsageError} with `usage` on the next line.
 */
export function taskArgs<V = Record<string, string | boolean | undefined>>(
  args: string[],
  options: TaskOptions,
  usage: string,
  positionals = false,
): { values: V; positionals: string[] } {
  try {
    const r = parseArgs({ args, options, strict: true, allowPositionals: positionals });
    return { values: r.values as V, positionals: r.positionals };
  } catch (err) {
    throw new UsageError(`${(err as Error).message}\n${usage}`);
  }
}
