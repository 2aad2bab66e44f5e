/**
 * What every page of the agent's workspace (`/anbieter`) shares: its German/English texts, the membership check
 * run on every request (one and the same 404 for seekers, members of another office, unknown and malformed ids),
 * the page frame with the workspace navigation, the CSRF-checked form, how domain errors become pages, and Berlin
 * times. The pages are thin adapters: every rule lives in the domain modules the MCP tools call.
 */
import { PAGE_MAX } from "../catalogue/listing.ts";
import type { Context, MiddlewareHandler } from "hono";
import type { Child } from "hono/jsx";
import { LOGIN_PAGE } from "../auth/auth_settings.ts";
import type { Action, Actor } from "../deps.ts";
import { personAccess } from "../db/accounts.ts";
import { WORKSPACE_PAGE, workspaceOffice } from "../auth/account_home.ts";
import { AppError, type ErrorFacts, type ErrorReason } from "../errors.ts";
import type { AppEnv } from "../routes/env.ts";
import { sessionOf } from "./auth_calls.ts";
import { langOfRequest, pageAct, type PageCtx } from "./common.ts";
import { csrfToken } from "./csrf.ts";
import type { Lang } from "./i18n.ts";
import { Layout } from "./layout.tsx";

type C = Context<AppEnv>;

/** The address of the workspace. */
export const WORKSPACE = WORKSPACE_PAGE;

