/**
 * Local (wall-clock) time in an IANA time zone without a date library. "Wall" values are
 * milliseconds on a UTC-like axis (Date.UTC of the local calendar fields), so local midnight is a
 * multiple of DAY_MS and weekday/date arithmetic is plain integer arithmetic.
 *
 * For one pricing call the zone's UTC offsets over the session are read once from Intl into a
 * small table of transitions; after that every conversion is arithmetic.
 */
export const DAY_MS = 86_400_000;
const SAMPLE_MS = 6 * 3_600_000; // assumes no zone changes offset and back within 6 hours
const MARGIN_MS = 2 * DAY_MS;

export function isIanaTimeZone(value: string): boolean {
  if (value !== "UTC" && !value.includes("/")) return false;
  try {
    new Intl.DateTimeFormat("en-US", { timeZone: value });
    return true;
  } catch {
    return false;
  }
}

const formatters = new Map<string, Intl.DateTimeFormat>();

function formatter(timeZone: string): Intl.DateTimeFormat {
  let f = formatters.get(timeZone);
  if (!f) {
    f = new Intl.DateTimeFormat("en-US", {
      timeZone,
      hourCycle: "h23",
      year: "numeric",
      month: "numeric",
      day: "numeric",
      hour: "numeric",
      minute: "numeric",
      second: "numeric",
    });
    formatters.set(timeZone, f);
  }
  return f;
}

/**
 * Offsets already read from Intl, by zone and second: reading one costs microseconds, and the
 * sampling grid below is aligned, so sessions on the same days read the same instants. A memo of a
 * pure function (bounded; cleared when large).
 */
const offsetMemo = new Map<string, number>();
const OFFSET_MEMO_LIMIT = 100_000;

/** Offset (wall minus UTC) in ms at an instant, read from Intl. */
function intlOffset(timeZone: string, instant: number): number {
  const seconds = Math.floor(instant / 1000) * 1000;
  const key = `${timeZone} ${seconds}`;
  const known = offsetMemo.get(key);
  if (known !== undefined) return known;
  const offset = readOffset(timeZone, seconds);
  if (offsetMemo.size >= OFFSET_MEMO_LIMIT) offsetMemo.clear();
  offsetMemo.set(key, offset);
  return offset;
}

function readOffset(timeZone: string, seconds: number): number {
  const fields: Record<string, number> = {};
  for (const part of formatter(timeZone).formatToParts(new Date(seconds))) {
    if (part.type !== "literal") fields[part.type] = Number(part.value);
  }
  const wall = Date.UTC(
    fields.year ?? 1970,
    (fields.month ?? 1) - 1,
    fields.day ?? 1,
    fields.hour ?? 0,
    fields.minute ?? 0,
    fields.second ?? 0,
  );
  return wall - seconds;
}

interface OffsetSpan {
  readonly from: number; // first instant with this offset (-Infinity for the first span)
  readonly offset: number;
}

export interface ZoneClock {
  readonly timeZone: string;
  /** Instants (UTC ms) in the covered range where the offset changes. */
  readonly transitions: readonly number[];
  offsetAt(instant: number): number;
  wallAt(instant: number): number;
  /** Every instant whose wall time is `wall`: none in a spring-forward gap, two in a fall-back overlap. */
  instantsOfWall(wall: number): number[];
}

/** A clock for instants in [fromMs, toMs] (plus a margin of two days either side). */
export function zoneClock(timeZone: string, fromMs: number, toMs: number): ZoneClock {
  const spans: OffsetSpan[] = [];
  if (timeZone === "UTC") {
    spans.push({ from: -Infinity, offset: 0 });
  } else {
    const hi = toMs + MARGIN_MS;
    let prevT = Math.floor((fromMs - MARGIN_MS) / SAMPLE_MS) * SAMPLE_MS; // aligned: see offsetMemo
    let prevO = intlOffset(timeZone, prevT);
    spans.push({ from: -Infinity, offset: prevO });
    while (prevT < hi) {
      const t = prevT + SAMPLE_MS;
      if (intlOffset(timeZone, t) === prevO) {
        prevT = t;
        continue;
      }
      // The offset changed in (prevT, t]: narrow to its first millisecond, then scan on from
      // there (so a second change before t is found too).
      let a = prevT;
      let b = t;
      while (b - a > 1) {
        const mid = Math.floor((a + b) / 2);
        if (intlOffset(timeZone, mid) === prevO) a = mid;
        else b = mid;
      }
      prevT = b;
      prevO = intlOffset(timeZone, b);
      spans.push({ from: b, offset: prevO });
    }
  }
  const offsets = [...new Set(spans.map((s) => s.offset))];
  const transitions = spans.slice(1).map((s) => s.from);

  function offsetAt(instant: number): number {
    for (let i = spans.length - 1; i > 0; i--) {
      const span = spans[i];
      if (span && instant >= span.from) return span.offset;
    }
    return spans[0]?.offset ?? 0;
  }

  return {
    timeZone,
    transitions,
    offsetAt,
    wallAt: (instant) => instant + offsetAt(instant),
    instantsOfWall(wall) {
      const found = new Set<number>();
      for (const o of offsets) if (offsetAt(wall - o) === o) found.add(wall - o);
      return [...found].sort((a, b) => a - b);
    },
  };
}

/** Day number (days since 1970-01-01) of a YYYY-MM-DD date. */
export function dayNumber(date: string): number {
  const [y = 0, m = 1, d = 1] = date.split("-").map(Number);
  return Date.UTC(y, m - 1, d) / DAY_MS;
}

/** ISO weekday of a day number: 0 = Monday ... 6 = Sunday. */
export function weekdayOf(day: number): number {
  return (((day + 3) % 7) + 7) % 7; // 1970-01-01 was a Thursday
}

/** Milliseconds after local midnight of an "HH:MM" time. */
export function timeOfDayMs(time: string): number {
  const [h = 0, m = 0] = time.split(":").map(Number);
  return (h * 60 + m) * 60_000;
}
