import assert from "node:assert/strict";
import {
  type AddressClassifier,
  AddressMemo,
  type AddressPolicy,
  isGlobalUnicast,
  parseWebhookUrl,
  type UrlRefusal,
  vetWebhookUrl,
} from "./address.ts";

/** The outside world's DNS for these tests. A name missing here fails like NXDOMAIN. */
const FAKE_DNS: Record<string, string[]> = {
  "localhost": ["127.0.0.1", "::1"],
  "api.localhost": ["127.0.0.1"],
  "public.example": ["93.184.215.14", "2606:2800:21f:cb07:6820:80da:af6b:8b2c"],
  "public-v4.example": ["93.184.215.14"],
  "mixed.example": ["93.184.215.14", "10.0.0.1"],
  "mixed-v6.example": ["2606:2800:21f:cb07:6820:80da:af6b:8b2c", "fd00::1"],
  "private.example": ["192.168.1.10"],
  "loopback.example": ["127.0.0.1"],
  "metadata.example": ["169.254.169.254"],
  "mapped.example": ["::ffff:10.0.0.1"],
  "nat64.example": ["64:ff9b::a00:1"],
  "empty.example": [],
  "garbage.example": ["not-an-ip"],
  "zoned.example": ["fe80::1%eth0"],
};

const looked: string[] = [];

function fakeResolve(host: string): Promise<string[]> {
  looked.push(host);
  const answer = FAKE_DNS[host];
  return answer === undefined ? Promise.reject(new Error("NXDOMAIN")) : Promise.resolve(answer);
}

const strict: AddressPolicy = { loopbackPorts: new Set(), resolve: fakeResolve };

/** parse, then vet: the reason or the addresses. */
async function judge(
  raw: unknown,
  policy: AddressPolicy = strict,
  classify?: AddressClassifier,
): Promise<{ reason: UrlRefusal } | { addresses: string[] }> {
  const parsed = parseWebhookUrl(raw);
  if (!parsed.ok) return { reason: parsed.reason };
  const vetted = await vetWebhookUrl(parsed.url, policy, classify);
  return vetted.ok ? { addresses: vetted.addresses } : { reason: vetted.reason };
}

const NOT_PUBLIC_LITERALS = [
  // IPv4 special-purpose ranges
  "https://0.0.0.0/",
  "https://0.1.2.3/",
  "https://10.0.0.1/",
  "https://10.255.255.255/",
  "https://100.64.0.1/",
  "https://100.127.255.254/",
  "https://127.0.0.1/",
  "https://127.255.255.254/",
  "https://169.254.169.254/latest/meta-data/",
  "https://172.16.0.1/",
  "https://172.31.255.254/",
  "https://192.0.0.1/",
  "https://192.0.0.170/",
  "https://192.0.2.1/",
  "https://192.88.99.1/",
  "https://192.168.0.1/",
  "https://198.18.0.1/",
  "https://198.19.255.254/",
  "https://198.51.100.7/",
  "https://203.0.113.9/",
  "https://224.0.0.1/",
  "https://239.255.255.250/",
  "https://240.0.0.1/",
  "https://255.255.255.255/",
  // other spellings of 127.0.0.1 and 10.0.0.1 (WHATWG normalises them to dotted decimal)
  "https://2130706433/",
  "https://0x7f.1/",
  "https://0x7f000001/",
  "https://017700000001/",
  "https://0177.0.0.1/",
  "https://127.1/",
  "https://0xa.0.0.1/",
  "https://167772161/",
  // IPv6 special-purpose ranges
  "https://[::]/",
  "https://[::1]/",
  "https://[0:0:0:0:0:0:0:1]/",
  "https://[::1.2.3.4]/",
  "https://[::8.8.8.8]/",
  "https://[fc00::1]/",
  "https://[fd12:3456::1]/",
  "https://[fe80::1]/",
  "https://[fec0::1]/",
  "https://[ff02::1]/",
  "https://[ff0e::1]/",
  "https://[100::1]/",
  "https://[2001:db8::1]/",
  "https://[2001::1]/",
  "https://[2001:0:4136:e378::1]/",
  "https://[2001:10::1]/",
  "https://[2001:20::1]/",
  "https://[2002:c000:201::1]/",
  "https://[2002:7f00:1::1]/",
  "https://[3fff::1]/",
  "https://[5f00::1]/",
  // IPv4-mapped and NAT64 forms of non-public IPv4
  "https://[::ffff:10.0.0.1]/",
  "https://[::ffff:7f00:1]/",
  "https://[::ffff:127.0.0.1]/",
  "https://[::ffff:169.254.169.254]/",
  "https://[::ffff:0:10.0.0.1]/",
  "https://[64:ff9b::a00:1]/",
  "https://[64:ff9b::8.8.8.8]/",
  "https://[64:ff9b:1::a00:1]/",
];

