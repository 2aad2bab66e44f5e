/**
 * MCP tools of the provider server for the office's own stock: list, read, create, change, publish, withdraw and
 * reserve listings. Thin adapters over `catalogue/stock.ts`; the provider's `get_property` replaces the public one.
 */
import { z } from "zod";
import { pagingFields } from "../../catalogue/listing.ts";
import {
  createListing,
  getOfficeListing,
  LISTING_STATUSES,
  listingFieldsShape,
  type ListingStatusChange,
  listOfficeListings,
  type OfficeListing,
  officeListingSchema,
  type OfficeListingsPage,
  officeListingsPageSchema,
  publishListing,
  reserveListing,
  updateListing,
  withdrawListing,
} from "../../catalogue/office_listings.ts";
import { officeOf } from "../../auth/principal.ts";
import { actAs } from "./acting.ts";
import type { Action, AppDeps } from "../../deps.ts";
import type { ToolAnnotations } from "@modelcontextprotocol/server";
import { ADDS, addTool, DESTROYS, READ_ONLY, type ToolTarget, UPDATES } from "./define.ts";
import { detailsText, listingText } from "./get_property.ts";
import { listingFiles, listingFilesSchema } from "../../documents/files.ts";
import { absolutePhotoUrls, listingPhotos, photoSchema } from "../../photos/photos.ts";

const STATUS_DE: Record<OfficeListing["status"], string> = {
  draft: "Entwurf",
  published: "veröffentlicht",
  withdrawn: "zurückgezogen",
  reserved: "reserviert",
};

const idInput = z.object({ id: z.string().max(100).describe("Listing id (UUID) of your office.") });

/** A short German text of the office's view of a listing. */
export function officeListingText(l: OfficeListing, lead?: string): string {
  return [
    lead ?? null,
    `Status: ${STATUS_DE[l.status]}${l.reference ? ` · Referenz: ${l.reference}` : ""}`,
    listingText(l),
    ...detailsText(l),
  ].filter((s): s is string => s !== null).join("\n");
}

/** A short German text of a page of the office's stock. */
export function officeListingsPageText(p: OfficeListingsPage): string {
  const lines = p.items.map((i) =>
    `- ${i.title ?? "(ohne Titel)"} [${STATUS_DE[i.status]}]${i.reference ? ` Ref. ${i.reference}` : ""}, ` +
    `${[i.postal_code, i.city].filter(Boolean).join(" ") || "ohne Ort"} (ID ${i.id})`
  );
  return [`${p.total} Objekte im Bestand, Seite ${p.page}.`, ...lines].join("\n");
}

/** The text of a withdrawal or reservation: the listing and the rejections the agent prepared. */
function availabilityText(r: ListingStatusChange, lead: string): string {
  const n = r.rejections.length;
  const drafted = n === 0
    ? ""
    : ` ${n === 1 ? "Eine Absage wartet" : `${n} Absagen warten`} auf Ihre Freigabe ` +
      "(list_proposals).";
  return officeListingText(r.listing, `${lead}${drafted}`);
}

