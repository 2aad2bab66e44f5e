/**
 * The listing page `/objekte/{id}` (facts, map link, location baseline, the inquiry form) and the inquiry POST with its confirmation page. Rules live in `catalogue/`, `valuation/` and `inquiries/`; these handlers parse, call and render.
 */
import type { Context } from "hono";
import { askedPrice, decimal, pricePerSqmText } from "../catalogue/german.ts";
import { perSqmLabel } from "./search_texts.ts";
import { type Listing } from "../catalogue/listing.ts";
import { getPublicListing } from "../catalogue/search.ts";
import { AppError } from "../errors.ts";
import { type Inquirer, sendInquiry } from "../inquiries/inquiries.ts";
import { MessageField } from "./ui_forms.tsx";
import type { AppEnv } from "../routes/env.ts";
import { type BaselineAnswer, locationBaselineOf } from "../valuation/baseline.ts";
import { listingBaselineRequest } from "../valuation/input.ts";
import { csrfOk, csrfToken } from "./csrf.ts";
import { type Lang, t, type TextKey } from "./i18n.ts";
import { CsrfField, Layout } from "./layout.tsx";
import { langOfRequest, pageAct, type PageCtx, readForm } from "./common.ts";
import type { Actor } from "../deps.ts";

type C = Context<AppEnv>;

/** A field of the inquiry form. */
type InquiryField = "name" | "email" | "phone" | "message";

/** The message naming each inquiry field and what it needs. */
const INQUIRY_FIELD_ERROR: Record<InquiryField, TextKey> = {
  name: "inquiryFieldName",
  email: "inquiryFieldEmail",
  phone: "inquiryFieldPhone",
  message: "inquiryFieldMessage",
};

/** The id of the inquiry form's error box (the wrong field's `aria-describedby`). */
const INQUIRY_ERROR_ID = "anfrage-fehler";
import { messagePage, notFoundPage, type Person, PersonLayout, personOf } from "./page_person.tsx";
import { Baseline } from "./baseline_box.tsx";
import { BackToSearch, SearchBackField } from "./back_link.tsx";
import { searchBack, searchOfRequest } from "./return_path.ts";
import { ListingGallery } from "./listing_gallery.tsx";
import { listingExtras, ListingMore } from "./listing_details.tsx";

/** What the inquiry form shows again after a failed POST: the message, the wrong field, the values sent. */
interface InquiryState {
  error?: TextKey;
  field?: InquiryField | undefined;
  status?: 400 | 429;
  values?: { name?: string; email?: string; phone?: string; message?: string };
  /** The search the seeker came from, carried through a refused POST. */
  back?: string | undefined;
}

export async function listingPage(ctx: PageCtx, c: C, state: InquiryState) {
  const person = await personOf(ctx, c);
  const listing = await findListing(ctx, c.req.param("id") ?? "");
  if (!listing) return notFoundPage(ctx, c, person);
  const l = langOfRequest(c);
  const csrf = csrfToken(c, ctx.secure);
  const baseline = await baselineOf(ctx, listing);
  const back = state.back ?? searchOfRequest(c, ctx.deps.config.baseUrl);
  const extras = await listingExtras(ctx.deps, listing.id);
  return c.html(
    <PersonLayout
      c={c}
      l={l}
      secure={ctx.secure}
      title={listing.title ?? t(l, "untitled")}
      person={person}
      csrf={csrf}
    >
      <BackToSearch l={l} back={back} />
      {listing.beispiel && <p class="warning" id="beispiel">{t(l, "beispielNote")}</p>}
      <ListingGallery l={l} listing={listing} photos={extras.photos} />
      <ListingFacts l={l} listing={listing} />
      <ListingMore l={l} listing={listing} details={extras.details} />
      <h2>{t(l, "location")}</h2>
      <MapLink l={l} listing={listing} />
      <h2>{t(l, "baselineTitle")}</h2>
      <Baseline l={l} baseline={baseline} rent={listing.transaction_type === "rent"} />
      <section id="anfrage">
        <h2>{t(l, "inquiryTitle")}</h2>
        <InquiryForm l={l} listing={listing} person={person} csrf={csrf} state={{ ...state, back }} />
      </section>
    </PersonLayout>,
    state.status ?? 200,
  );
}

