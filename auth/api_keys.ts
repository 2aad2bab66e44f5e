/**
 * API keys: a person's long-lived credential for the MCP endpoint (docs/contract.md §5), as an alternative to an OAuth
 * connection. A key acts with its person's role and office at the time of each call, never with a stored one.
 *
 * Format (51 characters): `immo_` + 40 random base62 characters + 6 base62 characters of checksum.
 *
 * - base62 alphabet: `0-9`, `A-Z`, `a-z` (in that order, digit value 0…61).
 * - The random part is drawn from the Web Crypto RNG by rejection sampling (no modulo bias): ~238 bits.
 * - The checksum is the CRC-32 (IEEE 802.3, as in zip/PNG) of the 40 ASCII characters of the random part,
 *   written as a base62 number, most significant digit first, left-padded with `0` to 6 digits
 *   (62^6 > 2^32). It lets {@linkcode parseApiKey} reject typos and foreign tokens without a database access,
 *   and lets secret scanners recognise a real key.
 *
 * Storage: only the SHA-256 (lower-case hex) of the whole key and its first 12 characters (`display_prefix`,
 * e.g. `immo_AbC3xYz`) for lists. The plain key is returned once, by {@linkcode createApiKey}.
 */
import { sha256HexSync, timingSafeEqual } from "../crypto.ts";
import {
  type ApiKeyListItem,
  type ApiKeyWithAccess,
  findApiKeysByHashes,
  insertApiKey,
  markApiKeyRevoked,
  selectApiKeys,
  touchApiKey,
} from "../db/api_keys.ts";
import type { PersonAccess } from "../db/accounts.ts";
import type { Db } from "../db/connection.ts";
import { AppError } from "../errors.ts";
import { type Principal, rightOfRole } from "./principal.ts";

/** The fixed service-specific prefix of every API key. */
export const API_KEY_PREFIX = "immo_";
/** Length of the random part. */
export const API_KEY_RANDOM_LENGTH = 40;
/** Length of the checksum part. */
export const API_KEY_CHECKSUM_LENGTH = 6;
/** Total length of a key. */
export const API_KEY_LENGTH = API_KEY_PREFIX.length + API_KEY_RANDOM_LENGTH + API_KEY_CHECKSUM_LENGTH;
/** Characters of a key kept for display in lists. */
export const DISPLAY_PREFIX_LENGTH = 12;
/** `last_used_at` is written at most once per this many seconds per key. */
export const LAST_USED_RESOLUTION_SECONDS = 60;

const BASE62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
const BASE62_BODY = /^[0-9A-Za-z]+$/;

const CRC_TABLE = (() => {
  const t = new Uint32Array(256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    t[n] = c >>> 0;
  }
  return t;
})();

/** CRC-32 (IEEE) of the UTF-8 bytes of `text`, as an unsigned 32-bit number. */
export function crc32(text: string): number {
  let c = 0xffffffff;
  for (const b of new TextEncoder().encode(text)) c = CRC_TABLE[(c ^ b) & 0xff]! ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}

/** The 6-character base62 checksum of a key's random part. */
export function apiKeyChecksum(random: string): string {
  let n = crc32(random);
  let out = "";
  for (let i = 0; i < API_KEY_CHECKSUM_LENGTH; i++) {
    out = BASE62[n % 62] + out;
    n = Math.floor(n / 62);
  }
  return out;
}

/** `length` random base62 characters from the Web Crypto RNG, without modulo bias. */
function randomBase62(length: number): string {
  let out = "";
  while (out.length < length) {
    for (const b of crypto.getRandomValues(new Uint8Array(64))) {
      if (b < 248 && out.length < length) out += BASE62[b % 62]; // 248 = 4 × 62
    }
  }
  return out;
}

/** Makes a new, well-formed plain key (not stored anywhere). */
export function generateApiKey(): string {
  const random = randomBase62(API_KEY_RANDOM_LENGTH);
  return API_KEY_PREFIX + random + apiKeyChecksum(random);
}

/** Why a text is not an API key. */
export type ApiKeyFormatError = "prefix" | "length" | "alphabet" | "checksum";

/** The outcome of {@linkcode parseApiKey}. */
export type ParsedApiKey = { ok: true; key: string } | { ok: false; reason: ApiKeyFormatError };

/** Checks prefix, length, alphabet and checksum of `text`; touches no database. */
export function parseApiKey(text: string): ParsedApiKey {
  if (!text.startsWith(API_KEY_PREFIX)) return { ok: false, reason: "prefix" };
  if (text.length !== API_KEY_LENGTH) return { ok: false, reason: "length" };
  const body = text.slice(API_KEY_PREFIX.length);
  if (!BASE62_BODY.test(body)) return { ok: false, reason: "alphabet" };
  const random = body.slice(0, API_KEY_RANDOM_LENGTH);
  if (apiKeyChecksum(random) !== body.slice(API_KEY_RANDOM_LENGTH)) return { ok: false, reason: "checksum" };
  return { ok: true, key: text };
}

/** Lower-case hex SHA-256 of `key` (what the database stores). */
export function hashApiKey(key: string): Promise<string> {
  return Promise.resolve(sha256HexSync(key));
}

/** A newly created key: the plain `key` is shown once and never again. */
export interface CreatedApiKey {
  id: string;
  key: string;
  displayPrefix: string;
}

/** Creates a key named `name` (1–100 characters after trimming) for `userId`; throws `invalid_request` otherwise. */
export async function createApiKey(db: Db, userId: string, name: string): Promise<CreatedApiKey> {
  const trimmed = name.trim();
  if (trimmed.length < 1 || trimmed.length > 100) {
    throw new AppError("invalid_request", {
      field: "name",
      reason: "out_of_range",
      hint: "1 to 100 characters",
    });
  }
  const key = generateApiKey();
  const displayPrefix = key.slice(0, DISPLAY_PREFIX_LENGTH);
  const id = await insertApiKey(db, { userId, name: trimmed, keyHash: sha256HexSync(key), displayPrefix });
  return { id, key, displayPrefix };
}