/** Registers the stock tools (`list_properties`, `get_property`, `create_property`, `update_property`, …). */
export function registerOfficeListingTools(server: ToolTarget, deps: AppDeps): void {
  addTool(server, deps, {
    name: "list_properties",
    title: "Bestand auflisten / List stock",
    description:
      "Listet die Objekte Ihres Büros in jedem Status (Entwurf, veröffentlicht, zurückgezogen, reserviert), zuletzt " +
      "geänderte zuerst; optional nur ein Status. Für den Überblick über den eigenen Bestand. Liefert eine Seite " +
      "{items, total, page, page_size}. / Lists your office's listings in every status (draft, published, " +
      "withdrawn, reserved), most recently updated first, optionally of one status. Use it to review your own stock. " +
      "Returns a page {items, total, page, page_size}.",
    input: z.object({
      status: z.enum(LISTING_STATUSES).optional().describe("Only listings of this status."),
      ...pagingFields,
    }),
    output: officeListingsPageSchema,
    annotations: READ_ONLY,
  }, async (args, principal) => {
    const page = await listOfficeListings(deps.db, officeOf(principal), args);
    return { data: page, text: officeListingsPageText(page) };
  });

  addTool(server, deps, {
    name: "get_property",
    title: "Eigenes Objekt abrufen / Get own listing",
    description:
      "Liefert ein Objekt Ihres Büros in jedem Status mit allen Feldern: öffentliche Felder, Status, " +
      "Referenz, Beschreibung, Anbieter und Kontakt (nur für Ihr Büro sichtbar) und Zeitstempel. Objekte anderer " +
      "Büros gibt es hier nicht (not_found). / Returns one listing of your office in any status with every field: " +
      "the public fields, status, reference, description, provider and contact (visible to your office only) and " +
      "timestamps. Other offices' listings answer not_found.",
    input: idInput,
    output: officeListingSchema.extend({
      dateien: listingFilesSchema,
      fotos: z.array(photoSchema).describe("Photos in order (upload_photo); position 0 is the title image."),
    }),
    annotations: READ_ONLY,
  }, async ({ id }, principal) => {
    const listing = await getOfficeListing(deps.db, officeOf(principal), id);
    const [dateien, photos] = await Promise.all([
      listingFiles(deps.db, officeOf(principal), listing.id),
      listingPhotos(deps, officeOf(principal), listing.id),
    ]);
    const fotos = absolutePhotoUrls(photos, deps.config.baseUrl);
    return { data: { ...listing, dateien, fotos }, text: officeListingText(listing) };
  });

  addTool(server, deps, {
    name: "create_property",
    title: "Objekt anlegen / Create listing",
    description:
      "Legt ein neues Objekt Ihres Büros als Entwurf an (nicht öffentlich, bis publish_property). Alle " +
      "Felder sind optional; die Referenz muss im Büro eindeutig sein (sonst conflict). Liefert das Objekt mit " +
      "allen Feldern. / Creates a new listing of your office as a draft (not public until publish_property). " +
      "Every field is optional; the reference must be unique within the office (else conflict). Returns the " +
      "listing with every field.",
    input: z.strictObject(listingFieldsShape),
    output: officeListingSchema,
    annotations: ADDS,
  }, async (args, principal) => {
    const listing = await actAs(deps, principal, (a) => createListing(a, args));
    return { data: listing, text: officeListingText(listing, "Entwurf angelegt.") };
  });

  addTool(server, deps, {
    name: "update_property",
    title: "Objekt ändern / Update listing",
    description:
      "Ändert Felder eines Objekts Ihres Büros: nur die angegebenen Felder, null löscht ein Feld. Ein " +
      "veröffentlichtes Objekt bleibt veröffentlicht und ändert sich sofort öffentlich; Titel, Objektart, " +
      "Vermarktungsart und Ort oder PLZ dürfen dann nicht gelöscht werden (conflict). Liefert das Objekt mit allen " +
      "Feldern. / Changes fields of a listing of your office: only the given fields, null clears one. A published " +
      "listing stays published and its public view changes at once; its title, property type, transaction type " +
      "and city or postal code cannot be cleared then (conflict). Returns the listing with every field.",
    input: z.strictObject({ id: idInput.shape.id, ...listingFieldsShape }),
    output: officeListingSchema,
    annotations: UPDATES,
  }, async ({ id, ...fields }, principal) => {
    const listing = await actAs(deps, principal, (a) => updateListing(a, id, fields));
    return { data: listing, text: officeListingText(listing, "Objekt gespeichert.") };
  });

  addStatusTool(
    server,
    deps,
    {
      name: "publish_property",
      title: "Objekt veröffentlichen / Publish listing",
      description:
        "Veröffentlicht ein Objekt Ihres Büros (Entwurf, zurückgezogen oder reserviert) im öffentlichen Katalog. " +
        "Nötig sind Titel, Objektart, Vermarktungsart und Ort oder PLZ, sonst conflict mit den fehlenden Feldern. " +
        "Ein schon veröffentlichtes Objekt bleibt unverändert. Liefert das Objekt. / Publishes a listing of your " +
        "office (draft, withdrawn or reserved) in the public catalogue. It needs title, property_type, transaction_type and " +
        "city or postal_code, else conflict naming the missing fields. A published listing stays as it is. " +
        "Returns the listing.",
      annotations: UPDATES,
    },
    (a, id) => publishListing(a, id).then((listing) => ({ listing, rejections: [] })),
    "Objekt ist veröffentlicht.",
  );

  addStatusTool(
    server,
    deps,
    {
      name: "withdraw_property",
      title: "Objekt zurückziehen / Withdraw listing",
      description:
        "Zieht ein Objekt Ihres Büros sofort aus dem öffentlichen Katalog zurück (danach öffentlich nicht " +
        "mehr abrufbar); es bleibt in Ihrem Bestand und kann wieder veröffentlicht werden. Der Assistent des " +
        "Dienstes bereitet für jede laufende Anfrage eine Absage zur Freigabe vor (list_proposals). Liefert das " +
        "Objekt. / Withdraws a listing of your office from the public catalogue at once (publicly gone afterwards); " +
        "it stays in your stock and can be published again. The service's agent prepares a rejection for each " +
        "ongoing inquiry, awaiting your approval (list_proposals). Returns the listing.",
      annotations: DESTROYS,
    },
    withdrawListing,
    "Objekt ist zurückgezogen.",
  );

  addStatusTool(
    server,
    deps,
    {
      name: "reserve_property",
      title: "Objekt reservieren / Reserve listing",
      description:
        "Markiert ein veröffentlichtes Objekt Ihres Büros als reserviert: es verschwindet sofort aus dem " +
        "öffentlichen Katalog und nimmt keine neuen Anfragen an, bleibt aber in Ihrem Bestand (Status reserviert) " +
        "und kann mit publish_property wieder veröffentlicht werden. Der Assistent des Dienstes bereitet für jede " +
        "laufende Anfrage eine Absage zur Freigabe vor (list_proposals). Entwürfe und zurückgezogene Objekte: " +
        "conflict. Liefert das Objekt. / Marks a published listing of your office as reserved: it leaves the public " +
        "catalogue at once and takes no new inquiries, but stays in your stock (status reserved) and can be " +
        "published again with publish_property. The service's agent prepares a rejection for each ongoing inquiry, " +
        "awaiting your approval (list_proposals). Drafts and withdrawn listings: conflict. Returns the listing.",
      annotations: UPDATES,
    },
    reserveListing,
    "Objekt ist reserviert.",
  );
}

/**
 * Registers a tool that changes the status of one listing of the caller's office with `change` and returns the
 * listing, saying `lead` and how many rejections the agent drafted.
 */
function addStatusTool(
  server: ToolTarget,
  deps: AppDeps,
  tool: { name: string; title: string; description: string; annotations: ToolAnnotations },
  change: (a: Action, id: string) => Promise<ListingStatusChange>,
  lead: string,
): void {
  addTool(
    server,
    deps,
    { ...tool, input: idInput, output: officeListingSchema },
    async ({ id }, principal) => {
      const r = await actAs(deps, principal, (a) => change(a, id));
      return { data: r.listing, text: availabilityText(r, lead) };
    },
  );
}
