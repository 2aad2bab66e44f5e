/**
 * Features of a WFS GetFeature answer (WFS 2.0 `wfs:member`, WFS 1.x `gml:featureMember(s)`, also nested
 * `wfs:FeatureCollection`s), read with the `saxes` streaming parser: memory holds one feature at a time, never
 * the document. Each child of a member is a feature: its `gml:id`, its type (local name), its attributes by path
 * (`feature.ts`) and its first polygon geometry (`gml_geometry.ts`). A code-list reference without text
 * (`xlink:href=".../1100"`) counts as the reference's last segment; `xsi:nil` as null.
 *
 * A syntax error fails with the parser's message and line; a document that ends before its root element closes
 * is `truncated`; an OWS exception report is `malformed` with its text.
 */
import { SaxesParser, type SaxesTagNS } from "saxes";
import { BrwImportError, fail } from "../brw_errors.ts";
import {
  type Attributes,
  type Scalar,
  setAttribute,
  type SourceFeature,
  type SourceGeometry,
} from "./feature.ts";
import { GML_NAMESPACES, GmlGeometryBuilder, isGeometryRoot } from "./gml_geometry.ts";

const XLINK = "http://www.w3.org/1999/xlink";
const XSI = "http://www.w3.org/2001/XMLSchema-instance";
const MEMBER_CONTAINERS = new Set(["member", "featureMember", "featureMembers"]);

/** An open feature being read. */
interface OpenFeature {
  feature: SourceFeature;
  depth: number;
  /** Property path below the feature (local names), for attribute keys. */
  path: string[];
  /** Whether each open element below the feature has element children. */
  hasChildren: boolean[];
  text: string;
  geometry: GmlGeometryBuilder | undefined;
  geometryDepth: number;
  found: SourceGeometry | undefined;
}

/** Streams WFS features out of text chunks. */
class XmlFeatureReader {
  readonly #parser = new SaxesParser({ xmlns: true, position: true });
  readonly #queue: SourceFeature[] = [];
  #error: BrwImportError | undefined;
  #depth = 0;
  #rootClosed = false;
  #rootSeen = false;
  #exception = false;
  #exceptionText = "";
  /** Depths of the open member containers. */
  readonly #containers: number[] = [];
  #open: OpenFeature | undefined;
  #index = 0;

