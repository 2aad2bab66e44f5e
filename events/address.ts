/**
 * Webhook addresses (docs/contract.md §6.1 `delivery.url`): `https:` only, at most 2048 characters, no user info, and every IP
 * address the host stands for must be global unicast. {@linkcode parseWebhookUrl} checks the text;
 * {@linkcode vetWebhookUrl} resolves the host (A and AAAA) and classifies each address with `ipaddr.js` plus an
 * explicit list of special-purpose blocks. Loopback receivers are allowed only on ports named in
 * {@linkcode AddressPolicy.loopbackPorts} (test/dev setting; empty in production). The caller connects only to the
 * addresses returned here (see `events/http_client.ts`), so a later DNS answer cannot redirect the request.
 */
import ipaddr from "ipaddr.js";

/** Why a webhook address is refused; becomes `delivery.url:<reason>` in the -32602 error. */
export type UrlRefusal = "malformed" | "not_https" | "too_long" | "userinfo" | "not_public" | "unresolvable";

/** Which loopback receivers are allowed (test/dev only): loopback addresses are accepted only on these ports. */
export interface AddressPolicy {
  /** Ports on which a loopback address (127.0.0.0/8, ::1) is accepted; empty in production. */
  loopbackPorts: ReadonlySet<number>;
  /**
   * Resolves a host name (no trailing dot) to all its addresses; default: `localhost` names to 127.0.0.1 and ::1,
   * others by `Deno.resolveDns` A then AAAA. Tests fake the outside world's DNS here (this replaces it entirely).
   */
  resolve?: (host: string) => Promise<string[]>;
}

/** The longest accepted webhook URL (docs/contract.md §9). */
export const MAX_WEBHOOK_URL_LENGTH = 2048;

type Addr = ipaddr.IPv4 | ipaddr.IPv6;

/** Special-purpose IPv4 blocks (RFC 6890 and successors); ipaddr.js names them too, this is a second net. */
const BLOCKED_V4 = [
  "0.0.0.0/8",
  "10.0.0.0/8",
  "100.64.0.0/10",
  "127.0.0.0/8",
  "169.254.0.0/16",
  "172.16.0.0/12",
  "192.0.0.0/24",
  "192.0.2.0/24",
  "192.88.99.0/24",
  "192.168.0.0/16",
  "198.18.0.0/15",
  "198.51.100.0/24",
  "203.0.113.0/24",
  "224.0.0.0/4",
  "240.0.0.0/4",
].map((c) => ipaddr.IPv4.parseCIDR(c));

/** IPv6 blocks inside 2000::/3 that are not ordinary global unicast (NAT64, 6to4, Teredo, IETF, documentation). */
const BLOCKED_V6 = [
  "64:ff9b::/96",
  "64:ff9b:1::/48",
  "2001::/23",
  "2001:db8::/32",
  "2002::/16",
  "3fff::/20",
].map((c) => ipaddr.IPv6.parseCIDR(c));

const GLOBAL_V6 = ipaddr.IPv6.parseCIDR("2000::/3");
/** Only digits and dots: a cheap test before ipaddr's four-part check (which is slow on other text). */
const DOTTED = /^[0-9.]+$/;

/**
 * Checks the text of a webhook address: a string of at most 2048 characters, a valid WHATWG URL, scheme `https:`,
 * no user name or password, a host. Control characters and spaces are refused rather than silently dropped.
 */
export function parseWebhookUrl(raw: unknown): { ok: true; url: URL } | { ok: false; reason: UrlRefusal } {
  if (typeof raw !== "string") return { ok: false, reason: "malformed" };
  if (raw.length > MAX_WEBHOOK_URL_LENGTH) return { ok: false, reason: "too_long" };
  // deno-lint-ignore no-control-regex
  if (/[\u0000-\u0020\u007f]/.test(raw)) return { ok: false, reason: "malformed" };
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return { ok: false, reason: "malformed" };
  }
  if (url.protocol !== "https:") return { ok: false, reason: "not_https" };
  if (url.username !== "" || url.password !== "") return { ok: false, reason: "userinfo" };
  if (url.hostname === "") return { ok: false, reason: "malformed" };
  if (url.href.length > MAX_WEBHOOK_URL_LENGTH) return { ok: false, reason: "too_long" };
  return { ok: true, url };
}

/**
 * Parses an IP address strictly: IPv4 only as four decimal parts, IPv6 without zone, with embedded dotted quads
 * read the WHATWG way (ipaddr.js reads `::1.2.3.4` as IPv4-mapped). `null` when it is not an address.
 */
function parseIp(text: string): Addr | null {
  if (DOTTED.test(text) && ipaddr.IPv4.isValidFourPartDecimal(text)) return ipaddr.IPv4.parse(text);
  if (!text.includes(":") || text.includes("%") || text.includes("[")) return null;
  try {
    const host = new URL(`https://[${text}]/`).hostname;
    return ipaddr.IPv6.parse(host.slice(1, -1));
  } catch {
    return null;
  }
}

function isGlobalV4(a: ipaddr.IPv4): boolean {
  return a.range() === "unicast" && !BLOCKED_V4.some((cidr) => a.match(cidr));
}

function isGlobalV6(a: ipaddr.IPv6): boolean {
  return a.range() === "unicast" && a.match(GLOBAL_V6) && !BLOCKED_V6.some((cidr) => a.match(cidr));
}

/**
 * True when `ip` is a global unicast address: IPv4 in ipaddr's `unicast` range and outside every special-purpose
 * block; IPv6 in 2000::/3, `unicast`, and not NAT64, 6to4, Teredo, documentation or IETF-reserved. IPv4-mapped
 * IPv6 is judged as the IPv4 address it carries. Anything that is not a plain address text gives false.
 */
