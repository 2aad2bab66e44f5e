/** `deno task openimmo:import <file.xml|zip> --office <id>` (filled by the OpenImmo work package). */
if (import.meta.main) {
  console.error("openimmo:import is not built yet");
  Deno.exit(2);
}
