/**
 * Who is calling: the client address (from the connection, or from `X-Forwarded-For` behind a trusted proxy)
 * and the caller key that rate limits count against (the account when signed in, else the address, IPv6 per /64).
 */
import ipaddr from "ipaddr.js";
import type { Context } from "hono";
import type { AppEnv } from "./env.ts";

/** The client's IP address as text, or undefined when the transport has none (e.g. `app.request` in tests). */
export function clientAddress(c: Context<AppEnv>, trustProxy: boolean): string | undefined {
  if (trustProxy) {
    const forwarded = c.req.header("x-forwarded-for");
    const last = forwarded?.split(",").at(-1)?.trim();
    if (last && ipaddr.isValid(last)) return last;
  }
  const remote = c.env?.remoteAddr;
  return remote && "hostname" in remote ? remote.hostname : undefined;
}

/** The rate-limit key of an address: IPv4 (also IPv4-mapped IPv6) as is, IPv6 by its /64 network. */
export function addressKey(address: string | undefined): string {
  if (!address || !ipaddr.isValid(address)) return "ip:unknown";
  const ip = ipaddr.process(address);
  if (ip.kind() === "ipv4") return `ip4:${ip.toString()}`;
  const parts = (ip as ipaddr.IPv6).parts.slice(0, 4).map((p) => p.toString(16));
  return `ip6:${parts.join(":")}::/64`;
}

/** The key a caller's requests are counted under: `acct:<id>` when signed in, else the address key. */
export function callerKey(c: Context<AppEnv>, trustProxy: boolean): string {
  const account = c.get("accountId");
  return account ? `acct:${account}` : addressKey(clientAddress(c, trustProxy));
}
