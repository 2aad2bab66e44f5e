/**
 * Test support: a local HTTPS webhook receiver that checks Standard Webhooks signatures with BOTH receiver libraries
 * (`standardwebhooks` and `svix`), and a throw-away test CA whose leaf certificate covers `localhost`, `127.0.0.1`
 * and `::1` (made once per process with the `openssl` CLI; rustls will not accept a self-signed CA as a server
 * certificate, hence CA + leaf). Clients trust it with `caCerts: [caPem]`.
 *
 * Timestamp window: both libraries refuse a `webhook-timestamp` more than 5 minutes away from "now", and they read
 * the real system clock (`Date.now`). When a test moves the service's clock, pass the same clock as
 * {@linkcode ReceiverOptions.now}: the receiver then swaps the libraries' timestamp check (per instance, same ±5 min
 * rule) for one against that clock. The signature check itself is always the libraries' own.
 *
 * Control messages (`{type: "verification", challenge}`) are recorded in {@linkcode Receiver.challenges} and
 * answered per {@linkcode ReceiverOptions.challenge} whatever their signature (tests assert `verified` themselves);
 * everything else is an event delivery, recorded in {@linkcode Receiver.deliveries}.
 */
import { Webhook as StandardWebhook } from "standardwebhooks";
import { Webhook as SvixWebhook } from "svix";

/** A test CA and a leaf certificate (with its key) for localhost, 127.0.0.1 and ::1, all PEM. */
export interface TestCa {
  caPem: string;
  certPem: string;
  keyPem: string;
}

let caOnce: Promise<TestCa> | undefined;

/** The test CA of this process (made on first use with `openssl` in a temporary directory, then removed). */
export function testCa(): Promise<TestCa> {
  caOnce ??= makeTestCa();
  return caOnce;
}

const LEAF_EXTENSIONS = [
  "subjectAltName=DNS:localhost,IP:127.0.0.1,IP:::1",
  "basicConstraints=critical,CA:FALSE",
  "keyUsage=critical,digitalSignature",
  "extendedKeyUsage=serverAuth",
].join("\n");

async function openssl(dir: string, args: string[]): Promise<void> {
  const out = await new Deno.Command("openssl", { args, cwd: dir, stdout: "null", stderr: "piped" }).output();
  if (!out.success) throw new Error(`openssl ${args[0]} failed: ${new TextDecoder().decode(out.stderr)}`);
}