/** Every key of `userId` (revoked ones included), newest first; never the key itself. */
export async function listApiKeys(db: Db, userId: string): Promise<ApiKeyListItem[]> {
  return await selectApiKeys(db, userId);
}

/** Revokes key `keyId` if it belongs to `userId` and is active; returns whether it did. */
export async function revokeApiKey(db: Db, userId: string, keyId: string): Promise<boolean> {
  if (!/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(keyId)) return false;
  return await markApiKeyRevoked(db, userId, keyId);
}

/** A key that passed {@linkcode verifyApiKey}. */
export interface VerifiedApiKey {
  keyId: string;
  userId: string;
  /** When the key was last recorded as used (resolution: one minute). */
  lastUsedAt: Date | null;
  /** The owner's role and active office when the key was verified. */
  access: PersonAccess;
}

/**
 * The key's id and owner when `key` is well-formed, known and not revoked; undefined otherwise. Looked up through
 * the app's `lookup` (batched with concurrent calls) when given, else by a query of its own.
 */
export async function verifyApiKey(
  db: Db,
  key: string,
  lookup?: KeyLookup,
): Promise<VerifiedApiKey | undefined> {
  if (!parseApiKey(key).ok) return undefined;
  const hash = sha256HexSync(key);
  const row = lookup ? await lookup.find(hash) : (await findApiKeysByHashes(db, [hash])).get(hash);
  if (!row || !timingSafeEqual(row.keyHash, hash) || row.revokedAt !== null) return undefined;
  return {
    keyId: row.id,
    userId: row.userId,
    lastUsedAt: row.lastUsedAt,
    access: { role: row.role, officeId: row.officeId },
  };
}

/** Hashes looked up in one query at most. */
const LOOKUP_BATCH = 256;

type Waiter = { resolve: (row: ApiKeyWithAccess | undefined) => void; reject: (error: unknown) => void };

/**
 * Key lookups of one database, batched without caching anything: at most one lookup query runs at a time, and
 * every hash asked for while it runs waits for the next query, which then answers all of them at once. Each
 * answer therefore comes from a query sent after the key was presented, so a revocation, an ended membership or
 * a changed role committed before a call is seen by that call (docs/contract.md §5: the person's role and office at the
 * time of each call), while under load one query serves many concurrent calls instead of one each. Created once
 * per app (`auth/runtime.ts`), so apps in one process share nothing.
 */
export class KeyLookup {
  #pending = new Map<string, Waiter[]>();
  #running = false;

  constructor(readonly db: Db) {}

  /** The key row of `hash` (with its owner's access), from a query sent after this call. */
  find(hash: string): Promise<ApiKeyWithAccess | undefined> {
    return new Promise((resolve, reject) => {
      const waiters = this.#pending.get(hash);
      if (waiters) waiters.push({ resolve, reject });
      else this.#pending.set(hash, [{ resolve, reject }]);
      if (!this.#running) void this.#drain();
    });
  }

  async #drain(): Promise<void> {
    this.#running = true;
    try {
      while (this.#pending.size > 0) await this.#runBatch(this.#takeBatch());
    } finally {
      this.#running = false;
    }
  }

  #takeBatch(): Map<string, Waiter[]> {
    if (this.#pending.size <= LOOKUP_BATCH) {
      const all = this.#pending;
      this.#pending = new Map();
      return all;
    }
    const batch = new Map<string, Waiter[]>();
    for (const [hash, waiters] of this.#pending) {
      if (batch.size === LOOKUP_BATCH) break;
      batch.set(hash, waiters);
    }
    for (const hash of batch.keys()) this.#pending.delete(hash);
    return batch;
  }

  async #runBatch(batch: Map<string, Waiter[]>): Promise<void> {
    try {
      const rows = await findApiKeysByHashes(this.db, [...batch.keys()]);
      for (const [hash, waiters] of batch) for (const w of waiters) w.resolve(rows.get(hash));
    } catch (error) {
      for (const waiters of batch.values()) for (const w of waiters) w.reject(error);
    }
  }
}

/**
 * The caller a key acts for, with the person's role and office now; undefined when the key is not valid or the
 * person is a provider without an active office membership. `lookup`: as for {@linkcode verifyApiKey}.
 */
export async function apiKeyPrincipal(
  db: Db,
  key: string,
  lookup?: KeyLookup,
): Promise<{ principal: Principal; verified: VerifiedApiKey } | undefined> {
  const verified = await verifyApiKey(db, key, lookup);
  if (!verified) return undefined;
  const access = verified.access;
  if ((access.role === "provider" && access.officeId === null)) return undefined;
  return {
    verified,
    principal: {
      userId: verified.userId,
      role: access.role,
      officeId: access.role === "provider" ? access.officeId : null,
      right: rightOfRole(access.role),
      origin: { kind: "api_key", keyId: verified.keyId },
    },
  };
}

/**
 * Records that a verified key was used: writes `last_used_at` only when the stored value is older than one
 * minute (so not on every call), and the database re-checks that condition.
 */
export async function recordApiKeyUse(db: Db, key: VerifiedApiKey, now = Date.now()): Promise<void> {
  const last = key.lastUsedAt?.getTime();
  if (last !== undefined && now - last < LAST_USED_RESOLUTION_SECONDS * 1000) return;
  await touchApiKey(db, key.keyId, LAST_USED_RESOLUTION_SECONDS);
}
