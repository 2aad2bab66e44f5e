/**
 * The two MCP servers of docs/contract.md §1.1: the provider server (`immobilien-anbieter`, right `lesen`) and the seeker server
 * (`immobilien-suche`, right `suchen`). What each serves is built once ({@linkcode Surface}); every request gets a
 * fresh low-level SDK `Server` (stateless serving) with our own `tools/list` and `tools/call` handlers reading from
 * that surface, so nothing is registered or converted per request.
 */
import {
  ProtocolError,
  ProtocolErrorCode,
  Server,
  type ServerCapabilities,
} from "@modelcontextprotocol/server";
import type { Right } from "../auth/principal.ts";
import type { AppDeps } from "../deps.ts";
import { registerGetProperty } from "./tools/get_property.ts";
import { registerSeekerCatalogueTools } from "./tools/catalogue.ts";
import { registerProviderInquiryTools, registerSeekerInquiryTools } from "./tools/inquiries.ts";
import { registerSavedSearchTools } from "./tools/saved_searches.ts";
import { registerOfficeListingTools } from "./tools/office_listings.ts";
import { registerDocumentTools } from "./tools/documents.ts";
import { registerProposalTools } from "./tools/proposals.ts";
import { registerSocialTools } from "./tools/social.ts";
import { registerOpenImmoTools } from "./tools/openimmo.ts";
import { registerPhotoTools } from "./tools/photos.ts";
import { answerToolCall, type DeclaredTool, listingOf, outputSchemaOf, ToolSet } from "./tools/define.ts";
import { EVENTS_CAPABILITY, registerEventMethods } from "./events_methods.ts";
import { registerProviderViewingTools, registerSeekerViewingTools } from "./tools/viewings.ts";
import { principalOf, requestIdOf } from "./context.ts";

/** What a server reports about itself (`serverInfo`). */
export interface ServerIdentity {
  name: string;
  title: string;
  version: string;
}

/** Version reported in `serverInfo` (the service's interface version, docs/contract.md §10). */
export const MCP_SERVER_VERSION = "2026.09";

/** Name of the provider server. */
export const PROVIDER_SERVER_NAME = "immobilien-anbieter";
/** Name of the seeker server. */
export const SEEKER_SERVER_NAME = "immobilien-suche";

/** What the provider server reports about itself (`serverInfo`). */
export const PROVIDER_SERVER_INFO: ServerIdentity = {
  name: PROVIDER_SERVER_NAME,
  title: "Immobilien-Anbieter",
  version: MCP_SERVER_VERSION,
};
/** What the seeker server reports about itself (`serverInfo`). */
export const SEEKER_SERVER_INFO: ServerIdentity = {
  name: SEEKER_SERVER_NAME,
  title: "Immobiliensuche",
  version: MCP_SERVER_VERSION,
};

const PROVIDER_INSTRUCTIONS = [
  "Immobilien-Anbieter: Server für Makler und Anbieter, die Objekte in diesen Dienst eingestellt haben. Sie " +
  "sehen nur den Bestand, die Anfragen und die Besichtigungen Ihres eigenen Büros. Bestand: list_properties " +
  "listet Ihre Objekte in jedem Status (Entwurf, veröffentlicht, zurückgezogen), get_property liefert ein Objekt " +
  "mit allen Feldern samt Referenz, Beschreibung und Kontakt, create_property legt einen Entwurf an, " +
  "update_property ändert Felder, publish_property veröffentlicht ein Objekt im öffentlichen Katalog, " +
  "withdraw_property zieht es sofort zurück. Anbietername und Kontakt erscheinen nie öffentlich. Mit den " +
  "Werkzeugen für Anfragen und Besichtigungen beantworten Sie Anfragen zu Ihren Objekten und verwalten " +
  "Besichtigungstermine. Der Assistent des Dienstes bereitet Antwortentwürfe, Absagen und Objektänderungen " +
  "vor, die erst mit approve_proposal hinausgehen (list_proposals, get_proposal, edit_and_approve_proposal, " +
  "discard_proposal). upload_file liest Exposés und Energieausweise (Ergebnis in get_property), " +
  "upload_photo, update_photo und delete_photo verwalten die Fotos eines Objekts (das erste ist das Titelbild), " +
  "list_social_messages zeigt Kommentare und Nachrichten verbundener Seiten, import_openimmo übernimmt eine " +
  "OpenImmo-Datei in den Bestand. Objekte mit beispiel = true sind erfundene Anschauungsbeispiele, keine echten " +
  "Angebote.",
  "Property providers: server for agents and providers who entered listings into this service. You see only " +
  "your own office's stock, inquiries and viewings. Stock: list_properties lists your listings in every status " +
  "(draft, published, withdrawn), get_property returns one listing with every field including reference, " +
  "description and contact, create_property creates a draft, update_property changes fields, publish_property " +
  "publishes a listing in the public catalogue, withdraw_property withdraws it at once. Provider name and " +
  "contact are never public. The inquiry and viewing tools answer inquiries about your listings and manage " +
  "viewing appointments. The service's agent prepares draft replies, rejections and property changes that go " +
  "out only with approve_proposal (list_proposals, get_proposal, edit_and_approve_proposal, discard_proposal). " +
  "upload_file reads brochures and energy certificates (result in get_property), upload_photo, update_photo " +
  "and delete_photo manage a listing's photos (the first is the title image), list_social_messages shows " +
  "comments and messages of connected pages, import_openimmo takes an OpenImmo file into your stock. Listings " +
  "with beispiel = true are invented samples, not real offers.",
].join("\n\n");

