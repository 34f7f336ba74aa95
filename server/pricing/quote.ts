/**
 * Quotes and descriptions of a tariff: the price of a given energy over a given duration (charging
 * evenly from the start to the end, as the tariff quote route and simulated bills need), a
 * human-readable `pricing_summary`, and `is_complex`.
 */
import { type PriceOptions, priceSession } from "./engine";
import { PricingError } from "./errors";
import type { PriceResult } from "./price-result";
import { type Rational, exact, mul, rat, toFixed } from "./rational";
import { type Instant, instantMs } from "./session";
import { isComplex } from "./tariff-model";
import {
  DAYS_OF_WEEK,
  type PriceComponent,
  type TariffRestrictions,
  type TariffSnapshot,
  instantOf,
} from "./tariff-schema";

export { isComplex };

export interface QuoteInput {
  energy_wh: number;
  duration_seconds: number;
  start_at: Instant;
  /** A used reservation from `start_at` for this long; charging then starts when it ends. */
  reservation_seconds?: number;
}

/**
 * Price of `energy_wh` drawn evenly over `duration_seconds`, all charging, from `start_at` (or,
 * after a reservation of `reservation_seconds` from `start_at`, from when it ends).
 */
export function quoteSession(
  tariff: TariffSnapshot,
  input: QuoteInput,
  options?: PriceOptions,
): PriceResult {
  if (!Number.isSafeInteger(input.energy_wh) || input.energy_wh < 0) {
    throw new PricingError("session_invalid", "energy_wh must be a non-negative integer", {
      field: "energy_wh",
    });
  }
  if (!Number.isFinite(input.duration_seconds) || input.duration_seconds < 0) {
    throw new PricingError("session_invalid", "duration_seconds must not be negative", {
      field: "duration_seconds",
    });
  }
  const reservationSeconds = input.reservation_seconds ?? 0;
  if (!Number.isFinite(reservationSeconds) || reservationSeconds < 0) {
    throw new PricingError("session_invalid", "reservation_seconds must not be negative", {
      field: "reservation_seconds",
    });
  }
  const reservedFrom = instantMs(input.start_at, "start_at");
  const start = reservedFrom + Math.round(reservationSeconds * 1000);
  const end = start + Math.round(input.duration_seconds * 1000);
  return priceSession(
    tariff,
    {
      method: "meter_values",
      started_at: start,
      stopped_at: end,
      readings: [
        { at: start, energy_wh: 0 },
        { at: end, energy_wh: input.energy_wh },
      ],
      reservation:
        input.reservation_seconds === undefined
          ? null
          : { started_at: reservedFrom, ended_at: start, expired: false },
    },
    options,
  );
}

/** "$0.25", "$0.0125": dollars with 2 to 4 decimals, from an exact amount in dollars. */
function dollars(amount: Rational): string {
  const [whole = "0", fraction = ""] = toFixed(amount, 4).split(".");
  return `$${whole}.${fraction.replace(/0+$/, "").padEnd(2, "0")}`;
}

function duration(seconds: number): string {
  if (seconds % 3600 === 0) return `${seconds / 3600} h`;
  if (seconds % 60 === 0) return `${seconds / 60} min`;
  return `${seconds} s`;
}

const DAY_ABBREVIATIONS = ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"];

function days(list: readonly (typeof DAYS_OF_WEEK)[number][]): string {
  const idx = [...new Set(list.map((d) => DAYS_OF_WEEK.indexOf(d)))].sort((a, b) => a - b);
  if (idx.length === 7) return "every day";
  const name = (i: number) => DAY_ABBREVIATIONS[i] ?? "?";
  const first = idx[0] ?? 0;
  const last = idx[idx.length - 1] ?? 0;
  if (idx.length > 2 && last - first === idx.length - 1) return `${name(first)}–${name(last)}`;
  return idx.map(name).join(", ");
}

