/**
 * Delivery of one mail over SMTP with nodemailer: `smtps://` speaks TLS from the start (default port 465),
 * `smtp://` upgrades with STARTTLS whenever the server offers it (default port 587; certificates are verified, a
 * failed upgrade fails the send). User and password come URL-decoded from the URL; AUTH PLAIN or LOGIN is chosen
 * from what the server offers. Connecting and the whole send are bounded by a timeout.
 *
 * Never throws: a failure comes back as a short description that holds neither the credentials nor the mail text.
 * The recipient and a Reply-To must each be one plain address; a stop URL becomes `List-Unsubscribe` with
 * `List-Unsubscribe-Post: List-Unsubscribe=One-Click` (RFC 8058) and must be an https (or, in tests, http) URL.
 */
import type nodemailer from "nodemailer";
import { clip } from "../text.ts";

/** One message to hand to the mail server. */
export interface SmtpMessage {
  from: string;
  to: string;
  subject: string;
  text: string;
  /** One plain address for `Reply-To`. */
  replyTo?: string | undefined;
  /** The URL of `List-Unsubscribe` (one-click, RFC 8058). */
  listUnsubscribe?: string | undefined;
}

/** Tuning of a send (tests: trust a test CA, shorter timeout). */
export interface SmtpOptions {
  /** Upper bound in ms for connecting and for the whole send (default 10 000). */
  timeoutMs?: number;
  /** PEM certificate(s) to trust in addition to the system roots. */
  ca?: string;
  /** Host name announced in EHLO (default: the host of BASE_URL, given by the caller). */
  name?: string;
}

/** Outcome of a send: the server's answer on success, a redacted description on failure. */
export type SmtpResult = { ok: true; response: string } | { ok: false; error: string };

/** The default bound of connecting and of the whole send, in ms. */
export const SMTP_TIMEOUT_MS = 10_000;

/** Transport settings of nodemailer for an `smtp://` or `smtps://` URL. */
export function smtpTransportOptions(smtpUrl: string, opts: SmtpOptions = {}) {
  const u = new URL(smtpUrl);
  const secure = u.protocol === "smtps:";
  const timeout = opts.timeoutMs ?? SMTP_TIMEOUT_MS;
  const user = decodeURIComponent(u.username);
  return {
    host: u.hostname.replace(/^\[(.*)\]$/, "$1"),
    port: u.port ? Number(u.port) : secure ? 465 : 587,
    secure,
    ...(user ? { auth: { user, pass: decodeURIComponent(u.password) } } : {}),
    ...(opts.name ? { name: ehloName(opts.name) } : {}),
    ...(opts.ca ? { tls: { ca: opts.ca } } : {}),
    connectionTimeout: timeout,
    greetingTimeout: timeout,
    socketTimeout: timeout,
    dnsTimeout: timeout,
    socketCloseTimeout: 0,
    disableFileAccess: true,
    disableUrlAccess: true,
  };
}

/** The EHLO argument for a host name: an IP address as an address literal (`[127.0.0.1]`, `[IPv6:…]`). */
function ehloName(host: string): string {
  const bare = host.replace(/^\[(.*)\]$/, "$1");
  if (bare.includes(":")) return `[IPv6:${bare}]`;
  return /^\d+\.\d+\.\d+\.\d+$/.test(bare) ? `[${bare}]` : bare;
}

/** One plain address: a list or a display name would let a crafted address add recipients. */
const PLAIN_ADDRESS = /^[^\s@,;<>"()]+@[^\s@,;<>"()]+$/;
/** An http(s) URL of printable ASCII without `<`, `>` or a comma (it goes into a header between angle brackets). */
const STOP_URL = /^https?:\/\/[!-+\--;=?-~]+$/;

/** The nodemailer message of `msg`: plain text, and the optional Reply-To and one-click unsubscribe headers. */
function nodemailerMessage(msg: SmtpMessage) {
  const stop = msg.listUnsubscribe;
  return {
    from: msg.from,
    to: msg.to,
    subject: msg.subject,
    text: msg.text,
    ...(msg.replyTo ? { replyTo: msg.replyTo } : {}),
    ...(stop
      ? {
        headers: { "List-Unsubscribe": `<${stop}>`, "List-Unsubscribe-Post": "List-Unsubscribe=One-Click" },
      }
      : {}),
  };
}

/** Sends `msg` through the server of `smtpUrl`; resolves when the server accepted or refused it, or on timeout. */
export async function smtpSend(
  smtpUrl: string,
  msg: SmtpMessage,
  opts: SmtpOptions = {},
): Promise<SmtpResult> {
  // One plain address only: a list or a display name in `to` would let a crafted address add recipients.
  if (!PLAIN_ADDRESS.test(msg.to)) return { ok: false, error: "invalid recipient address" };
  if (msg.replyTo !== undefined && !PLAIN_ADDRESS.test(msg.replyTo)) {
    return { ok: false, error: "invalid reply-to address" };
  }
  if (msg.listUnsubscribe !== undefined && !STOP_URL.test(msg.listUnsubscribe)) {
    return { ok: false, error: "invalid unsubscribe URL" };
  }
  const abort = new AbortController();
  const timer = setTimeout(() => abort.abort(), opts.timeoutMs ?? SMTP_TIMEOUT_MS);
  let transport: ReturnType<typeof nodemailer.createTransport> | undefined;
  try {
    // Loaded on the first mail, not at start (docs/architecture.md §11.17).
    const { default: mailer } = await import("nodemailer");
    transport = mailer.createTransport(smtpTransportOptions(smtpUrl, opts));
    const info = await transport.sendMail({ ...nodemailerMessage(msg), signal: abort.signal });
    return { ok: true, response: String(info.response ?? "") };
  } catch (err) {
    return { ok: false, error: describeSmtpError(err, secretsOf(smtpUrl)) };
  } finally {
    clearTimeout(timer);
    transport?.close();
  }
}

/** The parts of `smtpUrl` that must never be logged: the URL itself, the password and the user, raw and decoded. */
function secretsOf(smtpUrl: string): string[] {
  const out = [smtpUrl];
  try {
    const u = new URL(smtpUrl);
    for (const part of [u.password, u.username]) {
      if (part) out.push(part, safeDecode(part));
    }
  } catch { /* an unparsable URL: only the whole string is known */ }
  return out.filter((s) => s.length > 0).sort((a, b) => b.length - a.length);
}

function safeDecode(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}

/** A one-line description of a send failure (code, command, server reply) with every secret replaced by `***`. */
export function describeSmtpError(err: unknown, secrets: string[]): string {
  const e = (err ?? {}) as { name?: unknown; code?: unknown; command?: unknown; message?: unknown };
  const parts = [e.code, e.command, e.message ?? String(err)]
    .filter((p) => typeof p === "string" && p !== "") as string[];
  let text = (parts.length ? parts.join(": ") : String(e.name ?? "error")).replace(/\s+/g, " ");
  for (const s of secrets) text = text.replaceAll(s, "***");
  return clip(text, 301);
}
