/** German renderings of viewing times for event sentences (`satz`) and tool texts. */

const DATE = new Intl.DateTimeFormat("de-DE", {
  timeZone: "Europe/Berlin",
  day: "2-digit",
  month: "2-digit",
  year: "numeric",
});
const TIME = new Intl.DateTimeFormat("de-DE", {
  timeZone: "Europe/Berlin",
  hour: "2-digit",
  minute: "2-digit",
});

/** The clock time of a moment in German local time (Europe/Berlin), e.g. `15:30`. */
export function clockDe(d: Date): string {
  return TIME.format(d);
}

/** A moment as German local time (Europe/Berlin), e.g. `14.03.2026 um 15:30 Uhr`. */
export function whenDe(d: Date): string {
  return `${DATE.format(d)} um ${TIME.format(d)} Uhr`;
}

/** A slot's span as German local time, e.g. `14.03.2026 um 15:30 Uhr bis 16:00 Uhr`. */
export function spanDe(start: Date, end: Date): string {
  const sameDay = DATE.format(start) === DATE.format(end);
  return `${whenDe(start)} bis ${sameDay ? `${TIME.format(end)} Uhr` : whenDe(end)}`;
}
