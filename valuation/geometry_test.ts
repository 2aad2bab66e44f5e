import assert from "node:assert/strict";
import {
  bboxOf,
  containsPoint,
  orient2d,
  parseCrs,
  parseWkt,
  type Ring,
  toZoneGeometry,
  type ZoneGeometry,
} from "./geometry.ts";
import { positionToWgs84, toWgs84 } from "./reproject.ts";

const square = (
  x0: number,
  y0: number,
  x1: number,
  y1: number,
): Ring => [[x0, y0], [x1, y0], [x1, y1], [x0, y1], [
  x0,
  y0,
]];
const poly = (...rings: Ring[]): ZoneGeometry => ({ type: "Polygon", coordinates: rings });

/** A 10×10 square with a 4×4 hole in the middle. */
const WITH_HOLE = poly(square(0, 0, 10, 10), square(3, 3, 7, 7).reverse());

Deno.test("polygon with a hole: inside, in the hole, outside", () => {
  assert.equal(containsPoint(WITH_HOLE, 1, 1), true);
  assert.equal(containsPoint(WITH_HOLE, 8, 5), true);
  assert.equal(containsPoint(WITH_HOLE, 5, 5), false, "strictly inside the hole");
  assert.equal(containsPoint(WITH_HOLE, 4, 6.5), false);
  assert.equal(containsPoint(WITH_HOLE, -1, 5), false);
  assert.equal(containsPoint(WITH_HOLE, 11, 5), false);
  assert.equal(containsPoint(WITH_HOLE, 5, 10.000000001), false);
});

Deno.test("points on edges and vertices count as inside, also on the hole's ring", () => {
  for (const [x, y] of [[0, 0], [10, 0], [10, 10], [0, 10]]) {
    assert.equal(containsPoint(WITH_HOLE, x!, y!), true);
  }
  assert.equal(containsPoint(WITH_HOLE, 5, 0), true, "horizontal bottom edge");
  assert.equal(containsPoint(WITH_HOLE, 5, 10), true, "horizontal top edge");
  assert.equal(containsPoint(WITH_HOLE, 0, 5), true, "vertical left edge");
  assert.equal(containsPoint(WITH_HOLE, 10, 2.5), true, "vertical right edge");
  assert.equal(containsPoint(WITH_HOLE, 3, 3), true, "hole vertex");
  assert.equal(containsPoint(WITH_HOLE, 5, 3), true, "hole's horizontal edge");
  assert.equal(containsPoint(WITH_HOLE, 7, 4), true, "hole's vertical edge");
  assert.equal(containsPoint(WITH_HOLE, 10.5, 0), false, "on the line of an edge but beyond it");
});

Deno.test("slanted edges: exactly on, and one ulp off", () => {
  const tri = poly([[0, 0], [3, 9], [6, 0], [0, 0]]);
  assert.equal(containsPoint(tri, 1, 3), true, "on the edge (0,0)→(3,9)");
  assert.equal(containsPoint(tri, 2, 6), true);
  assert.equal(containsPoint(tri, 3, 9), true, "apex");
  assert.equal(containsPoint(tri, 1 - 2 ** -52, 3), false, "one ulp left of the edge");
  assert.equal(containsPoint(tri, 1 + 2 ** -52, 3), true, "one ulp right of the edge");
  const diag = poly([[0.1, 0.1], [0.3, 0.3], [0.3, 0.1], [0.1, 0.1]]);
  assert.equal(containsPoint(diag, 0.2, 0.2), true, "on the diagonal y = x");
});

Deno.test("the ray through vertices and along horizontal edges does not miscount", () => {
  // A U shape: the horizontal ray from y = 5 runs along the notch's bottom edge and through two vertices.
  const u = poly([[0, 0], [10, 0], [10, 10], [6, 10], [6, 5], [3, 5], [3, 10], [0, 10], [0, 0]]);
  assert.equal(containsPoint(u, 1, 5), true);
  assert.equal(containsPoint(u, 4, 5), true, "on the notch's bottom edge");
  assert.equal(containsPoint(u, 3, 5), true, "notch vertex");
  assert.equal(containsPoint(u, 8, 5), true);
  assert.equal(containsPoint(u, 4.5, 7), false, "inside the notch");
  assert.equal(containsPoint(u, -1, 5), false);
  assert.equal(containsPoint(u, 11, 5), false);
  assert.equal(containsPoint(u, 4.5, 10), false, "on the line of the top edges, in the notch's opening");
  // A diamond: the ray from (−1, 5) passes exactly through the left and right vertices.
  const diamond = poly([[0, 5], [5, 0], [10, 5], [5, 10], [0, 5]]);
  assert.equal(containsPoint(diamond, 2, 5), true);
  assert.equal(containsPoint(diamond, -1, 5), false);
  assert.equal(containsPoint(diamond, 11, 5), false);
  assert.equal(containsPoint(diamond, 5, 10), true, "top vertex");
  assert.equal(containsPoint(diamond, 2.5, 7.5), true, "mid-edge");
});