  constructor() {
    const p = this.#parser;
    p.on("error", (e) => {
      this.#error ??= new BrwImportError({ code: "malformed", detail: e.message }, { line: p.line });
    });
    p.on("opentag", (t) => this.#openTag(t as SaxesTagNS));
    p.on("text", (t) => this.#text(t));
    p.on("cdata", (t) => this.#text(t));
    p.on("closetag", (t) => this.#closeTag(t as SaxesTagNS));
  }

  /** Parses a chunk; throws the first error. */
  write(chunk: string): void {
    this.#parser.write(chunk);
    this.#throwIfFailed();
  }

  /** Ends the document; throws when it is cut off, broken or an exception report. */
  close(): void {
    if (!this.#rootClosed && this.#error === undefined) {
      if (!this.#rootSeen) fail({ code: "unknown_layout", start: "an XML document without elements" });
      fail({ code: "truncated" }, { line: this.#parser.line, feature: this.#index });
    }
    this.#parser.close();
    this.#throwIfFailed();
    if (this.#exception) {
      fail({
        code: "malformed",
        detail: `a WFS exception report: ${this.#exceptionText.trim().slice(0, 300)}`,
      });
    }
  }

  /** The features completed so far. */
  *drain(): Generator<SourceFeature> {
    while (this.#queue.length > 0) yield this.#queue.shift()!;
  }

  #throwIfFailed(): void {
    if (this.#error) throw this.#error;
  }

  #openTag(t: SaxesTagNS): void {
    this.#depth++;
    if (this.#depth === 1) {
      this.#rootSeen = true;
      this.#exception = t.local === "ExceptionReport" || t.local === "ServiceExceptionReport";
    }
    const open = this.#open;
    if (open) return this.#openInFeature(open, t);
    const parentIsContainer = this.#containers.at(-1) === this.#depth - 1;
    if (MEMBER_CONTAINERS.has(t.local)) this.#containers.push(this.#depth);
    else if (parentIsContainer && t.local !== "FeatureCollection") this.#startFeature(t);
  }

  #startFeature(t: SaxesTagNS): void {
    const id = attr(t, "id");
    const feature: SourceFeature = {
      index: this.#index++,
      line: this.#parser.line,
      type: t.local,
      attributes: new Map(),
      geometry: undefined,
    };
    if (id !== undefined) feature.id = id;
    this.#open = {
      feature,
      depth: this.#depth,
      path: [],
      hasChildren: [],
      text: "",
      geometry: undefined,
      geometryDepth: 0,
      found: undefined,
    };
  }

  #openInFeature(open: OpenFeature, t: SaxesTagNS): void {
    if (open.geometry) {
      open.geometry.open(t.local, localAttributes(t));
      return;
    }
    if (GML_NAMESPACES.has(t.uri) && isGeometryRoot(t.local) && open.found === undefined) {
      open.geometry = new GmlGeometryBuilder(t.local, localAttributes(t));
      open.geometryDepth = this.#depth;
      // The property holding the geometry (adv:position, geom, …) is no attribute.
      if (open.path.length > 0) {
        open.path[open.path.length - 1] = "";
        open.hasChildren[open.hasChildren.length - 1] = true;
      }
      return;
    }
    if (open.hasChildren.length > 0) open.hasChildren[open.hasChildren.length - 1] = true;
    open.path.push(t.local);
    open.hasChildren.push(false);
    open.text = "";
    const href = findAttr(t, XLINK, "href");
    const nil = findAttr(t, XSI, "nil");
    if (nil === "true") this.#set(open, null);
    else if (href !== undefined && href !== "") {
      this.#set(open, href.replace(/[#/]+$/, "").split(/[/#]/).pop()!);
    }
  }

  #text(t: string): void {
    if (this.#exception) this.#exceptionText += t;
    const open = this.#open;
    if (!open) return;
    if (open.geometry) open.geometry.text(t);
    else open.text += t;
  }

  #closeTag(t: SaxesTagNS): void {
    const open = this.#open;
    if (open && this.#depth === open.depth) {
      open.feature.geometry = open.found;
      this.#queue.push(open.feature);
      this.#open = undefined;
    } else if (open?.geometry) {
      const done = open.geometry.close(t.local, localAttributes(t));
      if (done && this.#depth === open.geometryDepth) {
        open.found = open.geometry.result();
        open.geometry = undefined;
      }
    } else if (open && open.path.length > 0) {
      const hadChildren = open.hasChildren.pop();
      if (!hadChildren && open.path.at(-1) !== "" && open.text.trim() !== "") {
        this.#set(open, open.text.trim());
      }
      open.path.pop();
      open.text = "";
    } else if (this.#containers.at(-1) === this.#depth) {
      this.#containers.pop();
    }
    if (this.#depth === 1) this.#rootClosed = true;
    this.#depth--;
  }

  /** Sets the attribute of the current path: object elements (upper-case first letter) between properties left out. */
  #set(open: OpenFeature, value: Scalar): void {
    const segments = open.path.filter((s, i) =>
      s !== "" && (i === open.path.length - 1 || !/^[A-Z]/.test(s))
    );
    if (segments.length > 0) setAttribute(open.feature.attributes, segments.join("/"), value);
  }
}

function attr(t: SaxesTagNS, local: string): string | undefined {
  for (const name in t.attributes) if (t.attributes[name]!.local === local) return t.attributes[name]!.value;
  return undefined;
}

function findAttr(t: SaxesTagNS, uri: string, local: string): string | undefined {
  for (const name in t.attributes) {
    const a = t.attributes[name]!;
    if (a.local === local && a.uri === uri) return a.value;
  }
  return undefined;
}

function localAttributes(t: SaxesTagNS): Record<string, string> {
  const out: Record<string, string> = {};
  for (const a of Object.values(t.attributes)) {
    if (a.prefix !== "xmlns" && a.local !== "xmlns") out[a.local] = a.value;
  }
  return out;
}

/** The features of a WFS answer given as text chunks, one at a time. */
export async function* readXmlFeatures(chunks: AsyncIterable<string>): AsyncGenerator<SourceFeature> {
  const reader = new XmlFeatureReader();
  for await (const chunk of chunks) {
    reader.write(chunk);
    yield* reader.drain();
  }
  reader.close();
  yield* reader.drain();
}

export type { Attributes };
