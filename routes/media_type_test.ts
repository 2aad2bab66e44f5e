import assert from "node:assert/strict";
import { isJsonMediaType, mediaTypeIs, parseMediaType } from "./media_type.ts";

Deno.test("parseMediaType follows RFC 9110 §8.3.1", () => {
  const m = parseMediaType('Application/JSON ;\tCharset="utf\\-8" ; ;x=y;x=z');
  assert.equal(m?.essence, "application/json");
  assert.deepEqual([...m!.params], [["charset", "utf-8"], ["x", "y"]]);
  assert.equal(parseMediaType("application/json;")?.essence, "application/json");
  assert.equal(parseMediaType('text/plain; a="b;c"; d=e')?.params.get("a"), "b;c");
  for (
    const bad of [
      "",
      null,
      undefined,
      "application",
      "/json",
      "application/",
      "application/ json",
      "application /json",
      "application/json;charset",
      "application/json;charset=",
      'application/json; charset="utf-8',
      "application/json; charset=utf 8",
      "application/json, text/plain",
      "application/json x",
      "application/json; =x",
      "appli(cation/json",
    ]
  ) {
    assert.equal(parseMediaType(bad), undefined, String(bad));
  }
});

Deno.test("isJsonMediaType: application/json and the +json suffix, nothing malformed", () => {
  for (
    const ok of [
      "application/json",
      "APPLICATION/JSON",
      "application/json ; charset=utf-8",
      "application/json;",
      "application/vnd.v2+json",
      "application/problem+json; charset=utf-8",
    ]
  ) assert.ok(isJsonMediaType(ok), ok);
  for (
    const no of [
      "application/json;charset",
      "application/+json",
      "application/jsonx",
      "text/json",
      "text/plain",
      "application/vnd.v2+json5",
      undefined,
    ]
  ) assert.ok(!isJsonMediaType(no), String(no));
});

Deno.test("mediaTypeIs compares the essence of a well-formed type", () => {
  assert.ok(mediaTypeIs("Message/RFC822; x=y", "message/rfc822", "text/plain"));
  assert.ok(mediaTypeIs("text/plain;", "message/rfc822", "text/plain"));
  assert.ok(!mediaTypeIs("text/plain;charset", "text/plain"));
  assert.ok(!mediaTypeIs("application/vnd.openimmo+xml", "application/xml", "text/xml"));
  assert.ok(!mediaTypeIs(undefined, "text/plain"));
});
