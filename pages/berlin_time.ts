/**
 * Berlin wall-clock dates and times of the workspace's forms: a date and time typed in Berlin as an ISO instant,
 * and an instant as the Berlin date and time a form shows (summer and winter time by the platform's time zones).
 */

/** The UTC offset of Berlin at the UTC instant `ms`, as "+01:00" or "+02:00". */
function berlinOffset(ms: number): string {
  const name = new Intl.DateTimeFormat("en-US", { timeZone: "Europe/Berlin", timeZoneName: "longOffset" })
    .formatToParts(new Date(ms)).find((x) => x.type === "timeZoneName")?.value ?? "GMT+01:00";
  return name === "GMT" ? "+00:00" : name.slice(3);
}

/**
 * The ISO 8601 timestamp (with Berlin's offset) of a Berlin wall-clock `date` (YYYY-MM-DD) and `time` (HH:MM),
 * plus `addMinutes`; undefined when either is malformed.
 */
export function berlinIso(date: string, time: string, addMinutes = 0): string | undefined {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(date) || !/^\d{2}:\d{2}$/.test(time)) return undefined;
  const asUtc = Date.parse(`${date}T${time}:00Z`);
  if (Number.isNaN(asUtc)) return undefined;
  const guess = asUtc - offsetMs(berlinOffset(asUtc));
  const at = asUtc - offsetMs(berlinOffset(guess)) + addMinutes * 60_000;
  return `${new Date(at + offsetMs(berlinOffset(at))).toISOString().slice(0, 19)}${berlinOffset(at)}`;
}

function offsetMs(offset: string): number {
  const m = /^([+-])(\d{2}):(\d{2})$/.exec(offset);
  if (!m) return 0;
  return (m[1] === "-" ? -1 : 1) * (Number(m[2]) * 60 + Number(m[3])) * 60_000;
}

/** The Berlin wall-clock date (YYYY-MM-DD) and time (HH:MM) of the ISO instant `iso`. */
export function berlinParts(iso: string): { date: string; time: string } {
  const ms = Date.parse(iso);
  const local = new Date(ms + offsetMs(berlinOffset(ms))).toISOString();
  return { date: local.slice(0, 10), time: local.slice(11, 16) };
}
