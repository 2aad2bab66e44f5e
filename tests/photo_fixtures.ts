/**
 * Images made in the tests: real JPEG, PNG and WebP files encoded by sharp, a JPEG with EXIF (orientation and a
 * GPS position), XMP and a comment written into it byte by byte, headers crafted to claim huge pixel counts, and
 * hostile files (other types, polyglots, truncated data).
 */
import sharp from "sharp";
import { zlibSync } from "fflate";

const ascii = (s: string): Uint8Array => new TextEncoder().encode(s);

/** `parts` joined into one byte array. */
export function concat(...parts: Uint8Array[]): Uint8Array<ArrayBuffer> {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

/** Whether `needle` occurs in `hay`. */
export function contains(hay: Uint8Array, needle: string | Uint8Array): boolean {
  const n = typeof needle === "string" ? ascii(needle) : needle;
  outer: for (let i = 0; i + n.length <= hay.length; i++) {
    for (let j = 0; j < n.length; j++) if (hay[i + j] !== n[j]) continue outer;
    return true;
  }
  return false;
}

/** A photo-like test image (gradients and noise) of `width` × `height` in `format`. */
export async function testImage(
  width: number,
  height: number,
  format: "jpeg" | "png" | "webp" = "jpeg",
  seed = 1,
): Promise<Uint8Array<ArrayBuffer>> {
  const raw = new Uint8Array(width * height * 3);
  let s = seed;
  for (let i = 0; i < raw.length; i += 3) {
    s = (s * 1103515245 + 12345) & 0x7fffffff;
    const x = (i / 3) % width, y = Math.floor(i / 3 / width);
    const n = (s % 32) - 16;
    raw[i] = 100 + 80 * Math.sin(x / 40) + n;
    raw[i + 1] = 120 + 60 * Math.cos(y / 30) + n;
    raw[i + 2] = 90 + 50 * Math.sin((x + y) / 50) + n;
  }
  const img = sharp(raw, { raw: { width, height, channels: 3 } });
  const out = format === "jpeg" ? img.jpeg({ quality: 85 }) : format === "png" ? img.png() : img.webp();
  return new Uint8Array(await out.toBuffer());
}

/** The position that the EXIF of {@linkcode jpegWithMetadata} carries (52° 31' 12.34" N, 13° 24' 56.78" E). */
export const GPS_MARK = "GPS-TEST-MARK";
/** A text the XMP packet and the comment carry. */
export const XMP_MARK = "XMP-SECRET-LOCATION";

function u16(n: number): number[] {
  return [n & 0xff, (n >> 8) & 0xff];
}
function u32(n: number): number[] {
  return [n & 0xff, (n >> 8) & 0xff, (n >> 16) & 0xff, (n >>> 24) & 0xff];
}

/**
 * A little-endian TIFF block for an EXIF APP1: IFD0 with Orientation = `orientation`, Make (ASCII
 * {@linkcode GPS_MARK}) and a GPS IFD pointer; the GPS IFD with latitude N 52/1 31/1 1234/100 and longitude
 * E 13/1 24/1 5678/100.
 */
function exifTiff(orientation: number): Uint8Array {
  const ifd0At = 8, ifd0Entries = 3;
  const ifd0Size = 2 + ifd0Entries * 12 + 4;
  const makeAt = ifd0At + ifd0Size;
  const make = [...ascii(GPS_MARK), 0];
  const gpsAt = makeAt + make.length + (make.length % 2);
  const gpsEntries = 4;
  const gpsSize = 2 + gpsEntries * 12 + 4;
  const latAt = gpsAt + gpsSize, lonAt = latAt + 24;
  const entry = (tag: number, type: number, count: number, value: number[]) => [
    ...u16(tag),
    ...u16(type),
    ...u32(count),
    ...value,
    ...new Array(4 - value.length).fill(0),
  ];
  const rational = (n: number, d: number) => [...u32(n), ...u32(d)];
  const bytes = [
    ...ascii("II"),
    ...u16(42),
    ...u32(ifd0At),
    ...u16(ifd0Entries),
    ...entry(0x010f, 2, make.length, u32(makeAt)),
    ...entry(0x0112, 3, 1, u16(orientation)),
    ...entry(0x8825, 4, 1, u32(gpsAt)),
    ...u32(0),
    ...make,
    ...(make.length % 2 ? [0] : []),
    ...u16(gpsEntries),
    ...entry(0x0001, 2, 2, [...ascii("N"), 0]),
    ...entry(0x0002, 5, 3, u32(latAt)),
    ...entry(0x0003, 2, 2, [...ascii("E"), 0]),
    ...entry(0x0004, 5, 3, u32(lonAt)),
    ...u32(0),
    ...rational(52, 1),
    ...rational(31, 1),
    ...rational(1234, 100),
    ...rational(13, 1),
    ...rational(24, 1),
    ...rational(5678, 100),
  ];
  return new Uint8Array(bytes);
}

/** A JPEG marker segment `marker` with `payload` (length field included). */
function segment(marker: number, payload: Uint8Array): Uint8Array {
  const len = payload.length + 2;
  return concat(new Uint8Array([0xff, marker, len >> 8, len & 0xff]), payload);
}

/**
 * A JPEG of `width` × `height` (stored; shown rotated by EXIF `orientation`) carrying EXIF with a GPS position,
 * an XMP packet and a comment, all inserted right after SOI.
 */
export async function jpegWithMetadata(width: number, height: number, orientation = 6): Promise<Uint8Array> {
  const plain = await testImage(width, height, "jpeg");
  const exif = segment(0xe1, concat(ascii("Exif\0\0"), exifTiff(orientation)));
  const xmp = segment(
    0xe1,
    ascii(
      `http://ns.adobe.com/xap/1.0/\0<x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF ` +
        `xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#"><rdf:Description xmlns:exif=` +
        `"http://ns.adobe.com/exif/1.0/" exif:GPSLatitude="52,31.2N">${XMP_MARK}</rdf:Description>` +
        `</rdf:RDF></x:xmpmeta>`,
    ),
  );
  const comment = segment(0xfe, ascii(`comment ${XMP_MARK}`));
  return concat(plain.subarray(0, 2), exif, xmp, comment, plain.subarray(2));
}

const CRC_TABLE = Array.from({ length: 256 }, (_, n) => {
  let c = n;
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c >>> 0;
});

function crc32(b: Uint8Array): number {
  let c = 0xffffffff;
  for (const x of b) c = CRC_TABLE[(c ^ x) & 0xff]! ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}

function pngChunk(type: string, data: Uint8Array): Uint8Array {
  const body = concat(ascii(type), data);
  const be = (n: number) => new Uint8Array([n >>> 24, (n >> 16) & 0xff, (n >> 8) & 0xff, n & 0xff]);
  return concat(be(data.length), body, be(crc32(body)));
}

/**
 * A PNG whose header claims `width` × `height` RGB pixels while its data is one tiny compressed row: decoding it
 * would need width × height × 3 bytes (a decompression bomb's header).
 */
export function pngBombHeader(width: number, height: number): Uint8Array<ArrayBuffer> {
  const be = (n: number) => [n >>> 24, (n >> 16) & 0xff, (n >> 8) & 0xff, n & 0xff];
  const ihdr = new Uint8Array([...be(width), ...be(height), 8, 2, 0, 0, 0]);
  const idat = zlibSync(new Uint8Array(1 + width * 3));
  return concat(
    new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    pngChunk("IHDR", ihdr),
    pngChunk("IDAT", idat),
    pngChunk("IEND", new Uint8Array(0)),
  );
}

/** A real JPEG whose SOF header is rewritten to claim `width` × `height` pixels. */
export async function jpegBombHeader(width: number, height: number): Promise<Uint8Array<ArrayBuffer>> {
  const b = new Uint8Array(await testImage(64, 64, "jpeg"));
  for (let i = 2; i + 9 < b.length; i++) {
    if (b[i] === 0xff && (b[i + 1] === 0xc0 || b[i + 1] === 0xc2)) {
      b[i + 5] = height >> 8;
      b[i + 6] = height & 0xff;
      b[i + 7] = width >> 8;
      b[i + 8] = width & 0xff;
      return b;
    }
  }
  throw new Error("no SOF marker");
}

/** A minimal ZIP file (one stored entry `evil.html`), as appended by a polyglot. */
export function zipTail(): Uint8Array {
  const name = ascii("evil.html");
  const data = ascii("<script>alert(1)</script>");
  const le = (n: number, size: 2 | 4) => new Uint8Array(size === 2 ? u16(n) : u32(n));
  const local = concat(
    new Uint8Array([0x50, 0x4b, 0x03, 0x04]),
    le(10, 2),
    le(0, 2),
    le(0, 2),
    le(0, 4),
    le(crc32(data), 4),
    le(data.length, 4),
    le(data.length, 4),
    le(name.length, 2),
    le(0, 2),
    name,
    data,
  );
  return local;
}