const OTHER_REFUSALS: [unknown, UrlRefusal][] = [
  // text
  [42, "malformed"],
  [null, "malformed"],
  ["", "malformed"],
  ["not a url", "malformed"],
  ["https://", "malformed"],
  ["https://exa mple.com/", "malformed"],
  [" https://public.example/", "malformed"],
  ["https://public.example/\n", "malformed"],
  ["https://[fe80::1%25eth0]/", "malformed"],
  ["https://256.0.0.1/", "malformed"],
  ["http://public.example/hook", "not_https"],
  ["ftp://public.example/hook", "not_https"],
  ["wss://public.example/hook", "not_https"],
  ["file:///etc/passwd", "not_https"],
  ["HTTP://public.example/", "not_https"],
  ["https://user@public.example/", "userinfo"],
  ["https://user:pw@public.example/", "userinfo"],
  ["https://:pw@public.example/", "userinfo"],
  [`https://public.example/${"a".repeat(2048)}`, "too_long"],
  // names
  ["https://localhost/", "not_public"],
  ["https://localhost./", "not_public"],
  ["https://LOCALHOST:8443/", "not_public"],
  ["https://api.localhost/", "not_public"],
  ["https://mixed.example/", "not_public"],
  ["https://mixed-v6.example/", "not_public"],
  ["https://private.example/", "not_public"],
  ["https://private.example./", "not_public"],
  ["https://loopback.example/", "not_public"],
  ["https://metadata.example/", "not_public"],
  ["https://mapped.example/", "not_public"],
  ["https://nat64.example/", "not_public"],
  ["https://garbage.example/", "not_public"],
  ["https://zoned.example/", "not_public"],
  ["https://empty.example/", "unresolvable"],
  ["https://nxdomain.example/", "unresolvable"],
];

Deno.test("vetWebhookUrl refuses every non-public IP literal, also when classifications are remembered", async () => {
  assert.ok(NOT_PUBLIC_LITERALS.length + OTHER_REFUSALS.length >= 60);
  const memo = new AddressMemo();
  for (const classify of [undefined, memo, memo]) {
    for (const raw of NOT_PUBLIC_LITERALS) {
      assert.deepEqual(await judge(raw, strict, classify), { reason: "not_public" }, raw);
    }
  }
});

Deno.test("parse and vet refuse bad text, wrong schemes, user info, long URLs and bad names", async () => {
  for (const [raw, reason] of OTHER_REFUSALS) {
    assert.deepEqual(await judge(raw), { reason }, String(raw).slice(0, 80));
  }
});

Deno.test("public addresses are accepted, with every resolved address returned", async () => {
  assert.deepEqual(await judge("https://8.8.8.8/hook"), { addresses: ["8.8.8.8"] });
  assert.deepEqual(await judge("https://[2001:4860:4860::8888]:8443/x"), {
    addresses: ["2001:4860:4860::8888"],
  });
  assert.deepEqual(await judge("https://[::ffff:8.8.8.8]/"), { addresses: ["::ffff:808:808"] });
  assert.deepEqual(await judge("https://public.example/hook?x=1#frag"), {
    addresses: FAKE_DNS["public.example"],
  });
  assert.deepEqual(await judge("https://public-v4.example./hook"), {
    addresses: FAKE_DNS["public-v4.example"],
  });
  const longest = `https://public.example/${"a".repeat(2048 - "https://public.example/".length)}`;
  assert.equal(longest.length, 2048);
  assert.ok("addresses" in await judge(longest));
});

Deno.test("names are resolved on every call, without the trailing dot", async () => {
  looked.length = 0;
  await judge("https://public.example./a");
  await judge("https://public.example/b");
  assert.deepEqual(looked, ["public.example", "public.example"]);
});

