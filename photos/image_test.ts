/**
 * The image rules of `photos/image.ts` on real files: type by content, the byte and pixel limits (the pixel limit
 * read from crafted headers before decoding), polyglots, truncated and empty files, metadata stripped (EXIF with
 * GPS, XMP, comments), EXIF orientation applied, the variants' sizes and their content addresses.
 */
import assert from "node:assert/strict";
import sharp from "sharp";
import { sha256Hex } from "../crypto.ts";
import {
  checkImage,
  derivePhoto,
  FULL_MAX,
  PHOTO_MAX_BYTES,
  PHOTO_MAX_PIXELS,
  type PhotoResult,
  sniffType,
} from "./image.ts";
import {
  concat,
  contains,
  GPS_MARK,
  jpegBombHeader,
  jpegWithMetadata,
  pngBombHeader,
  testImage,
  XMP_MARK,
  zipTail,
} from "../tests/photo_fixtures.ts";

const ascii = (s: string) => new TextEncoder().encode(s);

function refusal(r: PhotoResult): string {
  assert.equal(r.ok, false, "should be refused");
  return r.ok ? "" : r.refusal;
}

function accepted(r: PhotoResult) {
  if (!r.ok) throw new Error(`refused: ${r.refusal}`);
  return r.photo;
}

Deno.test("the type is told by content: JPEG, PNG and WebP are accepted, everything else is not", async () => {
  for (const format of ["jpeg", "png", "webp"] as const) {
    const bytes = await testImage(40, 30, format);
    assert.equal(sniffType(bytes), format);
    const c = await checkImage(bytes);
    assert.deepEqual(c, { ok: true, info: { type: format, width: 40, height: 30 } });
  }
  const gif = ascii("GIF89a\x01\x00\x01\x00\x00\x00\x00;");
  const pdf = ascii("%PDF-1.7\n1 0 obj <<>> endobj\n%%EOF");
  const html = ascii("<!doctype html><img src=x onerror=alert(1)>");
  const svg = ascii('<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>');
  const tiff = new Uint8Array(await sharp(await testImage(8, 8)).tiff().toBuffer());
  const avif = new Uint8Array(await sharp(await testImage(8, 8)).heif({ compression: "av1" }).toBuffer());
  for (const bytes of [gif, pdf, html, svg, tiff, avif, zipTail()]) {
    assert.equal(refusal(await derivePhoto(bytes)), "unsupported_type");
  }
  // A ZIP or HTML document with an image inside is still a ZIP or HTML document.
  const jpeg = await testImage(20, 20);
  assert.equal(refusal(await derivePhoto(concat(zipTail(), jpeg))), "unsupported_type");
  assert.equal(refusal(await derivePhoto(concat(ascii("<html>"), jpeg))), "unsupported_type");
});

Deno.test("empty, oversized, truncated and corrupt files are refused with their reason", async () => {
  assert.equal(refusal(await derivePhoto(new Uint8Array(0))), "empty");
  const big = new Uint8Array(PHOTO_MAX_BYTES + 1);
  big.set([0xff, 0xd8, 0xff, 0xe0]);
  assert.equal(refusal(await derivePhoto(big)), "too_large");
  const jpeg = await testImage(600, 400);
  assert.equal(refusal(await derivePhoto(jpeg.subarray(0, Math.floor(jpeg.length * 0.6)))), "unreadable");
  assert.equal(refusal(await derivePhoto(jpeg.subarray(0, 3))), "unreadable");
  const png = await testImage(300, 200, "png");
  assert.equal(refusal(await derivePhoto(png.subarray(0, Math.floor(png.length / 2)))), "unreadable");
  const webp = await testImage(300, 200, "webp");
  assert.equal(refusal(await derivePhoto(webp.subarray(0, Math.floor(webp.length / 2)))), "unreadable");
  // A JPEG start followed by an HTML page: the decoder refuses it.
  const fake = concat(
    new Uint8Array([0xff, 0xd8, 0xff, 0xe0]),
    ascii("<html><script>alert(1)</script></html>"),
  );
  assert.equal(refusal(await derivePhoto(fake)), "unreadable");
  // Scrambled entropy-coded data.
  const scrambled = new Uint8Array(jpeg);
  for (let i = Math.floor(scrambled.length / 3); i < scrambled.length - 2; i += 7) scrambled[i] = 0xff;
  assert.equal(refusal(await derivePhoto(scrambled)), "unreadable");
});

