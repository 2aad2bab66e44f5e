/**
 * A workspace listing's status: the line naming it (with the public link, its inquiries and viewings) and the status changes next to Save.
 */
import { type OfficeListing } from "../catalogue/office_listings.ts";
import type { Lang } from "./i18n.ts";
import { w, WORKSPACE } from "./workspace_common.tsx";

/**
 * The status changes next to Save: each submits the edit form with its edits, saved and changed in one action;
 * withdrawing asks first (a `<details>` that works without JavaScript).
 */
export function StatusButtons(p: { l: Lang; listing: OfficeListing }) {
  const { l, listing: x } = p;
  return (
    <>
      {x.status !== "published" && (
        <button type="submit" name="aktion" value="publish">{w(l, "savePublish")}</button>
      )}
      {x.status === "published" && (
        <button type="submit" name="aktion" value="reserve">{w(l, "saveReserve")}</button>
      )}
      {x.status !== "withdrawn" && (
        <details class="confirm">
          <summary>{w(l, "withdrawMore")}</summary>
          <p>{w(l, "withdrawConfirm")}</p>
          <button type="submit" name="aktion" value="withdraw">{w(l, "yesWithdraw")}</button>
        </details>
      )}
    </>
  );
}

/** The status line of a listing: its status, its public link when published, its inquiries and viewings. */
export function StatusBar(p: { l: Lang; listing: OfficeListing }) {
  const { l, listing: x } = p;
  return (
    <>
      <p>
        {w(l, "status")}: <strong data-status={x.status}>{w(l, x.status)}</strong>
        {x.status === "published" && (
          <>
            {" · "}
            <a href={`/objekte/${x.id}`}>/objekte/{x.id}</a>
          </>
        )}
      </p>
      <p>
        <a href={`${WORKSPACE}/anfragen?objekt=${x.id}`}>{w(l, "inquiries")}</a>
        {" · "}
        <a href={`${WORKSPACE}/termine?objekt=${x.id}`}>{w(l, "viewings")}</a>
      </p>
    </>
  );
}
