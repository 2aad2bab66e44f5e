/**
 * The workspace's photos of a listing (issue 31, docs/contract.md §4.13, §5.7): the photo section of the listing's
 * edit page and its own page `/anbieter/objekte/{id}/fotos` (where a refused upload is shown), upload of several
 * images at once (`multipart/form-data`), order, title image, alt text and delete (confirmed in a disclosure, no
 * JavaScript), and `/anbieter/fotos/{name}`: the office's own photos for these pages, drafts and withdrawn
 * listings included. Thin adapters over `photos/photos.ts`, the functions of the photo MCP tools; every change is
 * a CSRF-checked form and one action (`memberAct`); a refused upload stores nothing and names the image and why.
 */
import type { Context, Hono } from "hono";
import { raw } from "hono/html";
import { AppError } from "../errors.ts";
import { getOfficeListing } from "../catalogue/office_listings.ts";
import {
  addPhotos,
  ALT_TEXT_MAX,
  deletePhoto,
  listingPhotos,
  PHOTO_UPLOAD_BODY_MAX,
  PhotoRefused,
  type PhotoView,
  preparePhotos,
  updatePhoto,
} from "../photos/photos.ts";
import { parseVariantName, PHOTO_PATH, photoVariant } from "../photos/serving.ts";
import { mediaTypeIs } from "../routes/media_type.ts";
import type { AppEnv } from "../routes/env.ts";
import { langOfRequest, type PageCtx } from "./common.ts";
import { csrfOk, csrfToken } from "./csrf.ts";
import { csrfForm, errorPage } from "./form_checks.tsx";
import type { Lang } from "./i18n.ts";
import { CsrfField, Layout } from "./layout.tsx";
import { largest, PhotoPicture } from "./listing_gallery.tsx";
import { type ListingTextKey, lt } from "./listing_texts.ts";
import { memberAct, memberOf, notFound, WORKSPACE, WsPage } from "./workspace_common.tsx";

type C = Context<AppEnv>;

const BASE = `${WORKSPACE}/objekte`;
/** Where the workspace serves the office's own photo variants (any status of the listing). */
export const WORKSPACE_PHOTO_PATH = `${WORKSPACE}/fotos`;
/** The photo upload's path (its body may be larger than other requests', {@linkcode photoUploadBodyRule}). */
const UPLOAD = /^\/anbieter\/objekte\/[^/]+\/fotos\/?$/;

/** Adds the photo routes to the workspace app (mounted at `/anbieter`). */
export function workspacePhotoRoutes(app: Hono<AppEnv>, ctx: PageCtx): void {
  app.get("/fotos/:name", (c) => servePhoto(ctx, c));
  app.get("/objekte/:id/fotos", (c) => photosPage(ctx, c));
  app.post("/objekte/:id/fotos", (c) => upload(ctx, c));
  app.post("/objekte/:id/fotos/:photo", (c) => change(ctx, c));
}

/**
 * The body-limit rule of the upload (see `routes/middleware.ts` `bodyLimit`): POSTs to the upload path may carry
 * up to {@linkcode PHOTO_UPLOAD_BODY_MAX}; more answers a page saying so (413) instead of the JSON error.
 */
export const photoUploadBodyRule = {
  applies: (c: C) => c.req.method === "POST" && UPLOAD.test(c.req.path),
  max: PHOTO_UPLOAD_BODY_MAX,
  tooLarge: (c: C) => {
    const l = langOfRequest(c);
    return c.html(
      <Layout lang={l} title={lt(l, "uploadPhotos")}>
        <p class="error" role="alert" id="photo-problem">{lt(l, "tooLargeUpload")}</p>
        <p>
          <a href={c.req.path}>{lt(l, "managePhotos")}</a>
        </p>
      </Layout>,
      413,
    );
  },
};

