/**
 * The bare-server floor, run as its own process by `catalogue.ts`: a plain `Deno.serve` answering the catalogue
 * paths with fixed JSON captured from the service (a page of 24, a page of 60, one listing) and nothing else.
 *
 * Usage: deno run --allow-net --allow-read bench/bare_server.ts <port> <folder with page24.json page60.json listing.json>
 */

/** The captured bodies the bare server answers with. */
export interface BareBodies {
  /** A list response with 24 items. */
  page24: string;
  /** A list response with 60 items. */
  page60: string;
  /** A single-listing response. */
  listing: string;
}

/** Reads the captured bodies from `dir`. */
export async function readBodies(dir: string): Promise<BareBodies> {
  return {
    page24: await Deno.readTextFile(`${dir}/page24.json`),
    page60: await Deno.readTextFile(`${dir}/page60.json`),
    listing: await Deno.readTextFile(`${dir}/listing.json`),
  };
}

/** Serves the captured bodies on 127.0.0.1:`port` until the process is stopped. */
export function serveBare(port: number, bodies: BareBodies): Deno.HttpServer {
  const json = { "content-type": "application/json" };
  return Deno.serve({ hostname: "127.0.0.1", port, onListen: () => {} }, (req) => {
    const url = new URL(req.url);
    if (url.pathname === "/api/public/properties") {
      const body = url.searchParams.get("page_size") === "60" ? bodies.page60 : bodies.page24;
      return new Response(body, { headers: json });
    }
    if (url.pathname.startsWith("/api/public/properties/")) {
      return new Response(bodies.listing, { headers: json });
    }
    if (url.pathname === "/healthz") return new Response('{"status":"ok"}', { headers: json });
    return new Response('{"error":"not_found"}', { status: 404, headers: json });
  });
}

if (import.meta.main) {
  const [port, dir] = Deno.args;
  if (!port || !dir) {
    console.error("usage: bare_server.ts <port> <folder>");
    Deno.exit(2);
  }
  const server = serveBare(Number(port), await readBodies(dir));
  Deno.addSignalListener("SIGTERM", () => server.shutdown().then(() => Deno.exit(0)));
  Deno.addSignalListener("SIGINT", () => server.shutdown().then(() => Deno.exit(0)));
}
