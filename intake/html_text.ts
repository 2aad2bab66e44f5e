/**
 * HTML of an e-mail as plain text for an inquiry: tags removed, entities decoded, line breaks kept (`<br>` and the
 * ends of blocks become line breaks, paragraphs a blank line, list items "- "), scripts, styles and the head
 * dropped. Linear in the input (no backtracking regular expressions over the whole text).
 */

/** Elements whose content is never text. */
const SKIP = new Set(["script", "style", "head", "title", "template", "noscript", "svg", "object"]);
/** Elements that start and end a paragraph. */
const PARAGRAPH = new Set([
  "p",
  "h1",
  "h2",
  "h3",
  "h4",
  "h5",
  "h6",
  "table",
  "ul",
  "ol",
  "dl",
  "blockquote",
  "pre",
  "section",
  "article",
  "header",
  "footer",
  "address",
  "hr",
]);
/** Elements that start and end a line. */
const LINE = new Set(["div", "tr", "dt", "dd", "caption", "form", "fieldset", "main", "nav", "center"]);

const NAMED: Record<string, string> = {
  amp: "&",
  lt: "<",
  gt: ">",
  quot: '"',
  apos: "'",
  nbsp: " ",
  auml: "ä",
  ouml: "ö",
  uuml: "ü",
  Auml: "Ä",
  Ouml: "Ö",
  Uuml: "Ü",
  szlig: "ß",
  euro: "€",
  eacute: "é",
  egrave: "è",
  Eacute: "É",
  agrave: "à",
  aacute: "á",
  ccedil: "ç",
  copy: "©",
  reg: "®",
  trade: "™",
  ndash: "–",
  mdash: "—",
  hellip: "…",
  laquo: "«",
  raquo: "»",
  bdquo: "„",
  ldquo: "“",
  rdquo: "”",
  sbquo: "‚",
  lsquo: "‘",
  rsquo: "’",
  middot: "·",
  bull: "•",
  deg: "°",
  sup2: "²",
  sup3: "³",
  times: "×",
  para: "¶",
  sect: "§",
  shy: "",
  zwnj: "",
  zwj: "",
};

/** `text` with character references decoded; unknown names stay as written, invalid numbers become U+FFFD. */
export function decodeEntities(text: string): string {
  return text.replace(/&(#[0-9]{1,7}|#x[0-9a-f]{1,6}|[a-z][a-z0-9]{1,31});/gi, (whole, ref: string) => {
    if (ref[0] !== "#") return NAMED[ref] ?? NAMED[ref.toLowerCase()] ?? whole;
    const code = ref[1] === "x" || ref[1] === "X" ? parseInt(ref.slice(2), 16) : parseInt(ref.slice(1), 10);
    const valid = (code >= 0x20 || code === 9 || code === 10) && code <= 0x10ffff &&
      (code < 0xd800 || code > 0xdfff);
    return valid ? String.fromCodePoint(code) : "\uFFFD";
  });
}

/** Break markers (private-use characters, removed from the input first), replaced after spaces are collapsed. */
const BREAK = { line: "\uE000", paragraph: "\uE001", item: "\uE002" } as const;

/** What a tag contributes to the text. */
function tagText(name: string, closing: boolean): string {
  if (name === "br") return BREAK.line;
  if (name === "li") return closing ? "" : BREAK.item;
  if (name === "td" || name === "th") return " ";
  if (PARAGRAPH.has(name)) return BREAK.paragraph;
  if (LINE.has(name)) return BREAK.line;
  return "";
}

const TAG = /<(\/?)([a-zA-Z][a-zA-Z0-9]*)/y;

/** The index just past the end tag of `name` at or after `from`, or the end of `html` when there is none. */
function pastEndTag(html: string, name: string, from: number): number {
  const end = new RegExp(`</${name}[^>]*>`, "gi");
  end.lastIndex = from;
  return end.exec(html) ? end.lastIndex : html.length;
}

/** The text and break markers of `html` (tags replaced, skipped elements and comments dropped). */
function markup(html: string): string {
  const out: string[] = [];
  let i = 0;
  let gt = -1;
  while (i < html.length) {
    const lt = html.indexOf("<", i);
    if (lt < 0) break;
    out.push(html.slice(i, lt));
    if (gt <= lt) gt = html.indexOf(">", lt + 1);
    if (gt < 0) {
      i = lt;
      break;
    }
    if (html.startsWith("<!--", lt)) {
      const end = html.indexOf("-->", lt + 4);
      i = end < 0 ? html.length : end + 3;
      continue;
    }
    TAG.lastIndex = lt;
    const m = TAG.exec(html);
    if (!m) {
      // "<!doctype …>", "<?xml …?>" are skipped; a "<" that starts no tag is text.
      const decl = html[lt + 1] === "!" || html[lt + 1] === "?";
      if (!decl) out.push("<");
      i = decl ? gt + 1 : lt + 1;
      continue;
    }
    const name = m[2]!.toLowerCase();
    const closing = m[1] === "/";
    i = gt + 1;
    if (!closing && SKIP.has(name) && html[gt - 1] !== "/") i = pastEndTag(html, name, i);
    else out.push(tagText(name, closing));
  }
  out.push(html.slice(i));
  return out.join("");
}

/** The plain text of an HTML document or fragment (trimmed; at most one blank line in a row). */
export function htmlToText(html: string): string {
  const marked = markup(html.replace(/[\uE000-\uE002]/g, " "));
  const flowed = decodeEntities(marked.replace(/[ \t\r\n\f]+/g, " ")).replaceAll("\u00a0", " ");
  return tidy(
    flowed.replaceAll(BREAK.line, "\n").replaceAll(BREAK.paragraph, "\n\n").replaceAll(BREAK.item, "\n- "),
  );
}

/** Lines trimmed, runs of spaces as one, at most one blank line in a row, no blank lines at either end. */
export function tidy(text: string): string {
  return text.split("\n").map((l) => l.replace(/[ \t]+/g, " ").trim()).join("\n")
    .replace(/\n{3,}/g, "\n\n").trim();
}
