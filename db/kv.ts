/** Opens Deno KV: a file, `:memory:`, or (path undefined) the platform's KV on Deno Deploy. */

/** Opens the KV store at `path` (creating its folder when it is a file path, not a KV Connect URL). */
export async function openKv(path: string | undefined): Promise<Deno.Kv> {
  if (path && path !== ":memory:" && !/^https?:\/\//i.test(path)) {
    const dir = path.replace(/[\\/][^\\/]*$/, "");
    if (dir && dir !== path) await Deno.mkdir(dir, { recursive: true });
  }
  return await Deno.openKv(path);
}