async function makeTestCa(): Promise<TestCa> {
  const dir = await Deno.makeTempDir({ prefix: "webhook_ca_" });
  try {
    const ec = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes"];
    await openssl(dir, [
      "req",
      "-x509",
      ...ec,
      "-keyout",
      "ca.key",
      "-out",
      "ca.pem",
      "-days",
      "3",
      "-subj",
      "/CN=Webhook Test CA",
      "-addext",
      "basicConstraints=critical,CA:TRUE",
      "-addext",
      "keyUsage=critical,keyCertSign,cRLSign",
    ]);
    await openssl(dir, ["req", ...ec, "-keyout", "leaf.key", "-out", "leaf.csr", "-subj", "/CN=localhost"]);
    await Deno.writeTextFile(`${dir}/leaf.ext`, LEAF_EXTENSIONS);
    await openssl(dir, [
      "x509",
      "-req",
      "-in",
      "leaf.csr",
      "-CA",
      "ca.pem",
      "-CAkey",
      "ca.key",
      "-CAcreateserial",
      "-out",
      "leaf.pem",
      "-days",
      "3",
      "-extfile",
      "leaf.ext",
    ]);
    const read = (name: string) => Deno.readTextFile(`${dir}/${name}`);
    return { caPem: await read("ca.pem"), certPem: await read("leaf.pem"), keyPem: await read("leaf.key") };
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

/** One POST as the receiver saw it. */
export interface ReceivedDelivery {
  /** Request headers, lower-case names (`Object.fromEntries(req.headers)`). */
  headers: Record<string, string>;
  /** The body exactly as received. */
  raw: string;
  /** The body parsed as JSON; `undefined` when it is not JSON. */
  json: unknown;
  /** Whether each library accepted the signature with one of the trusted secrets. */
  verified: { standardwebhooks: boolean; svix: boolean };
  /** Receipt time in ms, on the receiver's clock. */
  at: number;
  /** The client's TCP port: equal values mean one reused (keep-alive) connection. */
  remotePort: number;
}

/** How a verification challenge is answered. */
export type ChallengeMode = "echo" | "wrong" | "status500" | "hang" | "no-answer-json";

/** Settings of a test receiver. */
export interface ReceiverOptions {
  /** Secrets (whsec_…) the receiver trusts now; a delivery is verified if EACH library accepts it with one of them. */
  secrets: () => string[];
  /** Answer for a delivery (default 204). Pending answers are cut short (503) when the receiver closes. */
  respond?: (d: ReceivedDelivery) => Response | Promise<Response>;
  /**
   * Answer for verification challenges: "echo" (default) 200 `{challenge}`; "wrong" 200 with another challenge;
   * "status500" 500 with the right challenge; "hang" no answer until the receiver closes (then 503);
   * "no-answer-json" 200 with a body that is not JSON.
   */
  challenge?: ChallengeMode;
  /** The receiver's clock for the timestamp window (default `Date.now`); tests move it with the service clock. */
  now?: () => number;
}

/** A running test receiver. */
export interface Receiver {
  /** `https://localhost:<port>/hook` */
  url: string;
  port: number;
  /** Event deliveries in arrival order. */
  deliveries: ReceivedDelivery[];
  /** Verification challenges in arrival order. */
  challenges: ReceivedDelivery[];
  /** Resolves once at least `n` deliveries arrived; rejects after `timeoutMs` (default 10 s) or on close. */
  waitFor(n: number, timeoutMs?: number): Promise<void>;
  /** Stops the server; pending answers are cut short. */
  close(): Promise<void>;
}

const TOLERANCE_SECONDS = 5 * 60;

/** The libraries' timestamp check (±5 min), against `now` instead of the system clock. */
function timestampCheck(now: () => number): (header: string) => Date {
  return (header) => {
    const ts = parseInt(header, 10);
    if (Number.isNaN(ts)) throw new Error("Invalid Signature Headers");
    const current = Math.floor(now() / 1000);
    if (Math.abs(current - ts) > TOLERANCE_SECONDS) throw new Error("Message timestamp out of window");
    return new Date(ts * 1000);
  };
}

type Verifier = (raw: string, headers: Record<string, string>) => unknown;

/** Replaces the private `verifyTimestamp` of one standardwebhooks instance; fails loudly if the library changed. */
function useClock(wh: object, now: () => number): void {
  const target = wh as { verifyTimestamp?: unknown };
  if (typeof target.verifyTimestamp !== "function") {
    throw new Error("standardwebhooks: verifyTimestamp not found");
  }
  target.verifyTimestamp = timestampCheck(now);
}

function standardVerifier(secret: string, now?: () => number): Verifier {
  const wh = new StandardWebhook(secret);
  if (now) useClock(wh, now);
  return (raw, headers) => wh.verify(raw, headers);
}

function svixVerifier(secret: string, now?: () => number): Verifier {
  const wh = new SvixWebhook(secret);
  if (now) useClock((wh as unknown as { inner: object }).inner, now);
  return (raw, headers) => wh.verify(raw, headers);
}

/** True if one of `secrets` verifies the message with the verifier `make` builds. */
function anyAccepts(
  make: (secret: string, now?: () => number) => Verifier,
  secrets: string[],
  raw: string,
  headers: Record<string, string>,
  now?: () => number,
): boolean {
  return secrets.some((secret) => {
    try {
      make(secret, now)(raw, headers);
      return true;
    } catch {
      return false;
    }
  });
}

function parseJson(raw: string): unknown {
  try {
    return JSON.parse(raw);
  } catch {
    return undefined;
  }
}

function challengeOf(json: unknown): string | null {
  if (typeof json !== "object" || json === null) return null;
  const msg = json as { type?: unknown; challenge?: unknown };
  return msg.type === "verification" && typeof msg.challenge === "string" ? msg.challenge : null;
}

/** Resolves when `signal` aborts. */
function aborted(signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve();
    signal.addEventListener("abort", () => resolve(), { once: true });
  });
}