Deno.test("ring orientation does not matter and an open ring is closed", () => {
  const ccw = poly(square(0, 0, 4, 4));
  const cw = poly(square(0, 0, 4, 4).reverse());
  for (const [x, y, want] of [[2, 2, true], [4, 2, true], [5, 2, false], [2, 0, true]] as const) {
    assert.equal(containsPoint(ccw, x, y), want);
    assert.equal(containsPoint(cw, x, y), want);
  }
  const open = toZoneGeometry({ type: "Polygon", coordinates: [[[0, 0], [4, 0], [4, 4], [0, 4]]] });
  assert.deepEqual(open.coordinates[0], square(0, 0, 4, 4));
  assert.equal(containsPoint(open, 0, 2), true, "closing edge (0,4)→(0,0)");
});

Deno.test("multipolygon: each part, the gap between, a hole in one part", () => {
  const m: ZoneGeometry = {
    type: "MultiPolygon",
    coordinates: [[square(0, 0, 4, 4), square(1, 1, 2, 2)], [square(6, 0, 8, 2)]],
  };
  assert.equal(containsPoint(m, 3, 3), true);
  assert.equal(containsPoint(m, 7, 1), true);
  assert.equal(containsPoint(m, 8, 2), true, "vertex of the second part");
  assert.equal(containsPoint(m, 5, 1), false, "between the parts");
  assert.equal(containsPoint(m, 1.5, 1.5), false, "in the hole of the first part");
  assert.equal(containsPoint(m, 1, 1.5), true, "on the hole's ring");
  assert.deepEqual(bboxOf(m), { minX: 0, minY: 0, maxX: 8, maxY: 4 });
});

Deno.test("overlapping zones: a point in the overlap lies in both, on a shared edge in both", () => {
  const a = poly(square(0, 0, 6, 6));
  const b = poly(square(4, 4, 10, 10));
  const c = poly(square(6, 0, 10, 4));
  assert.deepEqual([containsPoint(a, 5, 5), containsPoint(b, 5, 5)], [true, true]);
  assert.deepEqual([containsPoint(a, 2, 2), containsPoint(b, 2, 2)], [true, false]);
  assert.deepEqual([containsPoint(a, 6, 2), containsPoint(c, 6, 2)], [true, true], "shared edge x = 6");
});

Deno.test("orient2d is exact where floating point is not (the ulp grid near the line y = x)", () => {
  // Points p = (0.5 + i·u, 0.5 + j·u) against the line (12,12)→(24,24): the true sign is sign(j − i).
  const u = 2 ** -53;
  let naiveWrong = 0;
  for (let i = 0; i < 64; i++) {
    for (let j = 0; j < 64; j++) {
      const px = 0.5 + i * u;
      const py = 0.5 + j * u;
      assert.equal(Math.sign(orient2d(12, 12, 24, 24, px, py)), Math.sign(j - i), `i=${i} j=${j}`);
      const naive = (12 - px) * (24 - py) - (12 - py) * (24 - px);
      if (Math.sign(naive) !== Math.sign(j - i)) naiveWrong++;
    }
  }
  assert.ok(naiveWrong > 0, "the test grid does defeat the naive formula");
});