/** The published listing of a path id, or undefined for an unknown, unpublished or malformed one. */
async function findListing(ctx: PageCtx, id: string): Promise<Listing | undefined> {
  try {
    return await getPublicListing(ctx.deps.db, id);
  } catch (e) {
    if (e instanceof AppError && e.code === "not_found") return undefined;
    throw e;
  }
}

/** The location baseline of the listing's place and kind; no transaction type means no basis. */
async function baselineOf(ctx: PageCtx, listing: Listing): Promise<BaselineAnswer | undefined> {
  const req = listingBaselineRequest(listing);
  return req && await locationBaselineOf(ctx.deps.db, req);
}

function ListingFacts(p: { l: Lang; listing: Listing }) {
  const { l, listing: x } = p;
  const unknown = t(l, "unknown");
  const priceLabel = x.transaction_type === "rent"
    ? "rentPerMonth"
    : x.transaction_type === "buy"
    ? "purchasePrice"
    : "price";
  return (
    <dl class="facts">
      <dt>{t(l, "city")}</dt>
      <dd id="f-city">{[x.postal_code, x.city].filter(Boolean).join(" ") || unknown}</dd>
      <dt>{t(l, "propertyType")}</dt>
      <dd id="f-property-type">{x.property_type ? t(l, x.property_type) : unknown}</dd>
      <dt>{t(l, "transactionType")}</dt>
      <dd id="f-transaction-type">{x.transaction_type ? t(l, x.transaction_type) : unknown}</dd>
      <dt>{t(l, priceLabel)}</dt>
      <dd id="f-price">{askedPrice(x.asked_price, x.transaction_type, l) || unknown}</dd>
      <dt>{perSqmLabel(l, x.transaction_type)}</dt>
      <dd id="f-price-per-sqm">{pricePerSqmText(x, l) || unknown}</dd>
      <dt>{t(l, "rooms")}</dt>
      <dd id="f-rooms">{decimal(x.total_rooms, l) || unknown}</dd>
      <dt>{t(l, "area")}</dt>
      <dd id="f-area">{x.square_meters !== null ? `${decimal(x.square_meters, l)} m²` : unknown}</dd>
    </dl>
  );
}

/** The OpenStreetMap address of a point. */
export function mapUrl(lat: number, lng: number): string {
  return `https://www.openstreetmap.org/?mlat=${lat}&mlon=${lng}#map=16/${lat}/${lng}`;
}

function MapLink(p: { l: Lang; listing: Listing }) {
  const { latitude: lat, longitude: lng } = p.listing;
  if (lat === null || lng === null) return <p>{t(p.l, "noMap")}</p>;
  return (
    <p>
      <a id="map-link" href={mapUrl(lat, lng)} rel="noopener noreferrer">{t(p.l, "showMap")}</a> ({lat},{" "}
      {lng})
    </p>
  );
}

/** The contact fields of a guest's inquiry: label, input type, whether required, longest value. */
const CONTACT_INPUTS = [
  { id: "name", label: "name", type: "text", required: true, maxlength: 200 },
  { id: "email", label: "email", type: "email", required: true, maxlength: 320 },
  { id: "phone", label: "phoneOptional", type: "tel", required: false, maxlength: 50 },
] as const;

function InquiryForm(
  p: { l: Lang; listing: Listing; person: Person | undefined; csrf: string; state: InquiryState },
) {
  const { l, person, state } = p;
  if (person && person.role !== "seeker") {
    return <p class="notice" id="provider-note">{t(l, "providerNote")}</p>;
  }
  const v = state.values ?? {};
  const marks = (f: InquiryField) =>
    state.field === f ? { "aria-invalid": "true", "aria-describedby": INQUIRY_ERROR_ID } : {};
  return (
    <form method="post" action={`/objekte/${p.listing.id}/anfrage#anfrage`}>
      {state.error && <p class="error" role="alert" id={INQUIRY_ERROR_ID}>{t(l, state.error)}</p>}
      <CsrfField token={p.csrf} />
      <SearchBackField back={state.back} />
      {person
        ? (
          <p id="sending-as">
            {t(l, "sendingAs")} <strong>{person.name}</strong> ({person.email})
          </p>
        )
        : (
          <>
            <p>{t(l, "anonymousNote")}</p>
            {CONTACT_INPUTS.map((x) => (
              <>
                <label for={x.id}>{t(l, x.label)}</label>
                <input
                  id={x.id}
                  name={x.id}
                  type={x.type}
                  required={x.required}
                  maxlength={x.maxlength}
                  value={v[x.id] ?? ""}
                  {...marks(x.id)}
                />
              </>
            ))}
          </>
        )}
      <MessageField label={t(l, "message")} rows={6} value={v.message} marks={marks("message")} />
      <button type="submit">{t(l, "sendInquiry")}</button>
    </form>
  );
}