/** A photo as the workspace shows it: its variants served under {@linkcode WORKSPACE_PHOTO_PATH}. */
function own(p: PhotoView): PhotoView {
  return {
    ...p,
    varianten: p.varianten.map((v) => ({ ...v, url: v.url.replace(PHOTO_PATH, WORKSPACE_PHOTO_PATH) })),
  };
}

/** The office's own variant: like `/fotos/…`, for any status, cached by this browser only. */
async function servePhoto(ctx: PageCtx, c: C) {
  const key = parseVariantName(c.req.param("name") ?? "");
  const found = key && await photoVariant(ctx.deps, key, { officeId: memberOf(c).officeId });
  if (!key || !found) return notFound(ctx, c);
  return c.body(found.bytes as Uint8Array<ArrayBuffer>, 200, {
    "content-type": key.mime,
    "cache-control": "private, max-age=31536000, immutable",
    "etag": `"${key.sha256}"`,
    "x-content-type-options": "nosniff",
  });
}

/** Why an upload or a change was refused, as the page says it. */
export type PhotoProblem =
  | { kind: "refused"; index: number; fileName: string | null; refusal: PhotoRefused["refusal"] }
  | { kind: "text"; key: ListingTextKey };

/** The problem of a refused photo call, or undefined for errors the page does not show (they are rethrown). */
function problemOf(e: AppError): PhotoProblem | undefined {
  if (e instanceof PhotoRefused) {
    return { kind: "refused", index: e.index, fileName: e.fileName, refusal: e.refusal };
  }
  const { field, reason } = e.facts;
  if (e.code === "unavailable") return { kind: "text", key: "imagesUnavailable" };
  if (field === "alt_text") return { kind: "text", key: "badAltText" };
  if (field === "fotos" && reason === "empty") return { kind: "text", key: "noneChosen" };
  if (field === "fotos" && reason === "too_many") {
    return { kind: "text", key: e.code === "conflict" ? "tooManyPhotos" : "tooManyAtOnce" };
  }
  return undefined;
}

/** The problem box above the photo forms. */
function ProblemBox(p: { l: Lang; problem: PhotoProblem | undefined }) {
  const { l, problem } = p;
  if (!problem) return null;
  const text = problem.kind === "text"
    ? lt(l, problem.key)
    : `${lt(l, "photoOf")} ${problem.index}${problem.fileName ? ` (${problem.fileName})` : ""}: ${
      lt(l, `refused_${problem.refusal}`)
    }.`;
  return (
    <div class="error" role="alert" id="photo-problem">
      <p>{text}</p>
      <p>{lt(l, "photoProblem")}</p>
    </div>
  );
}

/**
 * The photo section of a listing's edit page: the photos in order with their forms, then the upload form. An
 * async component: it reads the photos itself.
 */
export async function ListingPhotos(
  p: { ctx: PageCtx; c: C; l: Lang; listingId: string; csrf: string; problem?: PhotoProblem },
) {
  const { l, listingId, csrf } = p;
  const photos = (await listingPhotos(p.ctx.deps, memberOf(p.c).officeId, listingId)).map(own);
  const action = `${BASE}/${listingId}/fotos`;
  return (
    <section aria-labelledby="h-fotos" id="fotos">
      <h2 id="h-fotos">{lt(l, "photosOf")} ({photos.length})</h2>
      <ProblemBox l={l} problem={p.problem} />
      {photos.length === 0 ? <p>{lt(l, "noPhotos")}</p> : (
        <ol class="ws-photos">
          {photos.map((photo, i) => (
            <PhotoItem l={l} photo={photo} last={i === photos.length - 1} action={action} csrf={csrf} />
          ))}
        </ol>
      )}
      <form method="post" action={action} enctype="multipart/form-data" class="photo-upload">
        <CsrfField token={csrf} />
        <label for="fotos-dateien">{lt(l, "choosePhotos")}</label>
        <input
          id="fotos-dateien"
          name="fotos"
          type="file"
          multiple
          required
          accept="image/jpeg,image/png,image/webp"
          aria-describedby="fotos-hinweis"
        />
        <p class="hint" id="fotos-hinweis">{lt(l, "uploadHint")}</p>
        <button type="submit">{lt(l, "uploadPhotos")}</button>
      </form>
    </section>
  );
}

