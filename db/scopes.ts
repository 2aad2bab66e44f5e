/** OAuth scope lists as better-auth stores them: jsonb arrays (parsed by both drivers) or, in older rows, text. */

/** The scopes of a consent row (better-auth stores a JSON array or a space-separated string). */
export function parseScopes(v: unknown): string[] {
  if (Array.isArray(v)) return v.map(String);
  if (typeof v === "string") {
    try {
      const p = JSON.parse(v);
      return Array.isArray(p) ? p.map(String) : v.split(" ").filter(Boolean);
    } catch {
      return v.split(" ").filter(Boolean);
    }
  }
  return [];
}