Deno.test("a resolver that turns private between two calls is caught on the second (rebinding)", async () => {
  const answers = [["93.184.215.14"], ["10.0.0.5"]];
  const policy: AddressPolicy = {
    loopbackPorts: new Set(),
    resolve: () => Promise.resolve(answers.shift() ?? []),
  };
  assert.deepEqual(await judge("https://rebind.example/", policy), { addresses: ["93.184.215.14"] });
  assert.deepEqual(await judge("https://rebind.example/", policy), { reason: "not_public" });
});

Deno.test("the loopback exception holds only for loopback on a listed port", async () => {
  const dev: AddressPolicy = { loopbackPorts: new Set([8443, 443]), resolve: fakeResolve };
  const memo = new AddressMemo();
  for (const classify of [undefined, memo, memo]) await loopbackRules(dev, classify);
});

async function loopbackRules(dev: AddressPolicy, classify: AddressClassifier | undefined) {
  const check = (raw: string, policy = dev) => judge(raw, policy, classify);
  assert.deepEqual(await check("https://127.0.0.1:8443/hook", dev), { addresses: ["127.0.0.1"] });
  assert.deepEqual(await check("https://127.0.0.2/hook", dev), { addresses: ["127.0.0.2"] });
  assert.deepEqual(await check("https://[::1]:8443/", dev), { addresses: ["::1"] });
  assert.deepEqual(await check("https://localhost:8443/", dev), { addresses: ["127.0.0.1", "::1"] });
  assert.deepEqual(await check("https://loopback.example:8443/", dev), { addresses: ["127.0.0.1"] });
  // another port, another range, or loopback in disguise: still refused
  for (
    const raw of [
      "https://127.0.0.1:8444/",
      "https://localhost:9000/",
      "https://10.0.0.1:8443/",
      "https://192.168.1.1/",
      "https://[fe80::1]:8443/",
      "https://[::ffff:7f00:1]:8443/",
      "https://[64:ff9b::7f00:1]:8443/",
      "https://private.example:8443/",
    ]
  ) {
    assert.deepEqual(await check(raw, dev), { reason: "not_public" }, raw);
  }
  // never by default
  assert.deepEqual(await check("https://127.0.0.1:8443/", strict), { reason: "not_public" });
}

Deno.test("without a resolver, localhost names are loopback and never go to DNS", async () => {
  const system: AddressPolicy = { loopbackPorts: new Set([8443]) };
  for (
    const raw of ["https://localhost:8443/", "https://localhost.:8443/", "https://hooks.localhost:8443/"]
  ) {
    assert.deepEqual(await judge(raw, system), { addresses: ["127.0.0.1", "::1"] }, raw);
  }
  for (const raw of ["https://localhost/", "https://localhost.:8444/", "https://hooks.localhost/"]) {
    assert.deepEqual(await judge(raw, { loopbackPorts: new Set() }), { reason: "not_public" }, raw);
  }
});

Deno.test("isGlobalUnicast agrees with the special-purpose registries on single addresses, remembered or not", () => {
  const memo = new AddressMemo();
  for (
    const classify of [
      isGlobalUnicast,
      (ip: string) => memo.isGlobalUnicast(ip),
      (ip: string) => memo.isGlobalUnicast(ip),
    ]
  ) {
    for (const ip of GLOBAL) assert.equal(classify(ip), true, ip);
    for (const ip of NOT_GLOBAL) assert.equal(classify(ip), false, ip);
  }
});

const GLOBAL = [
  "1.1.1.1",
  "93.184.215.14",
  "2606:4700:4700::1111",
  "2a00:1450:4001:80b::200e",
  "::ffff:1.1.1.1",
];

const NOT_GLOBAL = [
  "100.64.0.0",
  "192.0.0.9",
  "198.18.0.0",
  "0.0.0.0",
  "240.0.0.0",
  "255.255.255.255",
  "64:ff9b::101:101",
  "2002:101:101::1",
  "2001::101:101",
  "2001:db8::1",
  "fd00::1",
  "fe80::1",
  "ff00::1",
  "::",
  "::1",
  "::1.1.1.1",
  "1.1.1",
  "01.1.1.1",
  "fe80::1%eth0",
  "[2606:4700:4700::1111]",
  "",
  "example.com",
];