/** The answer to a challenge; a "hang" lasts until `closing` aborts. */
async function answerChallenge(
  mode: ChallengeMode,
  challenge: string,
  closing: AbortSignal,
): Promise<Response> {
  switch (mode) {
    case "echo":
      return Response.json({ challenge });
    case "wrong":
      return Response.json({ challenge: `${challenge}-wrong` });
    case "status500":
      return Response.json({ challenge }, { status: 500 });
    case "no-answer-json":
      return new Response("ok", { headers: { "content-type": "text/plain" } });
    case "hang":
      await aborted(closing);
      return new Response(null, { status: 503 });
  }
}

/** Waiters for `waitFor`, woken on every delivery. */
class Arrivals {
  #waiters = new Set<{ check: () => boolean; done: (err?: Error) => void }>();

  wait(check: () => boolean, timeoutMs: number, describe: () => string): Promise<void> {
    if (check()) return Promise.resolve();
    return new Promise((resolve, reject) => {
      const waiter = {
        check,
        done: (err?: Error) => {
          clearTimeout(timer);
          this.#waiters.delete(waiter);
          err ? reject(err) : resolve();
        },
      };
      const timer = setTimeout(() => waiter.done(new Error(`timed out: ${describe()}`)), timeoutMs);
      this.#waiters.add(waiter);
    });
  }

  notify(): void {
    for (const w of [...this.#waiters]) if (w.check()) w.done();
  }

  closeAll(): void {
    for (const w of [...this.#waiters]) w.done(new Error("receiver closed"));
  }
}

/** Starts an HTTPS receiver on 127.0.0.1 (random port) with the test CA's leaf certificate. */
export async function startReceiver(opts: ReceiverOptions): Promise<Receiver> {
  const ca = await testCa();
  const closing = new AbortController();
  const deliveries: ReceivedDelivery[] = [];
  const challenges: ReceivedDelivery[] = [];
  const arrivals = new Arrivals();
  const now = opts.now ?? Date.now;

  const handle = async (req: Request, info: Deno.ServeHandlerInfo<Deno.NetAddr>): Promise<Response> => {
    if (req.method !== "POST") return new Response(null, { status: 405 });
    const raw = await req.text();
    const headers = Object.fromEntries(req.headers);
    const secrets = opts.secrets();
    const d: ReceivedDelivery = {
      headers,
      raw,
      json: parseJson(raw),
      verified: {
        standardwebhooks: anyAccepts(standardVerifier, secrets, raw, headers, opts.now),
        svix: anyAccepts(svixVerifier, secrets, raw, headers, opts.now),
      },
      at: now(),
      remotePort: info.remoteAddr.port,
    };
    const challenge = challengeOf(d.json);
    if (challenge !== null) {
      challenges.push(d);
      return await answerChallenge(opts.challenge ?? "echo", challenge, closing.signal);
    }
    deliveries.push(d);
    arrivals.notify();
    const answer = Promise.resolve(opts.respond ? opts.respond(d) : new Response(null, { status: 204 }));
    const cut = aborted(closing.signal).then(() => new Response(null, { status: 503 }));
    return await Promise.race([answer, cut]);
  };

  const server = Deno.serve({
    port: 0,
    hostname: "127.0.0.1",
    cert: ca.certPem,
    key: ca.keyPem,
    onListen() {},
    onError: () => new Response(null, { status: 500 }),
  }, handle);
  const port = server.addr.port;
  return {
    url: `https://localhost:${port}/hook`,
    port,
    deliveries,
    challenges,
    waitFor: (n, timeoutMs = 10_000) =>
      arrivals.wait(() => deliveries.length >= n, timeoutMs, () => `${deliveries.length} of ${n} deliveries`),
    close: async () => {
      closing.abort();
      arrivals.closeAll();
      await server.shutdown();
    },
  };
}
