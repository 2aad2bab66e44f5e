/**
 * The service's configuration: the only module that reads `Deno.env`.
 *
 * Every variable is validated once with zod; an invalid value stops the start with a message naming the variable.
 * Tests and benchmarks build a `Config` with {@linkcode loadConfig} from a plain object instead of the environment.
 */
import { z } from "zod";

const flag = z
  .enum(["", "0", "1", "true", "false", "yes", "no", "on", "off"])
  .transform((v) => v === "1" || v === "true" || v === "yes" || v === "on");

/** `addr@host` or `Display Name <addr@host>`, on one line. */
const MAILBOX = /^(?:[^<>\r\n]*<[^\s@<>]+@[^\s@<>]+>|[^\s@<>]+@[^\s@<>]+)$/;

/** Whether `url` parses as a URL with a host (never echoes the value: it may hold a password). */
function hasHost(url: string): boolean {
  try {
    return new URL(url).hostname !== "";
  } catch {
    return false;
  }
}

const schema = z.object({
  PORT: z.coerce.number().int().min(0).max(65535).default(8000),
  BASE_URL: z.url().optional(),
  DATABASE_URL: z.string().regex(/^postgres(ql)?:\/\//, "must start with postgres:// or postgresql://")
    .optional(),
  DATA_DIR: z.string().min(1).default("./.data"),
  KV_PATH: z.string().min(1).optional(),
  TRUST_PROXY: flag.default(false),
  AUTH_SECRET: z.string().min(32, "must be at least 32 characters").optional(),
  SMTP_URL: z.string().regex(/^smtps?:\/\//, "must start with smtp:// or smtps://")
    .refine(hasHost, "must name a host, as in smtp://user:password@host:587").optional(),
  SMTP_FROM: z.string().max(300).regex(MAILBOX, "must be an address like noreply@example.org or Name <addr>")
    .optional(),
  RATE_LIMIT: flag.default(true),
  SEED_SAMPLE_DATA: flag.default(true),
  LOG_LEVEL: z.enum(["debug", "info", "warn", "error"]).default("info"),
  EVENTS: flag.default(true),
  WEBHOOK_LOOPBACK_PORTS: z.string().regex(
    /^\d{1,5}(,\d{1,5})*$/,
    "must be ports separated by commas, e.g. 9443,9444",
  )
    .optional(),
  WEBHOOK_CA_FILE: z.string().min(1).optional(),
  EVENTS_RETRY_DELAYS_MS: z.string().regex(
    /^\d{1,7}(,\d{1,7}){3}$/,
    "must be four delays in ms, e.g. 0,30000,120000,480000",
  )
    .optional(),
  EVENTS_SWEEP_MS: z.coerce.number().int().min(200).max(3_600_000).default(15_000),
  SOCIAL_APP_SECRET: z.string().min(16, "must be at least 16 characters").optional(),
  SOCIAL_VERIFY_TOKEN: z.string().min(16, "must be at least 16 characters").optional(),
  INTAKE_SECRET: z.string().min(32, "must be at least 32 characters").optional(),
  INTAKE_MAIL_DOMAIN: z.string().regex(
    /^[a-z0-9.-]+\.[a-z]{2,}$/i,
    "must be a domain like anfragen.example.org",
  )
    .optional(),
  DENO_DEPLOYMENT_ID: z.string().optional(),
});

/** The delivery schedule of docs/contract.md §6.4: four attempts, immediately and about 30 s, 2 min and 8 min later. */
export const DEFAULT_RETRY_DELAYS_MS: readonly number[] = [0, 30_000, 120_000, 480_000];

/** The validated configuration; see docs/operations.md §2 for each field. */
export interface Config {
  /** TCP port the HTTP server listens on. */
  port: number;
  /** Public origin of the service, without trailing slash. */
  baseUrl: string;
  /** Connection URL of a real Postgres server; `undefined` means embedded PGlite. */
  databaseUrl: string | undefined;
  /** Folder of the embedded database and the default KV file; `:memory:` keeps both in memory. */
  dataDir: string;
  /** Path of the Deno KV store; `undefined` means the platform default (Deno Deploy) or `DATA_DIR/kv.sqlite3`. */
  kvPath: string | undefined;
  /** Whether the client address is taken from `X-Forwarded-For` (last entry). */
  trustProxy: boolean;
  /** Secret for signing sessions and encrypting secrets at rest (later issues). */
  authSecret: string | undefined;
  /** Outgoing mail server; `undefined` writes mails to the outbox table and the log. */
  smtpUrl: string | undefined;
  /** Sender of outgoing mail (From header and envelope); default `noreply@<host of BASE_URL>`. */
  smtpFrom: string;
  /** Whether the token buckets of docs/contract.md §9 are enforced (off only for benchmark comparisons). */
  rateLimit: boolean;
  /** Whether `task start` seeds the sample catalogue into an empty database. */
  seedSampleData: boolean;
  /** Lowest level of log lines written. */
  logLevel: "debug" | "info" | "warn" | "error";
  /** Whether event subscriptions are offered (off: events/subscribe answers -32603 events_not_configured). */
  events: boolean;
  /** Ports on which loopback webhook receivers are accepted (test/dev only; empty by default). */
  webhookLoopbackPorts: ReadonlySet<number>;
  /** A PEM file of extra CA certificates trusted for webhook TLS (test/dev only). */
  webhookCaFile: string | undefined;
  /** Delay before each of the four delivery attempts, in ms (the first is 0). */
  retryDelaysMs: readonly number[];
  /** Interval of the sweep that re-drives missed outbox rows, deliveries and termination messages, in ms. */
  eventsSweepMs: number;
  /** App secret of the social network app (Meta): key of the `X-Hub-Signature-256` HMAC; unset: endpoint off. */
  socialAppSecret: string | undefined;
  /** The token the social network echoes in its subscription check (`hub.verify_token`); unset: endpoint off. */
  socialVerifyToken: string | undefined;
  /** Shared secret the mail gateway and portals send with inbound inquiries; unset: intake endpoints off. */
  intakeSecret: string | undefined;
  /** Domain of the per-listing and per-office inquiry addresses; default the host of BASE_URL. */
  intakeMailDomain: string;
  /** Whether the service runs on Deno Deploy (`DENO_DEPLOYMENT_ID` set): a real Postgres is required there. */
  onDeploy: boolean;
}

/** Thrown when the environment holds an invalid value; the message names every offending variable. */
export class ConfigError extends Error {
  override name = "ConfigError";
}

/** Validates `env` (variable name → value) and returns the configuration, or throws {@linkcode ConfigError}. */
export function loadConfig(env: Record<string, string | undefined>): Config {
  const present = Object.fromEntries(
    Object.keys(schema.shape).map((k) => [k, env[k] === "" ? undefined : env[k]]),
  );
  const parsed = schema.safeParse(present);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`);
    throw new ConfigError(`invalid configuration:\n  ${lines.join("\n  ")}`);
  }
  const v = parsed.data;
  if (v.DENO_DEPLOYMENT_ID && !v.DATABASE_URL) {
    // Each Deno Deploy instance has its own disk: an embedded database there would be one per instance.
    throw new ConfigError(
      "invalid configuration:\n  DATABASE_URL: must be set on Deno Deploy (assign a Postgres database to the app); " +
        "the embedded database cannot be shared between its instances",
    );
  }
  const baseUrl = (v.BASE_URL ?? `http://localhost:${v.PORT}`).replace(/\/+$/, "");
  const kvDefault = v.DATA_DIR === ":memory:" ? ":memory:" : `${v.DATA_DIR}/kv.sqlite3`;
  return {
    port: v.PORT,
    baseUrl,
    databaseUrl: v.DATABASE_URL,
    dataDir: v.DATA_DIR,
    kvPath: v.KV_PATH ?? (v.DENO_DEPLOYMENT_ID ? undefined : kvDefault),
    trustProxy: v.TRUST_PROXY,
    authSecret: v.AUTH_SECRET,
    smtpUrl: v.SMTP_URL,
    smtpFrom: v.SMTP_FROM ?? `noreply@${new URL(baseUrl).hostname}`,
    rateLimit: v.RATE_LIMIT,
    seedSampleData: v.SEED_SAMPLE_DATA,
    logLevel: v.LOG_LEVEL,
    events: v.EVENTS,
    webhookLoopbackPorts: new Set((v.WEBHOOK_LOOPBACK_PORTS ?? "").split(",").filter(Boolean).map(Number)),
    webhookCaFile: v.WEBHOOK_CA_FILE,
    retryDelaysMs: v.EVENTS_RETRY_DELAYS_MS
      ? v.EVENTS_RETRY_DELAYS_MS.split(",").map(Number)
      : DEFAULT_RETRY_DELAYS_MS,
    eventsSweepMs: v.EVENTS_SWEEP_MS,
    socialAppSecret: v.SOCIAL_APP_SECRET,
    socialVerifyToken: v.SOCIAL_VERIFY_TOKEN,
    intakeSecret: v.INTAKE_SECRET,
    intakeMailDomain: (v.INTAKE_MAIL_DOMAIN ?? new URL(baseUrl).hostname).toLowerCase(),
    onDeploy: v.DENO_DEPLOYMENT_ID !== undefined,
  };
}

/** Reads and validates the process environment once. */
export function configFromEnv(): Config {
  return loadConfig(Deno.env.toObject());
}
