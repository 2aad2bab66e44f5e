/** The link back to the search a seeker came from, with its filters kept (`pages/return_path.ts`). */
import { type Lang, t } from "./i18n.ts";
import { searchHref } from "./return_path.ts";

/** "← Zur Objektsuche" to `/objekte?<back>` (plain `/objekte` without a search to go back to). */
export function BackToSearch(p: { l: Lang; back: string | undefined }) {
  return (
    <p class="back">
      <a id="back-to-search" href={searchHref(p.back)}>← {t(p.l, "backToSearch")}</a>
    </p>
  );
}

/** The hidden field that carries the search back through a form (nothing without one). */
export function SearchBackField(p: { back: string | undefined }) {
  return p.back ? <input type="hidden" name="suche" value={p.back} /> : null;
}