/** The workspace's texts: German first, English second. */
const TEXTS = {
  workspace: ["Arbeitsbereich", "Workspace"],
  overview: ["Übersicht", "Overview"],
  stock: ["Objekte", "Listings"],
  inquiries: ["Anfragen", "Inquiries"],
  viewings: ["Termine", "Viewings"],
  proposals: ["Vorschläge", "Proposals"],
  notFoundTitle: ["Nicht gefunden", "Not found"],
  notFound: ["Diese Seite gibt es nicht.", "This page does not exist."],
  tooMany: ["Zu viele Anfragen. Bitte warten Sie kurz.", "Too many requests. Please wait a moment."],
  openInquiries: ["Offene Anfragen", "Open inquiries"],
  openProposals: ["Vorschläge zur Freigabe", "Proposals awaiting approval"],
  nextViewings: ["Besichtigungen der nächsten 7 Tage", "Viewings of the next 7 days"],
  stockByStatus: ["Objekte nach Status", "Listings by status"],
  none: ["Keine.", "None."],
  all: ["alle", "all"],
  showAll: ["Alle anzeigen", "Show all"],
  draft: ["Entwurf", "draft"],
  published: ["veröffentlicht", "published"],
  reserved: ["reserviert", "reserved"],
  withdrawn: ["zurückgezogen", "withdrawn"],
  open: ["offen", "open"],
  answered: ["beantwortet", "answered"],
  rejected: ["abgelehnt", "rejected"],
  closed: ["geschlossen", "closed"],
  cancelled: ["abgesagt", "cancelled"],
  status: ["Status", "Status"],
  listing: ["Objekt", "Listing"],
  source: ["Quelle", "Source"],
  service: ["Dienst", "service"],
  portal: ["Portal", "portal"],
  email: ["E-Mail", "e-mail"],
  received: ["Eingang", "Received"],
  lastActivity: ["Letzte Nachricht", "Last message"],
  messages: ["Nachrichten", "Messages"],
  from: ["Von", "From"],
  phone: ["Telefon", "Phone"],
  seeker: ["Anfragende Person", "Inquirer"],
  provider: ["Ihr Büro", "Your office"],
  reply: ["Antworten", "Reply"],
  replyText: ["Ihre Antwort", "Your reply"],
  send: ["Senden", "Send"],
  reject: ["Ablehnen", "Reject"],
  rejectText: ["Nachricht zur Absage (optional)", "Message with the rejection (optional)"],
  filter: ["Filtern", "Filter"],
  search: ["Suche (Titel, Referenz, Ort, PLZ)", "Search (title, reference, city, postcode)"],
  previous: ["Zurück", "Previous"],
  next: ["Weiter", "Next"],
  page: ["Seite", "Page"],
  of: ["von", "of"],
  total: ["Gesamt", "Total"],
  newListing: ["Neues Objekt", "New listing"],
  editListing: ["Objekt bearbeiten", "Edit listing"],
  save: ["Speichern", "Save"],
  create: ["Anlegen", "Create"],
  publish: ["Veröffentlichen", "Publish"],
  reserve: ["Reservieren", "Reserve"],
  withdraw: ["Zurückziehen", "Withdraw"],
  title: ["Titel", "Title"],
  reference: ["Referenz", "Reference"],
  description: ["Beschreibung (intern)", "Description (internal)"],
  city: ["Ort", "City"],
  postal_code: ["PLZ", "Postcode"],
  "city or postal_code": ["Ort oder PLZ", "City or postcode"],
  property_type: ["Objektart", "Property type"],
  transaction_type: ["Vermarktungsart", "Transaction type"],
  asked_price: ["Preis (Kauf) oder Kaltmiete (€)", "Price (buy) or net rent (€)"],
  total_rooms: ["Zimmer", "Rooms"],
  square_meters: ["Wohnfläche (m²)", "Living area (m²)"],
  latitude: ["Breitengrad", "Latitude"],
  longitude: ["Längengrad", "Longitude"],
  provider_name: ["Anbieter (intern)", "Provider (internal)"],
  contact_name: ["Ansprechpartner (intern)", "Contact person (internal)"],
  contact_email: ["Kontakt-E-Mail (intern)", "Contact e-mail (internal)"],
  contact_phone: ["Kontakt-Telefon (intern)", "Contact phone (internal)"],
  apartment: ["Wohnung", "apartment"],
  house: ["Haus", "house"],
  land: ["Grundstück", "land"],
  commercial: ["Gewerbe", "commercial"],
  buy: ["Kauf", "buy"],
  rent: ["Miete", "rent"],
  choose: ["— bitte wählen —", "— please choose —"],
  formErrors: ["Bitte prüfen Sie diese Felder:", "Please check these fields:"],
  conflict: ["Das geht in diesem Zustand nicht:", "Not possible in this state:"],
  conflictUnknown: [
    "Bitte prüfen Sie den Zustand und versuchen Sie es erneut.",
    "Please check the state and try again.",
  ],
  saved: ["Gespeichert.", "Saved."],
  sent: ["Gesendet.", "Sent."],
  done: ["Erledigt.", "Done."],
  draftReply: ["Entwurf des Assistenten", "The agent's draft"],
  approve: ["Freigeben (geänderter Text wird gesendet)", "Approve (an edited text is sent)"],
  approveValues: ["Freigeben (geänderte Werte werden übernommen)", "Approve (edited values are written)"],
  discard: ["Verwerfen", "Discard"],
  kind_reply: ["Antwortentwurf", "Draft reply"],
  kind_rejection: ["Absage", "Rejection"],
  kind_property_change: ["Objektänderung aus Dokument", "Property change from a document"],
  goesOut: ["geht an die anfragende Person", "goes to the inquirer"],
  field: ["Feld", "Field"],
  oldValue: ["bisher", "before"],
  newValue: ["neu", "new"],
  templates: ["Vorlagen Ihres Büros", "Your office's templates"],
  template_reply: ["Vorlage für Antworten", "Template for replies"],
  template_rejection: ["Vorlage für Absagen", "Template for rejections"],
  builtIn: ["(eingebaute Vorlage)", "(built-in template)"],
  resetTemplate: ["Eingebaute Vorlage verwenden", "Use the built-in template"],
  slots: ["Besichtigungstermine", "Viewing slots"],
  newSlots: ["Neue Termine", "New slots"],
  date: ["Datum", "Date"],
  startTime: ["Beginn", "Start"],
  endTime: ["Ende", "End"],
  minutes: ["Dauer je Termin (Minuten)", "Length of each slot (minutes)"],
  count: ["Anzahl Termine hintereinander", "Number of slots in a row"],
  places: ["Plätze je Termin", "Places per slot"],
  booked: ["Gebucht", "Booked"],
  bookedBy: ["Gebucht von", "Booked by"],
  move: ["Verlegen", "Move"],
  cancel: ["Absagen", "Cancel"],
  chooseListing: [
    "Termine legen Sie bei einem Objekt an: Objekt öffnen und „Termine“ wählen.",
    "Create slots from a listing: open it and choose “Viewings”.",
  ],
  documents: ["Dokumente", "Documents"],
  upload: ["Hochladen", "Upload"],
  file: ["Datei (PDF)", "File (PDF)"],
  sorte: ["Art", "Kind"],
  brochure: ["Exposé", "brochure"],
  energy_certificate: ["Energieausweis", "energy certificate"],
  other: ["Sonstiges", "other"],
  pending: ["wird gelesen", "being read"],
  processed: ["gelesen", "read"],
  failed: ["nicht lesbar", "unreadable"],
  readValues: ["Erkannte Angaben", "Values read"],
  openimmo: ["OpenImmo-Import", "OpenImmo import"],
  dryRun: ["Probelauf (nichts wird gespeichert)", "Dry run (nothing is written)"],
  importNow: ["Jetzt importieren", "Import now"],
  importAgain: [
    "Wählen Sie dieselbe Datei noch einmal, um sie zu importieren.",
    "Choose the same file again to import it.",
  ],
  publishNew: ["Neue vollständige Objekte veröffentlichen", "Publish new complete listings"],
  report: ["Bericht", "Report"],
  committed: ["Gespeichert", "Written"],
  notCommitted: ["Nichts gespeichert (Probelauf)", "Nothing written (dry run)"],
  sameFile: [
    "Importiert wird nur eine Datei, deren Probelauf Sie gesehen haben.",
    "Only a file whose dry run you have seen is imported.",
  ],
  created: ["neu", "created"],
  updated: ["geändert", "updated"],
  unchanged: ["unverändert", "unchanged"],
  invalid: ["ungültig", "invalid"],
  message: ["Nachricht", "Message"],
  text: ["Text", "Text"],
  start: ["Beginn", "Start"],
  end: ["Ende", "End"],
  search_: ["Suche", "Search"],
  name: ["Name", "Name"],
  inhalt: ["Datei", "File"],
  aenderungen: ["Änderungen", "Changes"],
  contact: ["Kontakt", "Contact"],
  form: ["Formular", "Form"],
  when: ["Zeit", "Time"],
  freePlaces: ["frei", "free"],
  bookings: ["Buchungen", "Bookings"],
  allListings: ["alle Objekte", "all listings"],
  back: ["Zurück zur Liste", "Back to the list"],
  aktion: ["Aktion", "Action"],
  art: ["Art der Vorlage", "Kind of template"],
  datei: ["Datei", "File"],
  // The listing details (pages/workspace_details.tsx).
  public_description: ["Beschreibung (öffentlich, im Exposé)", "Description (public, in the listing)"],
  warm_rent: ["Warmmiete (€ pro Monat)", "Rent incl. heating (€ per month)"],
  service_charges: ["Nebenkosten (€ pro Monat)", "Service charges (€ per month)"],
  deposit: ["Kaution (€)", "Deposit (€)"],
  floor: ["Etage (0 = Erdgeschoss)", "Floor (0 = ground floor)"],
  available_from: ["Verfügbar ab (z. B. „sofort“)", "Available from (e.g. “now”)"],
  energy_certificate_type: ["Art des Energieausweises", "Kind of energy certificate"],
  energy_value: ["Endenergiebedarf/-verbrauch (kWh/(m²·a))", "Final energy demand/consumption (kWh/(m²·a))"],
  energy_class: ["Energieeffizienzklasse", "Energy efficiency class"],
  energy_carrier: ["Wesentlicher Energieträger", "Main energy carrier"],
  construction_year: ["Baujahr", "Year of construction"],
  energy_certificate_valid_until: ["Ausweis gültig bis", "Certificate valid until"],
} as const;

