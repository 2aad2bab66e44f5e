/** `deno task social:connect …`: connects a social network page to an office (filled by the social work package). */
if (import.meta.main) {
  console.error("social:connect is not built yet");
  Deno.exit(2);
}
