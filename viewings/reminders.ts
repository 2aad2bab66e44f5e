/**
 * viewing.upcoming: a viewing with guests is coming up, about a day (`24h`) and about an hour (`1h`) before.
 * Run every minute by a `Deno.cron`; safe to run in several processes at once.
 */
import { insertDueReminders } from "../db/viewings.ts";
import { recordEvent } from "../events/outbox.ts";
import { act, type ActDeps, SERVICE } from "../deps.ts";
import { whenDe } from "./text.ts";

const SATZ = {
  "24h": "beginnt in etwa einem Tag",
  "1h": "beginnt in etwa einer Stunde",
} as const;

/**
 * Writes viewing.upcoming for every open slot with at least one booked guest whose window has come: `24h` when
 * now ∈ [start − 24 h, start − 1 h), `1h` when now ∈ [start − 1 h, start). Each (slot, window, start) fires
 * exactly once, also with concurrent runs (a reminder row and its outbox row are written in one transaction,
 * the outbox row only when the reminder row was new); a moved slot fires again for its new start. Returns the
 * number of events written.
 */
export async function runViewingReminders(deps: ActDeps): Promise<number> {
  const written = await act(deps, SERVICE, async (a) => {
    const due = await insertDueReminders(a.tx, a.now);
    for (const r of due) {
      await recordEvent(a, {
        name: "viewing.upcoming",
        data: {
          termin_id: r.slot_id,
          objekt_id: r.listing_id,
          beginn: r.starts_at.toISOString(),
          fenster: r.fenster,
          satz: `Die Besichtigung am ${whenDe(r.starts_at)} ${SATZ[r.fenster]}.`,
        },
        owner: { office: r.office_id },
      });
    }
    return due.length;
  });
  if (written > 0) deps.log.log("info", "viewing reminders written", { count: written });
  return written;
}