Deno.test("a header claiming more than the pixel limit is refused before any pixel is decoded", async () => {
  // 20,000 × 20,000 RGB would be 1.2 GB decoded; the files are a few hundred bytes to a few KB.
  const png = pngBombHeader(20_000, 20_000);
  assert.ok(png.length < 100_000);
  assert.equal(refusal(await derivePhoto(png)), "too_many_pixels");
  const jpeg = await jpegBombHeader(60_000, 60_000);
  assert.equal(refusal(await derivePhoto(jpeg)), "too_many_pixels");
  // Just over and just under the limit, by header.
  const side = Math.ceil(Math.sqrt(PHOTO_MAX_PIXELS));
  assert.equal((await checkImage(pngBombHeader(side, side))).ok, false);
  const under = await checkImage(pngBombHeader(side - 10, side - 10));
  assert.deepEqual(under, { ok: true, info: { type: "png", width: side - 10, height: side - 10 } });
});

Deno.test("a polyglot (a real JPEG with a ZIP or HTML appended) keeps only its pixels", async () => {
  const jpeg = await testImage(500, 300);
  for (const tail of [zipTail(), ascii("<html><script>alert(1)</script></html>"), ascii("%PDF-1.4\n%%EOF")]) {
    const photo = accepted(await derivePhoto(concat(jpeg, tail)));
    for (const v of photo.variants) {
      assert.ok(!contains(v.bytes, "PK\x03\x04"), "no ZIP part");
      assert.ok(!contains(v.bytes, "<script>"), "no HTML part");
      assert.ok(!contains(v.bytes, "%PDF"), "no PDF part");
    }
  }
});

Deno.test("EXIF with GPS, XMP and comments are removed; the EXIF orientation is applied first", async () => {
  // Stored 400 × 200 with orientation 6 (rotate 90° clockwise to view): shown 200 × 400.
  const input = await jpegWithMetadata(400, 200, 6);
  const meta = await sharp(input).metadata();
  assert.equal(meta.orientation, 6, "the fixture's EXIF is readable");
  assert.ok(meta.exif && contains(meta.exif, GPS_MARK), "the fixture carries the EXIF block");
  assert.ok(meta.xmp, "the fixture carries XMP");
  assert.ok(contains(input, XMP_MARK));
  const photo = accepted(await derivePhoto(input));
  for (const v of photo.variants) {
    const m = await sharp(v.bytes).metadata();
    assert.equal(m.exif, undefined, `${v.mime} ${v.width}: no EXIF`);
    assert.equal(m.xmp, undefined, `${v.mime} ${v.width}: no XMP`);
    assert.equal(m.icc, undefined, `${v.mime} ${v.width}: no ICC profile (pixels are sRGB)`);
    assert.equal(m.orientation, undefined);
    for (const mark of ["Exif", GPS_MARK, XMP_MARK, "http://ns.adobe.com"]) {
      assert.ok(!contains(v.bytes, mark), `${v.mime} ${v.width}: no ${mark}`);
    }
  }
  const full = photo.variants.filter((v) => v.mime === "image/webp").at(-1)!;
  assert.deepEqual([full.width, full.height], [200, 400], "upright");
});

Deno.test("variants: WebP at 320, 640, 1280 and the full size capped at 2048, one JPEG; addressed by hash", async () => {
  const input = await testImage(2400, 1600);
  const photo = accepted(await derivePhoto(input));
  const sizes = photo.variants.map((v) => `${v.mime} ${v.width}x${v.height}`);
  assert.deepEqual(sizes, [
    "image/webp 320x213",
    "image/webp 640x427",
    "image/webp 1280x853",
    "image/webp 2048x1365",
    "image/jpeg 1280x853",
  ]);
  for (const v of photo.variants) {
    assert.equal(v.sha256, await sha256Hex(v.bytes));
    const m = await sharp(v.bytes).metadata();
    assert.equal(m.format, v.mime === "image/webp" ? "webp" : "jpeg");
    assert.deepEqual([m.width, m.height], [v.width, v.height]);
  }
  assert.equal(photo.source.type, "jpeg");
  assert.deepEqual([photo.source.width, photo.source.height], [2400, 1600]);

  // Portrait: the longest side is capped; narrow images are never enlarged.
  const portrait = accepted(await derivePhoto(await testImage(1100, 2200, "png")));
  assert.deepEqual(portrait.variants.at(-2)!.height, FULL_MAX);
  assert.deepEqual(portrait.variants.map((v) => v.width), [320, 640, 1024, 1024]);
  const small = accepted(await derivePhoto(await testImage(200, 100, "webp")));
  assert.deepEqual(small.variants.map((v) => `${v.mime} ${v.width}x${v.height}`), [
    "image/webp 200x100",
    "image/jpeg 200x100",
  ]);

  // The same upload gives the same bytes, so the same addresses.
  const again = accepted(await derivePhoto(new Uint8Array(input)));
  assert.deepEqual(again.variants.map((v) => v.sha256), photo.variants.map((v) => v.sha256));
});