Deno.test("WKT: polygon with hole, multipolygon, EWKT, Z ordinates, lower case", () => {
  assert.deepEqual(parseWkt("POLYGON((0 0, 10 0, 10 10, 0 10, 0 0), (3 3, 3 7, 7 7, 7 3, 3 3))"), WITH_HOLE);
  const m = parseWkt("MULTIPOLYGON (((0 0,4 0,4 4,0 4,0 0)),((6 0,8 0,8 2,6 2,6 0)))");
  assert.equal(m.type, "MultiPolygon");
  assert.equal(m.coordinates.length, 2);
  assert.deepEqual(parseWkt("SRID=25833;POLYGON((1 2,3 2,3 4,1 2))").coordinates, [[[1, 2], [3, 2], [3, 4], [
    1,
    2,
  ]]]);
  assert.deepEqual(parseWkt("polygon z ((1 2 5,3 2 5,3 4 5,1 2 5))").coordinates, [[[1, 2], [3, 2], [3, 4], [
    1,
    2,
  ]]]);
  assert.deepEqual(
    parseWkt("POLYGON((367000.5 5806000.25, 369000 5806000, 369000 5808000, 367000.5 5806000.25))")
      .coordinates[0]![0],
    [367000.5, 5806000.25],
  );
});

Deno.test("WKT errors name the problem", () => {
  const cases: Array<[string, RegExp]> = [
    ["POLYGON((365000 5805000, 365500 5805000, 365500", /ends before the geometry is closed/],
    ["POINT(1 2)", /not WKT POLYGON or MULTIPOLYGON/],
    ["POLYGON EMPTY", /EMPTY/],
    ["POLYGON((0 0, 1 0, 0 0))", /fewer than three corners/],
    ["POLYGON((0 0, 1 x, 1 1, 0 0))", /"x" is not a number/],
    ["MULTIPOLYGON((0 0, 1 0, 1 1, 0 0))", /nesting/],
    ["POLYGON((0 0, 1 0, 1 1, 0 0)) extra", /'\(' expected|after the WKT/],
  ];
  for (const [wkt, re] of cases) assert.throws(() => parseWkt(wkt), re, wkt);
});

Deno.test("GeoJSON geometry checks", () => {
  assert.throws(() => toZoneGeometry(null), /missing/);
  assert.throws(() => toZoneGeometry({ type: "Point", coordinates: [1, 2] }), /not Polygon or MultiPolygon/);
  assert.throws(
    () => toZoneGeometry({ type: "Polygon", coordinates: [[[0, 0], [1, "a"], [1, 1]]] }),
    /finite/,
  );
  assert.throws(() => toZoneGeometry({ type: "MultiPolygon", coordinates: [] }), /no polygons/);
});

Deno.test("both UTM zones convert to WGS84 as PROJ 9 (cs2cs) does", () => {
  // Reference values: `cs2cs -f %.10f EPSG:2583x EPSG:4326` (PROJ 9.1.1).
  const close = ([lng, lat]: [number, number], want: [number, number]) => {
    assert.ok(Math.abs(lng - want[0]) < 2e-8 && Math.abs(lat - want[1]) < 2e-8, `${lng},${lat} vs ${want}`);
  };
  close(positionToWgs84([368000, 5807000], "EPSG:25833"), [13.0599025184, 52.3973052782]); // Potsdam
  close(positionToWgs84([356500, 5645500], "EPSG:25832"), [6.9573570255, 50.9432429219]); // Köln
  // 12° E, 51° N lies in both zones' range: the two zone coordinates give the same place.
  close(positionToWgs84([710488.857, 5654109.1786], "EPSG:25832"), [12, 51]);
  close(positionToWgs84([289511.143, 5654109.1786], "EPSG:25833"), [12, 51]);
  assert.deepEqual(
    positionToWgs84([13.123456789, 52.5], "EPSG:4326"),
    [13.12345679, 52.5],
    "WGS84 is only rounded",
  );
  const g = toWgs84(poly(square(367000, 5806000, 369000, 5808000)), "EPSG:25833");
  close(g.coordinates[0]![0] as [number, number], [13.04561114, 52.38807811]);
});

Deno.test("CRS names", () => {
  assert.equal(parseCrs("EPSG:25832"), "EPSG:25832");
  assert.equal(parseCrs("urn:ogc:def:crs:EPSG::25833"), "EPSG:25833");
  assert.equal(parseCrs("http://www.opengis.net/def/crs/EPSG/0/4326"), "EPSG:4326");
  assert.equal(parseCrs("urn:ogc:def:crs:OGC:1.3:CRS84"), "EPSG:4326");
  assert.equal(parseCrs("25833"), "EPSG:25833");
  assert.equal(parseCrs("EPSG:31467"), undefined, "Gauss-Krüger is not supported");
});
