/**
 * Listing photos on the pages (issue 31, docs/contract.md §5.7): the gallery of the public listing page, the
 * thumbnail of a result card, and the placeholder by property type where a listing has no photo. No JavaScript:
 * every image is a `<picture>` with the WebP variants as `srcset` (the browser picks the width for the layout's
 * `sizes`) and the JPEG as the fallback `src`; each gallery photo links to its largest variant, so a keyboard or a
 * tap opens it at full size. The title image loads at once, every other image lazily. The placeholder is an
 * inline SVG: no request.
 */
import { type PhotoView, publishedPhotos } from "../photos/photos.ts";
import type { AppDeps } from "../deps.ts";
import type { Listing } from "../catalogue/listing.ts";
import type { Lang } from "./i18n.ts";
import { lt } from "./listing_texts.ts";
import { t } from "./i18n.ts";

/** The styles of galleries, card thumbnails and placeholders (part of the pages' stylesheet). */
export const PHOTO_STYLE = `
.gallery{margin:0 0 1.25rem}.gallery figure{margin:0}
.gallery .lead img{width:100%;height:auto;max-height:34rem;aspect-ratio:3/2;object-fit:cover;display:block;background:#eee}
.gallery .lead .placeholder{aspect-ratio:3/1;max-height:16rem}
.gallery ul{list-style:none;margin:.5rem 0 0;padding:0;display:grid;grid-template-columns:repeat(auto-fill,minmax(8.5rem,1fr));gap:.5rem}
.gallery ul img{width:100%;height:auto;aspect-ratio:4/3;object-fit:cover;display:block;background:#eee}
.gallery a{display:block}.gallery a:focus-visible{outline:3px solid #1a56db;outline-offset:2px}
.gallery .count{font-size:.9rem;color:#444;margin:.25rem 0 0}
article.card[data-listing-id]{display:grid;grid-template-columns:12rem 1fr;gap:1rem;align-items:start}article.card[data-listing-id]>*{min-width:0}
.card .thumb{display:block;text-decoration:none}
.card .thumb img{width:100%;height:auto;aspect-ratio:4/3;object-fit:cover;display:block;background:#eee}
.placeholder{display:flex;flex-direction:column;align-items:center;justify-content:center;gap:.25rem;background:#eef1f4;color:#5a6570;font-size:.85rem;aspect-ratio:4/3}
.placeholder svg{width:3.5rem;height:3.5rem}
@media (max-width:40rem){article.card[data-listing-id]{grid-template-columns:1fr;gap:.5rem}}
`;

/** The `srcset` of a photo's WebP variants ("/fotos/…-320.webp 320w, …"). */
export function webpSrcset(p: PhotoView): string {
  return p.varianten.filter((v) => v.format === "webp").map((v) => `${v.url} ${v.breite}w`).join(", ");
}

/** The photo's JPEG variant (else its largest variant): the `src` of browsers without WebP. */
function fallback(p: PhotoView) {
  return p.varianten.find((v) => v.format === "jpeg") ?? p.varianten.at(-1)!;
}

/** The largest WebP variant: what a gallery link opens. */
export function largest(p: PhotoView) {
  return p.varianten.filter((v) => v.format === "webp").at(-1) ?? fallback(p);
}

/** One photo as a `<picture>`: WebP candidates by width for `sizes`, the JPEG as `src`, its alt text. */
export function PhotoPicture(
  p: { photo: PhotoView; sizes: string; lazy: boolean; alt: string; priority?: boolean },
) {
  const src = fallback(p.photo);
  return (
    <picture>
      <source type="image/webp" srcset={webpSrcset(p.photo)} sizes={p.sizes} />
      <img
        src={src.url}
        width={p.photo.breite}
        height={p.photo.hoehe}
        alt={p.alt}
        loading={p.lazy ? "lazy" : undefined}
        decoding="async"
        fetchpriority={p.priority ? "high" : undefined}
      />
    </picture>
  );
}

/** The alt text of a photo: its own, else "<title> – Foto n". */
function altOf(l: Lang, p: PhotoView, title: string): string {
  return p.alt_text ?? `${title} – ${lt(l, "photoOf")} ${p.position + 1}`;
}

