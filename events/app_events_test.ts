import assert from "node:assert/strict";
import { addressOf, eventsOfScopes, serversOfScopes } from "./app_events.ts";
import { EVENT_SERVER, eventsOf } from "./catalogue.ts";

Deno.test("app events: servers and events of consent scopes, shown address", () => {
  assert.deepEqual(serversOfScopes(["lesen", "offline_access"]), ["anbieter"]);
  assert.deepEqual(serversOfScopes(["suchen"]), ["suche"]);
  assert.deepEqual(serversOfScopes(["offline_access"]), []);
  assert.deepEqual(eventsOfScopes(["lesen"]), eventsOf("anbieter"));
  assert.deepEqual(eventsOfScopes(["suchen", "offline_access"]), eventsOf("suche"));
  for (const n of eventsOfScopes(["lesen"])) assert.equal(EVENT_SERVER[n], "anbieter");
  assert.equal(
    addressOf("https://hooks.example.org:8443/in/abc?token=geheim#x"),
    "hooks.example.org:8443/in/abc",
  );
  assert.equal(addressOf("not a url"), "");
});