/** A text key of the workspace. */
/** A key of the workspace texts. */
export type WsKey = keyof typeof TEXTS;

/** The workspace text `key` in `lang` (an unknown key is shown as it is). */
export function w(l: Lang, key: WsKey): string {
  return TEXTS[key][l === "en" ? 1 : 0];
}

/** Whether `word` (a status, a kind, a field name from data) has a text of its own. */
export function isWsKey(word: string): word is WsKey {
  return Object.hasOwn(TEXTS, word);
}

/** A word from data (a status, a kind, a field name) in the page's language: its text, or itself. */
export function wordOf(l: Lang, word: string): string {
  return isWsKey(word) ? w(l, word) : word;
}

/** The signed-in person acting for their office. */
export interface Member {
  userId: string;
  officeId: string;
}

const members = new WeakMap<Request, Member>();

/**
 * The membership check of every workspace request: not signed in → sign-in page; signed in without an active
 * membership of an office (a seeker, a former member) → the workspace's one 404 page. Which office the person
 * belongs to is read anew on every request, so a membership that ended acts at once.
 */
export function memberGate(ctx: PageCtx): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const session = await sessionOf(ctx.auth, c);
    if (!session) return c.redirect(LOGIN_PAGE, 303);
    const officeId = workspaceOffice(await personAccess(ctx.deps.db, session.userId));
    if (!officeId) return notFound(ctx, c);
    members.set(c.req.raw, { userId: session.userId, officeId });
    return await next();
  };
}