function PhotoItem(p: { l: Lang; photo: PhotoView; last: boolean; action: string; csrf: string }) {
  const { l, photo } = p;
  const to = `${p.action}/${photo.foto_id}`;
  const altId = `alt-${photo.foto_id}`;
  const button = (aktion: string, key: ListingTextKey) => (
    <form method="post" action={to}>
      <CsrfField token={p.csrf} />
      <button type="submit" name="aktion" value={aktion}>{lt(l, key)}</button>
    </form>
  );
  return (
    <li data-photo-id={photo.foto_id} data-position={photo.position}>
      <a href={largest(photo).url}>
        <PhotoPicture photo={photo} sizes="10rem" lazy={photo.position > 3} alt={photo.alt_text ?? ""} />
      </a>
      <div>
        {photo.titelbild && <strong class="badge title-badge">{lt(l, "titleImage")}</strong>}
        <form method="post" action={to}>
          <CsrfField token={p.csrf} />
          <label for={altId}>{lt(l, "altText")}</label>
          <input
            id={altId}
            name="alt_text"
            type="text"
            maxlength={ALT_TEXT_MAX}
            value={photo.alt_text ?? ""}
          />
          <button type="submit" name="aktion" value="alt">{lt(l, "saveAlt")}</button>
        </form>
        <div class="actions">
          {!photo.titelbild && button("title", "makeTitle")}
          {!photo.titelbild && button("up", "moveUp")}
          {!p.last && button("down", "moveDown")}
        </div>
        <details class="confirm">
          <summary>{lt(l, "deletePhoto")}</summary>
          <form method="post" action={to}>
            <CsrfField token={p.csrf} />
            <p>{lt(l, "confirmDelete")}</p>
            <button type="submit" name="aktion" value="delete" class="danger">{lt(l, "deleteNow")}</button>
          </form>
        </details>
      </div>
    </li>
  );
}

/** The styles of the workspace's photo section. */
const STYLE = `
.ws-photos{list-style:none;padding:0;margin:0 0 1rem}
.ws-photos>li{display:grid;grid-template-columns:10rem 1fr;gap:1rem;border-bottom:1px solid #ddd;padding:.75rem 0}
.ws-photos img{width:100%;height:auto;aspect-ratio:4/3;object-fit:cover;display:block}
.ws-photos label{margin-top:.25rem}.ws-photos .actions form{display:inline-block}
.ws-photos button{margin-top:.4rem}.title-badge{margin-left:0}
details.confirm summary{cursor:pointer;margin-top:.5rem;color:#9b1c1c}
button.danger{background:#9b1c1c;color:#fff;border:1px solid #9b1c1c}
@media (max-width:40rem){.ws-photos>li{grid-template-columns:6.5rem 1fr;gap:.75rem}}
`;

/** The photos page of a listing (also the answer of a refused upload or change, with `problem`). */
async function photosPage(ctx: PageCtx, c: C, problem?: PhotoProblem) {
  const l = langOfRequest(c);
  const m = memberOf(c);
  let title: string;
  try {
    const listing = await getOfficeListing(ctx.deps.db, m.officeId, c.req.param("id") ?? "");
    title = listing.title ?? listing.id;
  } catch (e) {
    if (e instanceof AppError && e.code === "not_found") return notFound(ctx, c);
    throw e;
  }
  const id = (c.req.param("id") ?? "").toLowerCase();
  return c.html(
    <WsPage ctx={ctx} c={c} title={`${lt(l, "photosOf")}: ${title}`} at="stock">
      <p>
        <a href={`${BASE}/${id}`}>{lt(l, "backToListing")}</a>
      </p>
      <PhotoSection ctx={ctx} c={c} l={l} listingId={id} csrf={csrfToken(c, ctx.secure)} problem={problem} />
    </WsPage>,
    problem ? 400 : 200,
  );
}

