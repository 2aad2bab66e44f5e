/**
 * Who is calling the MCP endpoint: a person with one role and (for providers) one office, acting through an
 * OAuth connection or an API key. Built by `auth/mcp_auth.ts`; read by the MCP servers and their tools.
 */
import { AppError } from "../errors.ts";

/** The two rights of docs/contract.md §5: `lesen` (provider server) and `suchen` (seeker server). */
export type Right = "lesen" | "suchen";

/** A person's role: a seeker, or a provider who is a member of an office. */
import type { Role } from "../db/schema.ts";
export type { Role };

/** The right that belongs to a role (providers get `lesen`, seekers get `suchen`). */
export function rightOfRole(role: Role): Right {
  return role === "provider" ? "lesen" : "suchen";
}

/**
 * How the caller authenticated: an OAuth connection (an app), one of the person's API keys, or a signed-in page
 * session (the agent's web workspace: no app, so every subscribed app hears of what it does).
 */
export type Origin =
  | { kind: "oauth"; clientId: string }
  | { kind: "api_key"; keyId: string }
  | { kind: "web" };

/** An authenticated caller of the MCP endpoint. */
export interface Principal {
  /** The person's account id (`users.id`). */
  userId: string;
  /** The person's role now (not when the token was issued). */
  role: Role;
  /** The office of a provider with an active membership; null for seekers. */
  officeId: string | null;
  /** The right this call acts with; decides which MCP server answers. */
  right: Right;
  /** The app or key the call came through. */
  origin: Origin;
}

/** The office a provider acts for; a caller without an active membership sees nothing (`not_found`). */
export function officeOf(principal: Principal): string {
  if (principal.right !== "lesen" || principal.officeId === null) throw new AppError("not_found");
  return principal.officeId;
}

/** The seeker a call acts for; a caller without the right `suchen` sees nothing (`not_found`). */
export function seekerOf(principal: Principal): string {
  if (principal.right !== "suchen") throw new AppError("not_found");
  return principal.userId;
}