/** The member the gate let through for this request. */
export function memberOf(c: C): Member {
  const m = members.get(c.req.raw);
  if (!m) throw new AppError("not_found");
  return m;
}

/** The one 404 page of the workspace: the same for every id it does not show and every person it turns away. */
export function notFound(ctx: PageCtx, c: C) {
  const l = langOfRequest(c);
  return c.html(
    <Layout lang={l} title={w(l, "notFoundTitle")} signedIn csrf={csrfToken(c, ctx.secure)}>
      <p class="error">{w(l, "notFound")}</p>
    </Layout>,
    404,
  );
}

/** The member as the actor of a workspace write: a provider for their office. */
export function memberActor(m: Member): Actor {
  return { kind: "provider", userId: m.userId, officeId: m.officeId };
}

/** Runs a workspace write as one action of the member for their office (`pageAct`: no app, so no origin). */
export function memberAct<T>(ctx: PageCtx, m: Member, fn: (a: Action) => Promise<T>): Promise<T> {
  return pageAct(ctx, memberActor(m), fn);
}

const STYLE = `
main{overflow-wrap:break-word}
nav.ws{display:flex;flex-wrap:wrap;border-bottom:0;margin:0 0 1rem;padding:0;gap:.25rem 1rem}nav.ws a[aria-current=page]{font-weight:700}
.scroll{overflow-x:auto;max-width:100%}
input[type=number],input[type=date],input[type=time],input[type=search],input[type=file]{width:100%;padding:.5rem;box-sizing:border-box;font:inherit}
input[aria-invalid=true],select[aria-invalid=true],textarea[aria-invalid=true]{border:2px solid #c53030}
.stats{display:grid;grid-template-columns:repeat(auto-fill,minmax(9rem,1fr));gap:.5rem}
.stats a{display:block;border:1px solid #ddd;padding:.5rem}.stats b{display:block;font-size:1.4rem}
fieldset{border:1px solid #ddd;margin:1rem 0;min-width:0}
.actions form{display:inline-block}
@media (max-width:40rem){.scroll table,.scroll tbody,.scroll tr,.scroll td{display:block}.scroll thead{display:none}
.scroll tr{border-bottom:1px solid #ddd;padding:.25rem 0}.scroll td{border:0;padding:.1rem 0}}
`;

/** Props of {@linkcode WsPage}. */
export interface WsPageProps {
  ctx: PageCtx;
  c: C;
  title: string;
  /** Which entry of the workspace navigation is current. */
  at: "overview" | "stock" | "inquiries" | "viewings" | "proposals";
  children?: Child;
}

const NAV: Array<[WsPageProps["at"], string]> = [
  ["overview", WORKSPACE],
  ["stock", `${WORKSPACE}/objekte`],
  ["inquiries", `${WORKSPACE}/anfragen`],
  ["viewings", `${WORKSPACE}/termine`],
  ["proposals", `${WORKSPACE}/vorschlaege`],
];

