/** A small structured logger: one JSON line per event on stderr, filtered by level. Never pass secrets. */

/** Log levels from most to least verbose. */
export type LogLevel = "debug" | "info" | "warn" | "error";

const ORDER: Record<LogLevel, number> = { debug: 0, info: 1, warn: 2, error: 3 };

/** Writes log lines at or above a level. */
export interface Logger {
  /** Logs `msg` with structured `fields` at `level`. */
  log(level: LogLevel, msg: string, fields?: Record<string, unknown>): void;
}

/** A logger writing JSON lines to stderr for `level` and above. */
export function createLogger(level: LogLevel): Logger {
  return {
    log(l, msg, fields) {
      if (ORDER[l] < ORDER[level]) return;
      console.error(JSON.stringify({ t: new Date().toISOString(), level: l, msg, ...fields }));
    },
  };
}
