/**
 * The documents section of a workspace listing page: what was uploaded and read (values under German labels), and the PDF upload form.
 */
import { FILE_SORTS } from "../events/catalogue.ts";
import { listingFiles } from "../documents/files.ts";
import { when } from "./common.ts";
import type { Lang } from "./i18n.ts";
import { CsrfField } from "./layout.tsx";
import { Opt, w, WORKSPACE } from "./workspace_common.tsx";
import { documentValue } from "./document_values.ts";

/** The documents of listing `listingId`: each with its state and the values read, then the upload form. */
export function Documents(
  p: { l: Lang; listingId: string; files: Awaited<ReturnType<typeof listingFiles>>; csrf: string },
) {
  const { l } = p;
  return (
    <section aria-labelledby="h-docs">
      <h2 id="h-docs">{w(l, "documents")}</h2>
      {p.files.length === 0
        ? <p>{w(l, "none")}</p>
        : p.files.map((f) => (
          <div class="card" data-file-id={f.datei_id} data-file-status={f.status}>
            <strong>{f.name}</strong> · {w(l, f.sorte)} · <span>{w(l, f.status)}</span> ·{" "}
            {when(l, f.hochgeladen_am)}
            {f.fehler && <p class="error" data-fehler={f.fehler}>{w(l, f.fehler)}</p>}
            {f.hinweis && <p class="warning">{f.hinweis}</p>}
            {Object.keys(f.angaben).length > 0 && (
              <dl class="facts" aria-label={w(l, "readValues")}>
                {Object.entries(f.angaben).map(([k, val]) => {
                  const shown = documentValue(l, k, val);
                  return (
                    <>
                      <dt>{shown.label}</dt>
                      <dd data-angabe={k}>{shown.text}</dd>
                    </>
                  );
                })}
              </dl>
            )}
          </div>
        ))}
      <form
        method="post"
        action={`${WORKSPACE}/objekte/${p.listingId}/dokumente`}
        enctype="multipart/form-data"
      >
        <CsrfField token={p.csrf} />
        <label for="datei">{w(l, "file")}</label>
        <input id="datei" name="datei" type="file" accept="application/pdf" required />
        <label for="sorte">{w(l, "sorte")}</label>
        <select id="sorte" name="sorte">
          {FILE_SORTS.map((s) => <Opt key={s} value={s} label={w(l, s)} />)}
        </select>
        <button type="submit">{w(l, "upload")}</button>
      </form>
    </section>
  );
}
