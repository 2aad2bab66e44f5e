import assert from "node:assert/strict";
import { addressKey } from "./client_address.ts";

Deno.test("IPv4 addresses are their own key; IPv6 addresses are keyed by their /64", () => {
  assert.equal(addressKey("192.0.2.1"), "ip4:192.0.2.1");
  assert.equal(addressKey("::ffff:192.0.2.1"), "ip4:192.0.2.1");
  assert.equal(addressKey("2001:db8:a:b::1"), "ip6:2001:db8:a:b::/64");
  assert.equal(addressKey("2001:0db8:000a:000b:ffff:ffff:ffff:ffff"), "ip6:2001:db8:a:b::/64");
  assert.notEqual(addressKey("2001:db8:a:c::1"), addressKey("2001:db8:a:b::1"));
  assert.equal(addressKey(undefined), "ip:unknown");
  assert.equal(addressKey("not an ip"), "ip:unknown");
});