/** The inquirer and message of the form: a signed-in seeker's account, else the name, e-mail and phone given. */
function inquiryInput(
  f: Record<string, string>,
  person: Person | undefined,
): { inquirer: Inquirer; message: string } {
  const message = f.message ?? "";
  if (person) {
    return {
      inquirer: { seekerId: person.userId, name: person.name, email: person.email, phone: null },
      message,
    };
  }
  return {
    inquirer: { seekerId: null, name: f.name ?? "", email: f.email ?? "", phone: f.phone ?? "" },
    message,
  };
}

export async function inquire(ctx: PageCtx, c: C) {
  const f = await readForm(c);
  if (!csrfOk(c, f._csrf, ctx.deps.config.baseUrl)) {
    return messagePage(c, { title: "badRequest", text: "csrf", status: 403 }, ctx.secure);
  }
  const person = await personOf(ctx, c);
  const id = c.req.param("id") ?? "";
  if (!await findListing(ctx, id)) return notFoundPage(ctx, c, person);
  if (person && person.role !== "seeker") {
    return messagePage(c, { title: "inquiryTitle", text: "providerNote", status: 403, person }, ctx.secure);
  }
  const values = { name: f.name, email: f.email, phone: f.phone, message: f.message };
  const back = searchBack(f.suche);
  const input = inquiryInput(f, person);
  try {
    const actor: Actor = person ? { kind: "seeker", userId: person.userId } : { kind: "guest" };
    const sent = await pageAct(ctx, actor, (a) => sendInquiry(a, { listingId: id, ...input }));
    const suche = back ? `suche=${encodeURIComponent(back)}` : "";
    return c.redirect(
      person
        ? `/konto/anfragen/${sent.inquiryId}?gesendet=anfrage${suche && `&${suche}`}`
        : `/objekte/${id.toLowerCase()}/anfrage/gesendet${suche && `?${suche}`}`,
      303,
    );
  } catch (e) {
    if (!(e instanceof AppError)) throw e;
    if (e.code === "not_found") return notFoundPage(ctx, c, person);
    if (e.code === "rate_limited") {
      return listingPage(ctx, c, { error: "inquiryLimited", status: 429, values, back });
    }
    if (e.code === "invalid_request") {
      const field = inquiryField(e.facts.field);
      const error = field ? INQUIRY_FIELD_ERROR[field] : "inquiryInvalid";
      return listingPage(ctx, c, { error, field, status: 400, values, back });
    }
    throw e;
  }
}

/** The inquiry field an `invalid_request` of `sendInquiry` names, if any. */
function inquiryField(name: string | undefined): InquiryField | undefined {
  return name === "name" || name === "email" || name === "phone" || name === "message" ? name : undefined;
}

export async function inquirySentPage(ctx: PageCtx, c: C) {
  const person = await personOf(ctx, c);
  const listing = await findListing(ctx, c.req.param("id") ?? "");
  if (!listing) return notFoundPage(ctx, c, person);
  const l = langOfRequest(c);
  return c.html(
    <Layout
      lang={l}
      title={t(l, "inquirySentTitle")}
      signedIn={!!person}
      csrf={person && csrfToken(c, ctx.secure)}
    >
      <p class="notice" role="status">{t(l, "inquirySent")}</p>
      <p>
        <a href={`/objekte/${listing.id}`}>{listing.title ?? t(l, "untitled")}</a>
      </p>
      <BackToSearch l={l} back={searchOfRequest(c, ctx.deps.config.baseUrl)} />
    </Layout>,
  );
}
