/**
 * Wall-clock times in a named IANA zone, as a `datetime-local` field gives them
 * ("2026-11-26T18:00"), turned into instants and back, with the browser's Intl data only.
 */

/** The zone's offset from UTC at an instant, in milliseconds (London in summer: 3,600,000). */
function offsetAt(instant: number, timeZone: string): number {
  const parts = new Intl.DateTimeFormat("en-US", {
    timeZone,
    hourCycle: "h23",
    year: "numeric",
    month: "2-digit",
    day: "2-digit",
    hour: "2-digit",
    minute: "2-digit",
    second: "2-digit",
  }).formatToParts(new Date(instant));
  const n = (type: string) => Number(parts.find((p) => p.type === type)?.value);
  const wall = Date.UTC(n("year"), n("month") - 1, n("day"), n("hour"), n("minute"), n("second"));
  return wall - Math.floor(instant / 1000) * 1000;
}

/**
 * The instant (ISO 8601, UTC) of a wall-clock time in a zone, or null for a malformed one. A time
 * the clocks skip (spring forward) lands just after the gap; a repeated one takes its first pass.
 */
export function wallToIso(wall: string, timeZone: string): string | null {
  const m = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})$/.exec(wall);
  if (!m) return null;
  const asUtc = Date.UTC(+m[1]!, +m[2]! - 1, +m[3]!, +m[4]!, +m[5]!);
  if (Number.isNaN(asUtc)) return null;
  const first = asUtc - offsetAt(asUtc, timeZone);
  const second = asUtc - offsetAt(first, timeZone);
  return new Date(Math.min(first, second)).toISOString();
}

/** An instant as the zone's wall clock, in `datetime-local` form (minutes). */
export function isoToWall(instant: Date, timeZone: string): string {
  const local = new Date(instant.getTime() + offsetAt(instant.getTime(), timeZone));
  return local.toISOString().slice(0, 16);
}

/**
 * A moment as a person reads it, never ambiguous: a four-digit year, the month in words and the
 * zone named ("Nov 26, 2026, 1:47:00 PM GMT"). In `timeZone` when given and known, else in the
 * runtime's zone; in `locale`, else the runtime's; "—" when there is no moment.
 */
export function moment(
  iso: string | null | undefined,
  timeZone?: string | null,
  locale?: string,
): string {
  if (!iso) return "—";
  const at = new Date(iso);
  if (Number.isNaN(at.getTime())) return "—";
  return momentFormat(timeZone ?? undefined, locale).format(at);
}

const momentFormats = new Map<string, Intl.DateTimeFormat>();

function momentFormat(timeZone: string | undefined, locale: string | undefined) {
  const key = `${locale ?? ""} ${timeZone ?? ""}`;
  let f = momentFormats.get(key);
  if (!f) {
    const style = { dateStyle: "medium", timeStyle: "long" } as const;
    try {
      f = new Intl.DateTimeFormat(locale, timeZone ? { ...style, timeZone } : style);
    } catch {
      f = new Intl.DateTimeFormat(locale, style); // a zone (or locale) this runtime does not know
    }
    momentFormats.set(key, f);
  }
  return f;
}
