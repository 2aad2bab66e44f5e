/**
 * The one reader of `Content-Type` headers (RFC 9110 §8.3.1): `type "/" subtype *( OWS ";" OWS [ parameter ] )`,
 * type, subtype and parameter names compared without case, parameter values a token or a quoted-string. A
 * header that does not follow this grammar (e.g. `application/json;charset`, a parameter without `=`) is no
 * media type at all, so it matches nothing and the route answers 415.
 */

/** A parsed media type: type and subtype in lower case, parameters by lower-case name (first one wins). */
export interface MediaType {
  type: string;
  subtype: string;
  /** `type/subtype`. */
  essence: string;
  params: ReadonlyMap<string, string>;
}

const TOKEN = "[!#$%&'*+.^_`|~0-9A-Za-z-]+";
const QUOTED = '"(?:[\\t \\x21\\x23-\\x5B\\x5D-\\x7E\\x80-\\xFF]|\\\\[\\t \\x21-\\x7E\\x80-\\xFF])*"';
const HEAD = new RegExp(`^(${TOKEN})/(${TOKEN})`, "y");
const PARAM = new RegExp(`[\\t ]*;[\\t ]*(?:(${TOKEN})=(${TOKEN}|${QUOTED}))?`, "y");

/** Parses a `Content-Type` value; undefined when it is missing or malformed. */
export function parseMediaType(value: string | null | undefined): MediaType | undefined {
  if (!value) return undefined;
  HEAD.lastIndex = 0;
  const head = HEAD.exec(value);
  if (!head) return undefined;
  const params = new Map<string, string>();
  for (let at = HEAD.lastIndex; at < value.length; at = PARAM.lastIndex) {
    PARAM.lastIndex = at;
    const m = PARAM.exec(value);
    if (!m) return undefined;
    const name = m[1]?.toLowerCase();
    if (name !== undefined && !params.has(name)) params.set(name, unquote(m[2]!));
  }
  const type = head[1]!.toLowerCase(), subtype = head[2]!.toLowerCase();
  return { type, subtype, essence: `${type}/${subtype}`, params };
}

function unquote(v: string): string {
  return v.startsWith('"') ? v.slice(1, -1).replace(/\\(.)/gs, "$1") : v;
}

/**
 * Whether `value` declares JSON: `application/json` or an `application/…+json` structured-syntax suffix
 * (RFC 6839 §3.1), with any parameters (a `charset` has no effect on JSON, RFC 8259 §11).
 */
export function isJsonMediaType(value: string | null | undefined): boolean {
  const m = parseMediaType(value);
  return m?.type === "application" && (m.subtype === "json" || /^.+\+json$/.test(m.subtype));
}

/** Whether `value` is a well-formed media type whose `type/subtype` is one of `essences` (lower case). */
export function mediaTypeIs(value: string | null | undefined, ...essences: string[]): boolean {
  const m = parseMediaType(value);
  return m !== undefined && essences.includes(m.essence);
}