function range(lo: number | undefined, hi: number | undefined, unit: string): string | null {
  if (lo !== undefined && hi !== undefined) return `${lo}–${hi} ${unit}`;
  if (lo !== undefined) return `from ${lo} ${unit}`;
  if (hi !== undefined) return `below ${hi} ${unit}`;
  return null;
}

const RESERVATION_TEXT = {
  RESERVATION: "reservations",
  RESERVATION_EXPIRES: "expired reservations",
} as const;

function restrictionText(r: TariffRestrictions | undefined): string {
  if (!r) return "";
  const parts: (string | null)[] = [];
  if (r.start_time && r.end_time) parts.push(`${r.start_time}–${r.end_time}`);
  else if (r.start_time) parts.push(`from ${r.start_time}`);
  else if (r.end_time) parts.push(`until ${r.end_time}`);
  if (r.day_of_week) parts.push(days(r.day_of_week));
  if (r.start_date) parts.push(`from ${r.start_date}`);
  if (r.end_date) parts.push(`before ${r.end_date}`);
  parts.push(range(r.min_kwh, r.max_kwh, "kWh"));
  parts.push(range(r.min_power, r.max_power, "kW"));
  parts.push(range(r.min_current, r.max_current, "A"));
  // A zero minimum restricts nothing, so it says nothing.
  if (r.min_duration) parts.push(`after ${duration(r.min_duration)}`);
  if (r.max_duration !== undefined) parts.push(`first ${duration(r.max_duration)}`);
  if (r.reservation) parts.push(RESERVATION_TEXT[r.reservation]);
  const text = parts.filter((p): p is string => p !== null).join(", ");
  return text ? ` (${text})` : "";
}

function componentText(c: PriceComponent, reservation: boolean): string {
  const price = dollars(exact(c.price));
  const vat = c.vat ? ` +${c.vat}% VAT` : "";
  if (reservation && (c.type === "TIME" || c.type === "FLAT")) {
    if (c.type === "FLAT") return `${price} per reservation${vat}`;
    const step = c.step_size > 1 ? ` in steps of ${duration(c.step_size)}` : "";
    return `${price} per hour reserved${step}${vat}`;
  }
  switch (c.type) {
    case "ENERGY":
      return `${price} per kWh${c.step_size > 1 ? ` in steps of ${c.step_size} Wh` : ""}${vat}`;
    case "TIME":
    case "PARKING_TIME": {
      const what = c.type === "TIME" ? "charging" : "idle";
      const step = c.step_size > 1 ? ` in steps of ${duration(c.step_size)}` : "";
      return `${price} per hour ${what}${step}${vat}`;
    }
    case "FLAT":
      return `${price} per session${vat}`;
  }
}

/** "2027-01-01 00:00 UTC" (seconds only when not zero). */
function utc(dateTime: string): string {
  const iso = new Date(instantOf(dateTime)).toISOString();
  return `${iso.slice(0, 10)} ${iso.slice(11, iso.slice(17, 19) === "00" ? 16 : 19)} UTC`;
}

function validityText(t: TariffSnapshot): string {
  const from = t.start_date_time === undefined ? "" : ` from ${utc(t.start_date_time)}`;
  const until = t.end_date_time === undefined ? "" : ` until ${utc(t.end_date_time)}`;
  return from || until ? ` For sessions starting${from}${until}.` : "";
}

/** One line a person can read, e.g. "$0.30 per kWh" or the elements in order of precedence. */
export function pricingSummary(tariff: TariffSnapshot): string {
  if (!tariff.elements) {
    const rate = `${dollars(mul(rat(tariff.rate_minor_per_kwh ?? 0), rat(1n, 100n)))} per kWh`;
    const validity = validityText(tariff);
    return validity ? `${rate}.${validity}` : rate;
  }
  const parts = tariff.elements.map(
    (e) =>
      e.price_components
        .map((c) => componentText(c, e.restrictions?.reservation !== undefined))
        .join(" + ") + restrictionText(e.restrictions),
  );
  const bounds: string[] = [];
  if (tariff.min_price) bounds.push(`minimum ${dollars(exact(tariff.min_price.excl_vat))}`);
  if (tariff.max_price) bounds.push(`maximum ${dollars(exact(tariff.max_price.excl_vat))}`);
  if (bounds.length) parts.push(`${bounds.join(", ")} per session excl. VAT`);
  if (tariff.rules?.flat_fee_without_energy === "waive") {
    parts.push("no session fee or minimum when no energy is drawn");
  }
  const zone = tariff.time_zone ? ` Local times in ${tariff.time_zone}.` : "";
  return `${parts.join("; ")}.${zone}${validityText(tariff)}`;
}