export function isGlobalUnicast(ip: string): boolean {
  const a = parseIp(ip);
  if (a === null) return false;
  if (a.kind() === "ipv4") return isGlobalV4(a as ipaddr.IPv4);
  const v6 = a as ipaddr.IPv6;
  return v6.isIPv4MappedAddress() ? isGlobalV4(v6.toIPv4Address()) : isGlobalV6(v6);
}

/** True for 127.0.0.0/8 written as IPv4 and for ::1 (not for IPv4-mapped forms). */
function isLoopback(ip: string): boolean {
  const a = parseIp(ip);
  if (a === null) return false;
  return a.kind() === "ipv4"
    ? a.range() === "loopback"
    : (a as ipaddr.IPv6).toNormalizedString() === "0:0:0:0:0:0:0:1";
}

/** The two classifications an address check needs. */
export interface AddressClassifier {
  /** See {@linkcode isGlobalUnicast}. */
  isGlobalUnicast(ip: string): boolean;
  /** True for 127.0.0.0/8 written as IPv4 and for ::1. */
  isLoopback(ip: string): boolean;
}

/** Classifies every address afresh. */
const CLASSIFY: AddressClassifier = { isGlobalUnicast, isLoopback };

/** The most address texts whose classification is remembered (per kind); the memory is emptied beyond. */
const MAX_REMEMBERED = 4_096;

/**
 * Classifications remembered per address text, by their owner (the webhook client of one event runtime):
 * classifying is a pure function of the text, so the answers resolved on every attempt are classified once
 * (parsing with ipaddr.js cost ~20 µs per attempt). Resolution itself is not remembered.
 */
export class AddressMemo implements AddressClassifier {
  #global = new Map<string, boolean>();
  #loopback = new Map<string, boolean>();

  /** {@linkcode isGlobalUnicast}, remembered. */
  isGlobalUnicast(ip: string): boolean {
    return remembered(this.#global, ip, isGlobalUnicast);
  }

  /** Whether `ip` is a loopback address, remembered. */
  isLoopback(ip: string): boolean {
    return remembered(this.#loopback, ip, isLoopback);
  }
}

function remembered(seen: Map<string, boolean>, ip: string, classify: (ip: string) => boolean): boolean {
  const known = seen.get(ip);
  if (known !== undefined) return known;
  const answer = classify(ip);
  if (seen.size >= MAX_REMEMBERED) seen.clear();
  seen.set(ip, answer);
  return answer;
}

/** The port a connection to `url` uses (443 when none is written). */
export function effectivePort(url: URL): number {
  return url.port === "" ? 443 : Number(url.port);
}

/** Whether one address may be connected to for `url` under `policy`. */
function addressAllowed(ip: string, url: URL, policy: AddressPolicy, classify: AddressClassifier): boolean {
  if (classify.isGlobalUnicast(ip)) return true;
  return classify.isLoopback(ip) && policy.loopbackPorts.has(effectivePort(url));
}

/** The IP literal in a URL host (`[::1]` → `::1`, `127.0.0.1`), or null when the host is a name. */
function ipLiteral(hostname: string): string | null {
  if (hostname.startsWith("[") && hostname.endsWith("]")) return hostname.slice(1, -1);
  return DOTTED.test(hostname) && ipaddr.IPv4.isValidFourPartDecimal(hostname) ? hostname : null;
}

/**
 * The system resolver: `localhost` names stand for loopback (RFC 6761) without asking DNS; others get their A and
 * AAAA answers from `Deno.resolveDns` (A first); a failed query counts as no answer.
 */
async function resolveWithDns(host: string): Promise<string[]> {
  if (isLocalhostName(host)) return ["127.0.0.1", "::1"];
  const [a, aaaa] = await Promise.allSettled([Deno.resolveDns(host, "A"), Deno.resolveDns(host, "AAAA")]);
  return [...(a.status === "fulfilled" ? a.value : []), ...(aaaa.status === "fulfilled" ? aaaa.value : [])];
}

/** `localhost` and `*.localhost` (RFC 6761). */
function isLocalhostName(name: string): boolean {
  return name === "localhost" || name.endsWith(".localhost");
}

/** All addresses of a host name (a trailing dot is dropped); empty when it has none or resolution fails. */
async function resolveName(hostname: string, policy: AddressPolicy): Promise<string[]> {
  const name = hostname.endsWith(".") ? hostname.slice(0, -1) : hostname;
  if (name === "") return [];
  try {
    return await (policy.resolve ?? resolveWithDns)(name);
  } catch {
    return [];
  }
}

/**
 * Resolves the host of `url` (IP literals are taken as they are; names are resolved on every call, A then AAAA)
 * and accepts it only when EVERY address is global unicast, or loopback on a port in `policy.loopbackPorts`.
 * Returns the distinct addresses in resolution order; the caller must connect to one of these. `classify` may
 * remember classifications ({@linkcode AddressMemo}); by default every address is classified afresh.
 */
export async function vetWebhookUrl(
  url: URL,
  policy: AddressPolicy,
  classify: AddressClassifier = CLASSIFY,
): Promise<{ ok: true; addresses: string[] } | { ok: false; reason: UrlRefusal }> {
  const literal = ipLiteral(url.hostname);
  const found = literal !== null ? [literal] : await resolveName(url.hostname, policy);
  const addresses = [...new Set(found)];
  if (addresses.length === 0) return { ok: false, reason: "unresolvable" };
  if (!addresses.every((ip) => addressAllowed(ip, url, policy, classify))) {
    return { ok: false, reason: "not_public" };
  }
  return { ok: true, addresses };
}