/** The section of the photo styles, for the edit page: the styles once, then the photos. */
export function PhotoSection(p: Parameters<typeof ListingPhotos>[0]) {
  return (
    <>
      <style>{raw(STYLE)}</style>
      <ListingPhotos {...p} />
    </>
  );
}

/** Runs a photo call; a refusal shows the photos page with the problem (400), an unknown listing the 404 page. */
async function tried(ctx: PageCtx, c: C, call: () => Promise<unknown>): Promise<Response | undefined> {
  try {
    await call();
    return undefined;
  } catch (e) {
    if (!(e instanceof AppError)) throw e;
    if (e.code === "not_found") return notFound(ctx, c);
    const problem = problemOf(e);
    if (!problem) throw e;
    return await photosPage(ctx, c, problem);
  }
}

/** POST `/objekte/{id}/fotos`: the chosen images, checked and derived, then stored in one action. */
async function upload(ctx: PageCtx, c: C) {
  const multipart = mediaTypeIs(c.req.header("content-type"), "multipart/form-data");
  const form = multipart ? await c.req.raw.formData().catch(() => undefined) : undefined;
  const token = form?.get("_csrf");
  if (!csrfOk(c, typeof token === "string" ? token : undefined, ctx.deps.config.baseUrl)) {
    return errorPage(c, "csrf", 403);
  }
  const m = memberOf(c);
  const id = c.req.param("id") ?? "";
  // Files a browser sends for an empty file input have no name and no bytes: none chosen.
  const files = (form?.getAll("fotos") ?? []).filter((f): f is File => f instanceof File)
    .filter((f) => f.name !== "" || f.size > 0);
  const failed = await tried(ctx, c, async () => {
    await listingPhotos(ctx.deps, m.officeId, id); // another office's or an unknown listing: 404 before any work
    const uploads = await Promise.all(
      files.map(async (f) => ({ bytes: new Uint8Array(await f.arrayBuffer()), name: f.name })),
    );
    const ready = await preparePhotos(uploads);
    await memberAct(ctx, m, (a) => addPhotos(a, id, ready));
  });
  return failed ?? c.redirect(`${BASE}/${id.toLowerCase()}?ok=saved#fotos`, 303);
}

/** POST `/objekte/{id}/fotos/{photo}`: alt text, title image, up, down or delete. */
async function change(ctx: PageCtx, c: C) {
  const f = await csrfForm(ctx, c);
  if (f instanceof Response) return f;
  const m = memberOf(c);
  const id = c.req.param("id") ?? "";
  const photoId = c.req.param("photo") ?? "";
  const failed = await tried(ctx, c, async () => {
    const photos = await listingPhotos(ctx.deps, m.officeId, id);
    const photo = photos.find((p) => p.foto_id === photoId.toLowerCase());
    if (!photo) throw new AppError("not_found");
    const at = photo.position;
    await memberAct(ctx, m, (a) => {
      if (f.aktion === "alt") return updatePhoto(a, photo.foto_id, { altText: f.alt_text ?? "" });
      if (f.aktion === "title") return updatePhoto(a, photo.foto_id, { position: 0 });
      if (f.aktion === "up") return updatePhoto(a, photo.foto_id, { position: Math.max(0, at - 1) });
      if (f.aktion === "down") return updatePhoto(a, photo.foto_id, { position: at + 1 });
      if (f.aktion === "delete") return deletePhoto(a, photo.foto_id);
      throw new AppError("not_found");
    });
  });
  return failed ?? c.redirect(`${BASE}/${id.toLowerCase()}?ok=saved#fotos`, 303);
}