/** A workspace page: the site frame, the workspace navigation and the notice named by `?ok=`. */
export function WsPage(p: WsPageProps) {
  const l = langOfRequest(p.c);
  const ok = p.c.req.query("ok");
  return (
    <Layout lang={l} title={p.title} signedIn provider csrf={csrfToken(p.c, p.ctx.secure)}>
      <style>{STYLE}</style>
      <nav class="ws" aria-label={w(l, "workspace")}>
        {NAV.map(([key, href]) => (
          <a href={href} aria-current={key === p.at ? "page" : undefined}>{w(l, key)}</a>
        ))}
      </nav>
      {(ok === "saved" || ok === "sent" || ok === "done") && <p class="notice" role="status">{w(l, ok)}</p>}
      {p.children}
    </Layout>
  );
}

/** A problem with a form, shown above it: the fields named (and marked) or a state conflict. */
export interface FormProblem {
  fields: string[];
  /** The facts of a `conflict` refusal (its reason is shown in the page's language). */
  conflict?: ErrorFacts | undefined;
}

/**
 * Runs a domain call of a page; `not_found` becomes the one 404 page, `rate_limited` a 429 page, and a field error
 * (`invalid_request`) or a `conflict` becomes a {@linkcode FormProblem} handed to `again` (the form shown again).
 */
export async function attempt<T>(
  ctx: PageCtx,
  c: C,
  call: () => Promise<T>,
  again: (p: FormProblem) => Response | Promise<Response>,
): Promise<T | Response> {
  try {
    return await call();
  } catch (e) {
    if (!(e instanceof AppError)) throw e;
    if (e.code === "not_found") return notFound(ctx, c);
    if (e.code === "rate_limited") return tooMany(c);
    if (e.code === "conflict") {
      return await again({ fields: e.facts.field ? [formField(e.facts.field)] : [], conflict: e.facts });
    }
    if (e.code === "invalid_request" || e.code === "payload_too_large") {
      return await again({ fields: [formField(e.facts.field ?? "form")] });
    }
    throw e;
  }
}

/** The 429 page. */
function tooMany(c: C) {
  const l = langOfRequest(c);
  return c.html(
    <Layout lang={l} title={w(l, "tooMany")}>
      <p class="error">{w(l, "tooMany")}</p>
    </Layout>,
    429,
  );
}

/** The form field of a refusal's field path (`slots.2.start` → `start`, `aenderungen.preis` → `preis`). */
function formField(path: string): string {
  return path.split(".").filter((s) => !/^[0-9]+$/.test(s)).at(-1) || "form";
}

/** The German and English text of each conflict reason a workspace form can meet. */
const CONFLICT_TEXTS: Partial<Record<ErrorReason, readonly [string, string]>> = {
  missing_for_publication: ["Für die Veröffentlichung fehlen:", "Missing for publication:"],
  reserve_needs_published: [
    "Nur ein veröffentlichtes Objekt kann reserviert werden.",
    "Only a published listing can be reserved.",
  ],
  listing_unavailable: ["Das Objekt ist nicht verfügbar:", "The listing is not available:"],
  slot_cancelled: ["Der Termin ist abgesagt.", "The slot is cancelled."],
  proposal_decided: ["Der Vorschlag ist schon erledigt.", "The proposal has already been decided."],
  reference_taken: [
    "Diese Referenz hat schon ein anderes Objekt Ihres Büros.",
    "Another listing of your office has this reference.",
  ],
  inquiry_closed: ["Die Anfrage ist abgelehnt oder geschlossen.", "The inquiry is rejected or closed."],
  slot_begun: ["Der Termin hat schon begonnen.", "The slot has already begun."],
  slot_full: ["Der Termin ist ausgebucht.", "The slot is fully booked."],
  too_many: ["Die Höchstzahl ist erreicht.", "The limit is reached."],
};

/** The reason of a `conflict` in the page's language, with the fields or statuses it names translated. */
function conflictText(l: Lang, facts: ErrorFacts): string {
  const text = facts.reason && CONFLICT_TEXTS[facts.reason];
  if (!text) return w(l, "conflictUnknown");
  const named = (facts.names ?? []).map((n) => wordOf(l, n)).join(", ");
  return named ? `${text[l === "en" ? 1 : 0]} ${named}.` : text[l === "en" ? 1 : 0];
}

