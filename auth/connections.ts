/** Connections between a person and an app (OAuth consents): disconnecting ends them at once. */
import { deleteConnection } from "../db/oauth.ts";
import { type AppDeps, nowOf } from "../deps.ts";

/**
 * Disconnects `clientId` from `userId`: consent, refresh and access tokens go in one transaction; JWT access
 * tokens still in circulation are refused on their next use (no consent, and a grant cutoff that also holds when
 * the person connects the app again at once).
 * Returns whether a connection existed.
 */
export async function disconnectApp(
  deps: Pick<AppDeps, "db" | "log" | "clock">,
  userId: string,
  clientId: string,
) {
  const existed = await deleteConnection(deps.db, userId, clientId, nowOf(deps));
  if (existed) deps.log.log("info", "app disconnected", { userId, clientId });
  return existed;
}