const SEEKER_INSTRUCTIONS = [
  "Immobiliensuche: Server für Suchende. Er enthält nur Objekte, die Anbieter selbst in diesen Dienst " +
  "eingestellt haben, keine Angebote anderer Portale. Mit get_property rufen Sie ein Objekt mit seinen " +
  "öffentlichen Feldern ab. Objekte mit beispiel = true sind erfundene Anschauungsbeispiele.",
  "Property search: server for seekers. It holds only listings that providers entered into this service " +
  "themselves, none from other portals. get_property returns one listing with its public fields. " +
  "Listings with beispiel = true are invented samples.",
].join("\n\n");

/** The provider server's tools, declared once (see {@linkcode ToolSet}). */
export function providerTools(deps: AppDeps): ToolSet {
  const tools = new ToolSet();
  registerOfficeListingTools(tools, deps);
  registerProviderInquiryTools(tools, deps);
  registerProviderViewingTools(tools, deps);
  registerProposalTools(tools, deps);
  registerDocumentTools(tools, deps);
  registerSocialTools(tools, deps);
  registerOpenImmoTools(tools, deps);
  registerPhotoTools(tools, deps);
  return tools;
}

/** The seeker server's tools, declared once. */
export function seekerTools(deps: AppDeps): ToolSet {
  const tools = new ToolSet();
  registerGetProperty(tools, deps);
  registerSeekerCatalogueTools(tools, deps);
  registerSeekerInquiryTools(tools, deps);
  registerSeekerViewingTools(tools, deps);
  registerSavedSearchTools(tools, deps);
  return tools;
}

/** One MCP server as served, built once: what it reports about itself, its instructions and its tools by name. */
export interface Surface {
  identity: ServerIdentity;
  instructions: string;
  tools: ReadonlyMap<string, DeclaredTool>;
}

/** The surface of the server for callers holding `right`. */
export function surfaceFor(deps: AppDeps, right: Right): Surface {
  return surfaceOf(right, right === "lesen" ? providerTools(deps) : seekerTools(deps));
}

/** The identity and instructions of the server for `right` with the tools of `tools`. */
export function surfaceOf(right: Right, tools: ToolSet): Surface {
  const provider = right === "lesen";
  return {
    identity: provider ? PROVIDER_SERVER_INFO : SEEKER_SERVER_INFO,
    instructions: provider ? PROVIDER_INSTRUCTIONS : SEEKER_INSTRUCTIONS,
    tools: new Map(tools.tools.map((t) => [t.spec.name, t])),
  };
}

/** What both servers advertise: the event methods, and tools (listed as `McpServer` would advertise them). */
const CAPABILITIES: ServerCapabilities = { ...EVENTS_CAPABILITY, tools: { listChanged: true } };

/**
 * A fresh server for one request: the SDK's low-level `Server` with `tools/list` (each tool's entry built once),
 * `tools/call` ({@linkcode answerToolCall}, projected through the server's wire codec as the SDK asks of
 * low-level handlers; an unknown tool is a JSON-RPC `-32602` as with `McpServer`) and the event methods.
 */
export function createServer(surface: Surface, deps: AppDeps): Server {
  const server = new Server({ ...surface.identity }, {
    instructions: surface.instructions,
    capabilities: CAPABILITIES,
  });
  server.setRequestHandler("tools/list", () => ({ tools: [...surface.tools.values()].map(listingOf) }));
  server.setRequestHandler("tools/call", async ({ params }, ctx) => {
    const tool = surface.tools.get(params.name);
    if (!tool) throw new ProtocolError(ProtocolErrorCode.InvalidParams, `Tool ${params.name} not found`);
    const result = await answerToolCall(tool, params.arguments, principalOf(ctx), requestIdOf(ctx));
    return server.projectCallToolResult(result, outputSchemaOf(tool));
  });
  registerEventMethods(server, deps);
  return server;
}
