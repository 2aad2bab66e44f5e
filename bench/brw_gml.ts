/**
 * Writes synthetic land-value zones as a WFS 2.0 GetFeature answer in the BRM 2.1 layout of Hessen, Niedersachsen
 * and Bremen (`boris:BR_BodenrichtwertZonal`, geometry in `adv:position`, ETRS89/UTM coordinates with
 * `srsName="urn:ogc:def:crs:EPSG::2583x"`), so that `bench:valuation` imports its zones the way an operator
 * imports a state's file. Written in chunks: the zones of one state are in memory, the text never is.
 */
import proj4 from "proj4";
import type { BrwZoneInput, Ring, ZoneGeometry } from "../db/brw_zones.ts";

/** The UTM zone of a state's official coordinates: 33 in the east (BE, BB, MV, SN), else 32. */
export function utmOf(state: string): "EPSG:25832" | "EPSG:25833" {
  return ["BE", "BB", "MV", "SN"].includes(state) ? "EPSG:25833" : "EPSG:25832";
}

const DEFS: Record<string, string> = {
  "EPSG:25832": "+proj=utm +zone=32 +ellps=GRS80 +towgs84=0,0,0,0,0,0,0 +units=m +no_defs +type=crs",
  "EPSG:25833": "+proj=utm +zone=33 +ellps=GRS80 +towgs84=0,0,0,0,0,0,0 +units=m +no_defs +type=crs",
};

function escape(s: string): string {
  return s.replaceAll("&", "&amp;").replaceAll("<", "&lt;").replaceAll(">", "&gt;");
}

/** Writes `zones` of `state` with Stichtag `stichtag` to `path`; returns the bytes written. */
export async function writeBrmGml(
  path: string,
  state: string,
  zones: readonly BrwZoneInput[],
  stichtag: string,
): Promise<number> {
  const crs = utmOf(state);
  const project = proj4("EPSG:4326", DEFS[crs]!);
  const ring = (r: Ring) =>
    r.map(([lng, lat]) => {
      const [x, y] = project.forward([lng, lat]);
      return `${x!.toFixed(2)} ${y!.toFixed(2)}`;
    }).join(" ");
  const polygon = (rings: Ring[]) =>
    `<gml:Polygon><gml:exterior><gml:LinearRing><gml:posList>${
      ring(rings[0]!)
    }</gml:posList></gml:LinearRing>` +
    `</gml:exterior>${
      rings.slice(1).map((h) =>
        `<gml:interior><gml:LinearRing><gml:posList>${ring(h)}</gml:posList></gml:LinearRing></gml:interior>`
      ).join("")
    }</gml:Polygon>`;
  const geometry = (g: ZoneGeometry) =>
    g.type === "Polygon"
      ? polygon(g.coordinates).replace(
        "<gml:Polygon>",
        `<gml:Polygon srsName="urn:ogc:def:crs:EPSG::${crs.slice(5)}">`,
      )
      : `<gml:MultiSurface srsName="urn:ogc:def:crs:EPSG::${crs.slice(5)}">${
        g.coordinates.map((p) => `<gml:surfaceMember>${polygon(p)}</gml:surfaceMember>`).join("")
      }</gml:MultiSurface>`;
  const file = await Deno.open(path, { write: true, create: true, truncate: true });
  const enc = new TextEncoder();
  let bytes = 0;
  const write = async (text: string) => {
    const data = enc.encode(text);
    bytes += data.length;
    let done = 0;
    while (done < data.length) done += await file.write(data.subarray(done));
  };
  try {
    await write(
      '<?xml version="1.0" encoding="UTF-8"?>\n<!-- SYNTHETISCHE TESTDATEN: bench/valuation.ts -->\n' +
        '<wfs:FeatureCollection xmlns:wfs="http://www.opengis.net/wfs/2.0" xmlns:gml="http://www.opengis.net/gml/3.2" ' +
        'xmlns:boris="http://www.adv-online.de/namespaces/adv/brm/2.1" xmlns:adv="http://www.adv-online.de/namespaces/adv/gid/7.1" ' +
        `numberMatched="${zones.length}" numberReturned="${zones.length}">\n`,
    );
    let chunk = "";
    for (const [i, z] of zones.entries()) {
      const key = z.municipality_key ?? "00000000";
      chunk += `<wfs:member><boris:BR_BodenrichtwertZonal gml:id="BENCH${state}${i}">` +
        `<boris:gemeinde><boris:BR_Gemeinde><boris:kennzeichen><boris:BR_Gemeindekennzeichen>` +
        `<boris:land>${key.slice(0, 2)}</boris:land><boris:regierungsbezirk>${
          key.slice(2, 3)
        }</boris:regierungsbezirk>` +
        `<boris:kreis>${key.slice(3, 5)}</boris:kreis><boris:gemeinde>${key.slice(5, 8)}</boris:gemeinde>` +
        `</boris:BR_Gemeindekennzeichen></boris:kennzeichen><boris:name>${
          escape(z.municipality_name ?? "")
        }</boris:name>` +
        `</boris:BR_Gemeinde></boris:gemeinde>` +
        `<boris:bodenrichtwertNummer>${escape(z.zone_number ?? String(i))}</boris:bodenrichtwertNummer>` +
        (z.zone_name
          ? `<boris:bodenrichtwertzoneName>${escape(z.zone_name)}</boris:bodenrichtwertzoneName>`
          : "") +
        `<boris:bodenrichtwert uom="EUR/m^2">${z.brw}</boris:bodenrichtwert><boris:stichtag>${stichtag}</boris:stichtag>` +
        `<boris:entwicklungszustand>${z.entwicklung ?? "B"}</boris:entwicklungszustand>` +
        `<boris:nutzung><boris:BR_Nutzung><boris:art>${
          z.nutzung ?? "W"
        }</boris:art></boris:BR_Nutzung></boris:nutzung>` +
        (z.wgfz !== null
          ? `<boris:wertrelevanteGeschossflaechenzahl><boris:BR_WertOderWertespanneDezimalzahl><boris:wert>${z.wgfz}` +
            `</boris:wert></boris:BR_WertOderWertespanneDezimalzahl></boris:wertrelevanteGeschossflaechenzahl>`
          : "") +
        (z.gfz !== null
          ? `<boris:geschossflaechenzahl><boris:BR_WertOderWertespanneDezimalzahl><boris:wert>${z.gfz}</boris:wert>` +
            `</boris:BR_WertOderWertespanneDezimalzahl></boris:geschossflaechenzahl>`
          : "") +
        `<adv:position>${geometry(z.geometry)}</adv:position></boris:BR_BodenrichtwertZonal></wfs:member>\n`;
      if (chunk.length > 1 << 20) {
        await write(chunk);
        chunk = "";
      }
    }
    await write(`${chunk}</wfs:FeatureCollection>\n`);
    return bytes;
  } finally {
    file.close();
  }
}