/** The gallery of the listing page: the title image large, every other photo as a lazy thumbnail below. */
export function ListingGallery(p: { l: Lang; listing: Listing; photos: PhotoView[] }) {
  const { l, photos } = p;
  const title = p.listing.title ?? t(l, "untitled");
  const [lead, ...rest] = photos;
  if (!lead) {
    return (
      <section class="gallery" aria-label={lt(l, "photos")}>
        <div class="lead">
          <Placeholder l={l} type={p.listing.property_type} />
        </div>
      </section>
    );
  }
  const thumbSizes = "(min-width: 62rem) 9.5rem, (min-width: 40rem) 25vw, 45vw";
  return (
    <section class="gallery" aria-label={lt(l, "photos")} id="fotos">
      <figure class="lead">
        <a href={largest(lead).url} title={lt(l, "openPhoto")}>
          <PhotoPicture
            photo={lead}
            sizes="(min-width: 62rem) 58rem, calc(100vw - 2rem)"
            lazy={false}
            priority
            alt={altOf(l, lead, title)}
          />
        </a>
      </figure>
      {rest.length > 0 && (
        <ul>
          {rest.map((photo) => (
            <li key={photo.foto_id}>
              <a href={largest(photo).url} title={lt(l, "openPhoto")}>
                <PhotoPicture photo={photo} sizes={thumbSizes} lazy alt={altOf(l, photo, title)} />
              </a>
            </li>
          ))}
        </ul>
      )}
      <p class="count">{photos.length} {lt(l, "photoCount")}</p>
    </section>
  );
}

/** The picture of a result card: its title image, or the placeholder of its property type. */
export function CardPhoto(p: { l: Lang; item: Listing; photo: PhotoView | undefined; eager?: boolean }) {
  const { l, item, photo } = p;
  return (
    <a class="thumb" href={`/objekte/${item.id}`} tabindex={-1} aria-hidden="true">
      {photo
        ? (
          <PhotoPicture
            photo={photo}
            sizes="(min-width: 40rem) 12rem, calc(100vw - 4rem)"
            lazy={!p.eager}
            alt=""
          />
        )
        : <Placeholder l={l} type={item.property_type} />}
    </a>
  );
}

/** The outline of each property type (24 × 24 view box). */
const SHAPES: Record<NonNullable<Listing["property_type"]> | "unknown", string> = {
  apartment: "M5 21V4h10v17M15 9h4v12M3 21h18M8 7h1M11 7h1M8 10h1M11 10h1M8 13h1M11 13h1M9 21v-3h2v3",
  house: "M3 11l9-7 9 7M5 9.5V21h14V9.5M10 21v-6h4v6",
  land: "M3 19l5-7 4 5 3-4 6 6zM16 7a2 2 0 1 0 0-.01",
  commercial: "M3 21V8l6 4V8l6 4V4h6v17zM7 17h2M12 17h2M17 17h2",
  unknown: "M4 5h16v14H4zM4 15l5-5 4 4 3-3 4 4",
};

/** The placeholder of a listing without photos: an outline of its property type and "Kein Foto". */
export function Placeholder(p: { l: Lang; type: Listing["property_type"] }) {
  const kind = p.type ? t(p.l, p.type) : "";
  return (
    <div class="placeholder" role="img" aria-label={[kind, lt(p.l, "noPhoto")].filter(Boolean).join(": ")}>
      <svg
        viewBox="0 0 24 24"
        fill="none"
        stroke="currentColor"
        stroke-width="1.3"
        stroke-linecap="round"
        stroke-linejoin="round"
        aria-hidden="true"
        focusable="false"
      >
        <path d={SHAPES[p.type ?? "unknown"]} />
      </svg>
      <span aria-hidden="true">{lt(p.l, "noPhoto")}</span>
    </div>
  );
}

/** The title images of the published `items` by listing id (one query), for their result cards. */
export async function cardPhotos(
  deps: Pick<AppDeps, "db">,
  items: Listing[],
): Promise<Map<string, PhotoView>> {
  const found = await publishedPhotos(deps, items.map((i) => i.id), { titleOnly: true });
  return new Map([...found].flatMap(([id, photos]) => photos[0] ? [[id, photos[0]] as const] : []));
}