/** "$7.43" from integer cents; a negative amount as "-$0.50". */
function money(minor: number): string {
  const text = dollars(mul(rat(Math.abs(minor)), rat(1n, 100n)));
  return minor < 0 ? `-${text}` : text;
}

/** "1 h 30 min", "45 min", "20 s", "0 min". */
function elapsed(seconds: number): string {
  const s = Math.round(seconds);
  if (s > 0 && s < 60) return `${s} s`;
  const h = Math.floor(s / 3600);
  const m = Math.round((s % 3600) / 60);
  if (h && m) return `${h} h ${m} min`;
  return h ? `${h} h` : `${m} min`;
}

/** "20 kWh", "7.5 kWh", "0.001 kWh". */
function kwh(wh: number): string {
  return `${(wh / 1000).toFixed(3).replace(/\.?0+$/, "")} kWh`;
}

const DIMENSION_NAMES: Record<keyof PriceResult["dimensions"], string> = {
  energy: "energy",
  time: "charging time",
  parking_time: "idle time",
  flat: "session fee",
  reservation: "reservation",
  reservation_fee: "reservation fee",
};

/**
 * One line a person can read about a priced session, e.g. "20 kWh over 1 h (1 h charging) after
 * 15 min reserved: $7.20 incl. VAT, $6.00 excl. VAT. Energy $5.00, charging time $0.75,
 * reservation $0.25." Amounts per dimension are excl. VAT; dimensions that cost nothing are left out.
 */
export function priceSummary(result: PriceResult): string {
  const a = result.activity;
  const span = (Date.parse(a.ended_at) - Date.parse(a.started_at)) / 1000;
  const activity = [
    a.charging_seconds ? `${elapsed(a.charging_seconds)} charging` : null,
    a.idle_seconds ? `${elapsed(a.idle_seconds)} idle` : null,
    a.waiting_seconds ? `${elapsed(a.waiting_seconds)} waiting` : null,
  ].filter((p): p is string => p !== null);
  const reserved = a.reservation;
  const what =
    reserved?.status === "expired"
      ? `Reservation of ${elapsed(reserved.seconds)} expired without charging`
      : `${kwh(result.energy_wh)} over ${elapsed(span)}` +
        (activity.length ? ` (${activity.join(", ")})` : "") +
        (reserved ? ` after ${elapsed(reserved.seconds)} reserved` : "");
  const head = `${what}: ${money(result.total.incl_vat_minor)} incl. VAT, ${money(result.total.excl_vat_minor)} excl. VAT.`;
  const parts = (Object.keys(DIMENSION_NAMES) as (keyof typeof DIMENSION_NAMES)[])
    .filter((d) => result.dimensions[d].excl_vat_minor !== 0)
    .map((d) => `${DIMENSION_NAMES[d]} ${money(result.dimensions[d].excl_vat_minor)}`);
  const bound = result.price_bound;
  if (bound.applied === "min_price") {
    parts.push(`minimum price adds ${money(bound.excl_vat_minor)}`);
  } else if (bound.applied === "max_price") {
    parts.push(`maximum price takes off ${money(-bound.excl_vat_minor)}`);
  }
  if (a.reason === "no_energy") parts.push("no energy drawn, so no charging time");
  if (!parts.length) return head;
  const tail = parts.join(", ");
  return `${head} ${tail.charAt(0).toUpperCase()}${tail.slice(1)}.`;
}
