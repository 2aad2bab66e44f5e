/**
 * The two MCP servers of spec §1: the provider server (`immobilien-anbieter`, right `lesen`) and the seeker server
 * (`immobilien-suche`, right `suchen`). Each factory builds a fresh server per request (stateless serving).
 */
import { type CallToolResult, McpServer } from "@modelcontextprotocol/server";
import type { DirectServer, ServerIdentity } from "./direct_call.ts";
import type { Right } from "../auth/principal.ts";
import type { AppDeps } from "../deps.ts";
import { registerGetProperty } from "./tools/get_property.ts";
import { registerSeekerCatalogueTools } from "./tools/catalogue.ts";
import { registerProviderInquiryTools, registerSeekerInquiryTools } from "./tools/inquiries.ts";
import { registerSavedSearchTools } from "./tools/saved_searches.ts";
import { registerProviderStockTools } from "./tools/stock.ts";
import { registerDocumentTools } from "./tools/documents.ts";
import { registerProposalTools } from "./tools/proposals.ts";
import { registerSocialTools } from "./tools/social.ts";
import { registerOpenImmoTools } from "./tools/openimmo.ts";
import { codedError } from "./tools/tool_error.ts";
import { registerDeclared, ToolSet } from "./tools/define.ts";
import { EVENTS_CAPABILITY, registerEventMethods } from "./events_methods.ts";
import { registerProviderViewingTools, registerSeekerViewingTools } from "./tools/viewings.ts";
import { truncate } from "../text.ts";

/** Version reported in `serverInfo` (the service's interface version, spec §9). */
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
  "list_social_messages zeigt Kommentare und Nachrichten verbundener Seiten, import_openimmo übernimmt eine " +
  "OpenImmo-Datei in den Bestand. Objekte mit beispiel = true sind erfundene Anschauungsbeispiele, keine echten " +
  "Angebote.",
  "Property providers: server for agents and providers who entered listings into this service. You see only " +
  "your own office's stock, enquiries and viewings. Stock: list_properties lists your listings in every status " +
  "(draft, published, withdrawn), get_property returns one listing with every field including reference, " +
  "description and contact, create_property creates a draft, update_property changes fields, publish_property " +
  "publishes a listing in the public catalogue, withdraw_property withdraws it at once. Provider name and " +
  "contact are never public. The enquiry and viewing tools answer enquiries about your listings and manage " +
  "viewing appointments. The service's agent prepares draft replies, rejections and property changes that go " +
  "out only with approve_proposal (list_proposals, get_proposal, edit_and_approve_proposal, discard_proposal). " +
  "upload_file reads brochures and energy certificates (result in get_property), list_social_messages shows " +
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
  registerProviderStockTools(tools, deps);
  registerProviderInquiryTools(tools, deps);
  registerProviderViewingTools(tools, deps);
  registerProposalTools(tools, deps);
  registerDocumentTools(tools, deps);
  registerSocialTools(tools, deps);
  registerOpenImmoTools(tools, deps);
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

/**
 * A fresh provider server (tools for principals with right `lesen`). With `calledTool` (the request is a single
 * `tools/call` of a tool in the set) only that tool is registered: nothing else of the server takes part in the
 * call, and registering every tool per request cost more than the call itself.
 */
export function createProviderServer(
  deps: AppDeps,
  tools: ToolSet = providerTools(deps),
  calledTool?: string,
): McpServer {
  const server = new McpServer(
    { ...PROVIDER_SERVER_INFO },
    { instructions: PROVIDER_INSTRUCTIONS, capabilities: EVENTS_CAPABILITY },
  );
  return withTools(server, tools, deps, calledTool);
}

/** A fresh seeker server (tools for principals with right `suchen`); `calledTool` as for the provider server. */
export function createSeekerServer(
  deps: AppDeps,
  tools: ToolSet = seekerTools(deps),
  calledTool?: string,
): McpServer {
  const server = new McpServer(
    { ...SEEKER_SERVER_INFO },
    { instructions: SEEKER_INSTRUCTIONS, capabilities: EVENTS_CAPABILITY },
  );
  return withTools(server, tools, deps, calledTool);
}

function withTools(server: McpServer, tools: ToolSet, deps: AppDeps, calledTool?: string): McpServer {
  codedToolErrors(server);
  const only = calledTool === undefined ? undefined : tools.tools.find((t) => t.spec.name === calledTool);
  if (only) {
    registerDeclared(server, only);
    return server;
  }
  for (const tool of tools.tools) registerDeclared(server, tool);
  registerEventMethods(server, deps);
  return server;
}

/**
 * Makes the SDK's own tool errors (arguments that fail the input schema, an unknown tool) carry a snake_case code
 * like every domain error: `{"error": "invalid_arguments"}` plus the validation message as a hint.
 */
function codedToolErrors(server: McpServer): void {
  // A private method in the SDK's types; it is the one place every SDK-side tool failure passes through.
  (server as unknown as { createToolError: (message: string) => unknown }).createToolError = toolFailure;
}

/** The tool result for a failure the SDK words as `message` (see {@linkcode codedToolErrors}). */
export function toolFailure(message: string): CallToolResult {
  return codedError(
    /Invalid arguments|Input validation/i.test(message) ? "invalid_arguments" : "internal_error",
    truncate(message, 2000),
  );
}

/** How a server of `right` answers, built once: its per-request SDK server and its direct tool calls. */
export interface Serving {
  /** A fresh SDK server; pass the name of the tool when the request is a single `tools/call`. */
  make: (calledTool?: string) => McpServer;
  /** The same tools for {@linkcode directToolCall}. */
  direct: DirectServer;
}

/** The serving of callers holding `right`. */
export function servingFor(deps: AppDeps, right: Right): Serving {
  const provider = right === "lesen";
  const tools = provider ? providerTools(deps) : seekerTools(deps);
  const make = provider
    ? (calledTool?: string) => createProviderServer(deps, tools, calledTool)
    : (calledTool?: string) => createSeekerServer(deps, tools, calledTool);
  const byName = new Map(tools.tools.map((t) => [t.spec.name, t]));
  const identity = provider ? PROVIDER_SERVER_INFO : SEEKER_SERVER_INFO;
  return { make, direct: { identity, tools: byName, toolFailure } };
}