/** The problem box above a form: the conflict's reason and the named fields as links to them. */
export function Problem(p: { l: Lang; problem?: FormProblem | undefined }) {
  const { l, problem } = p;
  if (!problem) return null;
  return (
    <div class="error" role="alert">
      {problem.conflict !== undefined && <p>{w(l, "conflict")} {conflictText(l, problem.conflict)}</p>}
      {problem.fields.length > 0 && (
        <>
          <p>{w(l, "formErrors")}</p>
          <ul>
            {problem.fields.map((f) => (
              <li>
                <a href={`#${f}`}>{wordOf(l, f)}</a>
              </li>
            ))}
          </ul>
        </>
      )}
    </div>
  );
}

/** Whether `field` is named by the problem (for `aria-invalid`). */
export function bad(problem: FormProblem | undefined, field: string): "true" | undefined {
  return problem?.fields.includes(field) ? "true" : undefined;
}

/** A whole page number from the query (1 when absent or not a number; at most the catalogue's PAGE_MAX). */
export function pageParam(c: C): number {
  const raw = c.req.query("page") ?? "1";
  const n = /^[0-9]{1,7}$/.test(raw) ? Number(raw) : 1;
  return Math.min(Math.max(n, 1), PAGE_MAX);
}

/** The pager below a list: previous and next links keeping `query`. */
export function Pager(
  p: { l: Lang; base: string; query: Record<string, string>; page: number; total: number; size: number },
) {
  const last = Math.max(1, Math.ceil(p.total / p.size));
  const href = (n: number) => `${p.base}?${new URLSearchParams({ ...p.query, page: String(n) })}`;
  return (
    <nav class="pager" aria-label={w(p.l, "page")}>
      {p.page > 1 && <a rel="prev" href={href(Math.min(p.page - 1, last))}>{w(p.l, "previous")}</a>}
      <span>
        {w(p.l, "page")} {Math.min(p.page, last)} {w(p.l, "of")} {last} ({p.total})
      </span>
      {p.page < last && <a rel="next" href={href(p.page + 1)}>{w(p.l, "next")}</a>}
    </nav>
  );
}

/** One `<option>` of a select (a component, so a list of them can carry `key` without rendering it). */
export function Opt(p: { value: string; label: string; selected?: boolean }) {
  return <option value={p.value} selected={p.selected}>{p.label}</option>;
}

/** The UTC offset of Berlin at the UTC instant `ms`, as "+01:00" or "+02:00". */
function berlinOffset(ms: number): string {
  const name = new Intl.DateTimeFormat("en-US", { timeZone: "Europe/Berlin", timeZoneName: "longOffset" })
    .formatToParts(new Date(ms)).find((x) => x.type === "timeZoneName")?.value ?? "GMT+01:00";
  return name === "GMT" ? "+00:00" : name.slice(3);
}

/**
 * The ISO 8601 timestamp (with Berlin's offset) of a Berlin wall-clock `date` (YYYY-MM-DD) and `time` (HH:MM),
 * plus `addMinutes`; undefined when either is malformed.
 */
export function berlinIso(date: string, time: string, addMinutes = 0): string | undefined {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(date) || !/^\d{2}:\d{2}$/.test(time)) return undefined;
  const asUtc = Date.parse(`${date}T${time}:00Z`);
  if (Number.isNaN(asUtc)) return undefined;
  const guess = asUtc - offsetMs(berlinOffset(asUtc));
  const at = asUtc - offsetMs(berlinOffset(guess)) + addMinutes * 60_000;
  return `${new Date(at + offsetMs(berlinOffset(at))).toISOString().slice(0, 19)}${berlinOffset(at)}`;
}

function offsetMs(offset: string): number {
  const m = /^([+-])(\d{2}):(\d{2})$/.exec(offset);
  if (!m) return 0;
  return (m[1] === "-" ? -1 : 1) * (Number(m[2]) * 60 + Number(m[3])) * 60_000;
}

/** The Berlin wall-clock date (YYYY-MM-DD) and time (HH:MM) of the ISO instant `iso`. */
export function berlinParts(iso: string): { date: string; time: string } {
  const ms = Date.parse(iso);
  const local = new Date(ms + offsetMs(berlinOffset(ms))).toISOString();
  return { date: local.slice(0, 10), time: local.slice(11, 16) };
}
