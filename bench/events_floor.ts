/**
 * The receiving side and the floor of `bench:events`: a local HTTPS receiver (test CA) that notes when each
 * delivery arrived, and signed POSTs to it straight through `fetch` (the floor) or through the service's webhook
 * client alone, with the JavaScript thread's CPU per POST.
 */
import { base64 } from "../crypto.ts";
import type { WebhookClient } from "../events/http_client.ts";
import { WebhookSigner } from "../events/signing.ts";
import { testCa } from "../tests/webhook_receiver.ts";
import { selfCpu } from "./cpu.ts";

/** Arrival times by `${webhook-id} ${subscription}`. */
export type Arrivals = Map<string, number>;

/** The local HTTPS receiver of the deliveries. */
export interface Receiver {
  /** The server (shut down by the benchmark's cleanup). */
  server: Deno.HttpServer<Deno.NetAddr>;
  /** Its port on 127.0.0.1. */
  port: number;
  /** The test CA that signed its certificate, as PEM. */
  caPem: string;
  /** How long it takes to answer (ms); step 5 sets it to `BENCH_RECEIVER_MS`, like a real receiver. */
  answerAfter: { ms: number };
  /** Resolves once `n` deliveries have arrived; rejects after `timeoutMs`. */
  waitFor(n: number, timeoutMs: number): Promise<void>;
}

/** Starts the receiver (test CA, 204 to every POST), noting each arrival in `arrivals`. */
export async function startReceiver(arrivals: Arrivals): Promise<Receiver> {
  const answerAfter = { ms: 0 };
  const ca = await testCa();
  /** The one waiter: resolved by the arrival that brings the count to `target` (no timer per arrival). */
  let waiter: { target: number; done: () => void } | undefined;
  const server = Deno.serve(
    { port: 0, hostname: "127.0.0.1", cert: ca.certPem, key: ca.keyPem, onListen: () => {} },
    async (req) => {
      await req.arrayBuffer();
      arrivals.set(
        `${req.headers.get("webhook-id")} ${req.headers.get("x-mcp-subscription-id")}`,
        performance.now(),
      );
      if (waiter && arrivals.size >= waiter.target) waiter.done();
      if (answerAfter.ms > 0) await new Promise((r) => setTimeout(r, answerAfter.ms));
      return new Response(null, { status: 204 });
    },
  );
  const waitFor = async (n: number, timeoutMs: number) => {
    if (arrivals.size >= n) return;
    const arrived = Promise.withResolvers<void>();
    waiter = { target: n, done: arrived.resolve };
    const timer = setTimeout(
      () => arrived.reject(new Error(`only ${arrivals.size} of ${n} deliveries arrived`)),
      timeoutMs,
    );
    try {
      await arrived.promise;
    } finally {
      clearTimeout(timer);
      waiter = undefined;
    }
  };
  return { server, port: server.addr.port, caPem: ca.caPem, answerAfter, waitFor };
}

/** Sends one signed POST of `body` as message `id` (the floor's `fetch`, or a webhook client). */
type Poster = (id: string, headers: Record<string, string>, body: string) => Promise<void>;

/** `total` signed POSTs through `post`, `concurrency` in flight; deliveries/s and JavaScript-thread CPU µs per POST. */
async function signedPosts(
  post: Poster,
  concurrency: number,
  total: number,
): Promise<{ rate: number; cpuUs: number }> {
  const signer = new WebhookSigner();
  const secret = `whsec_${base64(crypto.getRandomValues(new Uint8Array(32)))}`;
  let next = 0;
  const c0 = await selfCpu().catch(() => undefined);
  const t0 = performance.now();
  const worker = async () => {
    while (next < total) {
      const i = next++;
      const id = `evt_floor${i}`;
      const body = JSON.stringify({
        eventId: id,
        name: "inquiry.received",
        timestamp: new Date().toISOString(),
        data: { i },
        cursor: null,
      });
      const ts = Math.floor(Date.now() / 1000);
      await post(id, {
        "content-type": "application/json",
        "webhook-id": id,
        "webhook-timestamp": String(ts),
        "webhook-signature": await signer.header([secret], id, ts, body),
        "x-mcp-subscription-id": "sub_floor",
        "user-agent": "bench-mcp-events",
      }, body);
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  const rate = total / ((performance.now() - t0) / 1000);
  const c1 = c0 ? await selfCpu().catch(() => undefined) : undefined;
  return { rate, cpuUs: c0 && c1 ? ((c1.main - c0.main) * 1000) / total : NaN };
}

/** The floor: `total` signed fetch POSTs, `concurrency` in flight, over HTTP/1.1 only unless `http2`. */
export async function floor(
  url: string,
  caPem: string,
  concurrency: number,
  http2: boolean,
  total: number,
): Promise<number> {
  const client = Deno.createHttpClient({ caCerts: [caPem], http1: true, http2 });
  try {
    const { rate } = await signedPosts(
      async (_id, headers, body) => {
        const res = await fetch(url, { method: "POST", client, headers, body, redirect: "manual" });
        await res.body?.cancel();
      },
      concurrency,
      total,
    );
    return rate;
  } finally {
    client.close();
  }
}

/** The same `total` signed POSTs through a webhook client alone (no database): its rate and CPU per POST. */
export async function clientAlone(
  client: WebhookClient,
  url: string,
  concurrency: number,
  total: number,
): Promise<{ rate: number; cpuUs: number }> {
  const target = new URL(url);
  return await signedPosts(
    async (_id, headers, body) => {
      const out = await client.post(target, headers, body);
      if (out.kind !== "response" || out.status !== 204) {
        throw new Error(`bench post failed: ${JSON.stringify(out)}`);
      }
    },
    concurrency,
    total,
  );
}
