/**
 * A validated tariff snapshot compiled into exact internal units: prices in US cents (minor units)
 * per kWh / per hour / per session, VAT as a fraction, step sizes in Wh or ms, restrictions in Wh,
 * W, A, ms and wall-clock day numbers.
 */
import { DAY_MS, dayNumber, timeOfDayMs } from "./time-zone";
import { type Rational, exact, int, mul, rat } from "./rational";
import {
  DAYS_OF_WEEK,
  type DimensionType,
  type TariffElement,
  type TariffSnapshot,
  instantOf,
  simpleRateOf,
} from "./tariff-schema";

const MINOR_PER_MAJOR = rat(100n);

export interface CompiledComponent {
  readonly type: DimensionType;
  readonly element: number;
  /** Cents per kWh (ENERGY), per hour (TIME, PARKING_TIME) or per session (FLAT), excl. VAT. */
  readonly price: Rational;
  /** VAT as a fraction (8.25% -> 33/400); zero when the component has no `vat`. */
  readonly vat: Rational;
  /** Cents per Wh, per ms or per session: what one unit of billed volume costs excl. VAT. */
  readonly unitPrice: Rational;
  /** 1 + vat. */
  readonly vatFactor: Rational;
  /** Wh for ENERGY, ms for TIME and PARKING_TIME. */
  readonly step: Rational;
  readonly stepSize: number;
}

export interface CompiledRestrictions {
  readonly startTod?: number; // ms after local midnight, inclusive
  readonly endTod?: number; // exclusive
  /** end_time before start_time: the window runs past midnight. */
  readonly wraps: boolean;
  readonly startDay?: number; // day number, inclusive
  readonly endDay?: number; // exclusive
  readonly minWh?: Rational;
  readonly maxWh?: Rational;
  readonly minCurrentA?: Rational;
  readonly maxCurrentA?: Rational;
  readonly minPowerW?: Rational;
  readonly maxPowerW?: Rational;
  readonly minDurationMs?: number;
  readonly maxDurationMs?: number;
  readonly days?: ReadonlySet<number>; // 0 = Monday
  /** The element prices reservations only (see CompiledTariff.reservationElements). */
  readonly reservation: "RESERVATION" | "RESERVATION_EXPIRES" | null;
}

export interface CompiledElement {
  readonly index: number;
  readonly components: Readonly<Partial<Record<DimensionType, CompiledComponent>>>;
  readonly restrictions: CompiledRestrictions | null;
}

export interface CompiledTariff {
  readonly complex: boolean;
  readonly timeZone: string;
  readonly elements: readonly CompiledElement[];
  /** Elements without a reservation restriction: the only ones that price a session. */
  readonly sessionElements: readonly CompiledElement[];
  /**
   * The elements that price a reservation, in the order they are tried: `RESERVATION` ones for a
   * used reservation; for an expired one `RESERVATION_EXPIRES` ones first, then `RESERVATION` ones
   * (OCPI 2.2.1: an expired reservation's time is priced by the RESERVATION_EXPIRES element when
   * both have one; its example 17 bills the reserved time at the RESERVATION rate plus the
   * expiry fee).
   */
  readonly reservationElements: {
    readonly used: readonly CompiledElement[];
    readonly expired: readonly CompiledElement[];
  };
  /** rules.flat_fee_without_energy `waive`: a no_energy session bills no FLAT and no min_price. */
  readonly waiveFlatWithoutEnergy: boolean;
  /** Bounds on the session total in cents. */
  readonly minPrice?: { excl: bigint; incl?: bigint };
  readonly maxPrice?: { excl: bigint; incl?: bigint };
  /** Pricing needs to know when the session started (see PricingError transaction_start_unknown). */
  readonly timeDependent: boolean;
  /** OCPI start_date_time / end_date_time as epoch ms: [from, until); a session starting outside is not priced. */
  readonly validity: { readonly from?: number; readonly until?: number } | null;
  /** Where a restriction can change state, so periods must be split there. */
  readonly boundaries: {
    readonly timesOfDay: readonly number[];
    readonly localTime: boolean;
    readonly durationsMs: readonly number[];
    readonly energiesWh: readonly Rational[];
    /** Some element restricts power, so periods need their average power. */
    readonly power: boolean;
  };
}

const TIME_DEPENDENT_RESTRICTIONS = [
  "start_time",
  "end_time",
  "start_date",
  "end_date",
  "day_of_week",
  "min_duration",
  "max_duration",
] as const;

const optional = <T, U>(v: T | undefined, f: (v: T) => U): U | undefined =>
  v === undefined ? undefined : f(v);

function compileRestrictions(element: TariffElement): CompiledRestrictions | null {
  const r = element.restrictions;
  if (!r) return null;
  const startTod = optional(r.start_time, timeOfDayMs);
  const endTod = optional(r.end_time, timeOfDayMs);
  const kwhToWh = (v: number) => mul(exact(v), rat(1000n));
  return {
    startTod,
    endTod,
    wraps: startTod !== undefined && endTod !== undefined && endTod < startTod,
    startDay: optional(r.start_date, dayNumber),
    endDay: optional(r.end_date, dayNumber),
    minWh: optional(r.min_kwh, kwhToWh),
    maxWh: optional(r.max_kwh, kwhToWh),
    minCurrentA: optional(r.min_current, exact),
    maxCurrentA: optional(r.max_current, exact),
    minPowerW: optional(r.min_power, kwhToWh),
    maxPowerW: optional(r.max_power, kwhToWh),
    minDurationMs: optional(r.min_duration, (s) => s * 1000),
    maxDurationMs: optional(r.max_duration, (s) => s * 1000),
    days: optional(r.day_of_week, (days) => new Set(days.map((d) => DAYS_OF_WEEK.indexOf(d)))),
    reservation: r.reservation ?? null,
  };
}

const UNITS_PER_PRICE_UNIT: Record<DimensionType, Rational> = {
  ENERGY: rat(1000n), // price per kWh, volume in Wh
  TIME: rat(3_600_000n), // price per hour, volume in ms
  PARKING_TIME: rat(3_600_000n),
  FLAT: rat(1n), // price per session, volume in sessions
};

function component(
  type: DimensionType,
  element: number,
  price: Rational,
  vat: Rational,
  stepSize: number,
  step: Rational,
): CompiledComponent {
  const units = UNITS_PER_PRICE_UNIT[type];
  return {
    type,
    element,
    price,
    vat,
    unitPrice: rat(price.n * units.d, price.d * units.n),
    vatFactor: rat(vat.n + vat.d, vat.d),
    step,
    stepSize,
  };
}

function compileElement(element: TariffElement, index: number): CompiledElement {
  const components: Partial<Record<DimensionType, CompiledComponent>> = {};
  for (const c of element.price_components) {
    if (components[c.type]) continue; // validation refuses repeats; first wins regardless
    const perUnit = c.type === "ENERGY" ? 1 : 1000; // step_size is Wh or seconds; time runs in ms
    components[c.type] = component(
      c.type,
      index,
      mul(exact(c.price), MINOR_PER_MAJOR),
      c.vat === undefined ? rat(0n) : mul(exact(c.vat), rat(1n, 100n)),
      c.step_size,
      int(c.step_size * perUnit),
    );
  }
  return { index, components, restrictions: compileRestrictions(element) };
}

/** The single ENERGY element a simple tariff is equivalent to. */
function simpleElement(rateMinorPerKwh: number): CompiledElement {
  const energy = component("ENERGY", 0, int(rateMinorPerKwh), rat(0n), 1, int(1));
  return { index: 0, components: { ENERGY: energy }, restrictions: null };
}

/**
 * Whether a 2026-10-14 client's view (`rate_minor_per_kwh`) misses part of the price: elements,
 * bounds, or a validity window (outside it the tariff prices nothing).
 */
export function isComplex(tariff: TariffSnapshot): boolean {
  if (tariff.min_price || tariff.max_price) return true;
  if (tariff.start_date_time !== undefined || tariff.end_date_time !== undefined) return true;
  return tariff.elements !== undefined && simpleRateOf(tariff.elements) === null;
}

export function compileTariff(tariff: TariffSnapshot): CompiledTariff {
  const source = tariff.elements ?? [];
  const elements = tariff.elements
    ? tariff.elements.map(compileElement)
    : [simpleElement(tariff.rate_minor_per_kwh ?? 0)];
  const tods = new Set<number>();
  const durations = new Set<number>();
  const energies = new Map<string, Rational>();
  let localTime = false;
  let power = false;
  const from = optional(tariff.start_date_time, instantOf);
  const until = optional(tariff.end_date_time, instantOf);
  const validity = from === undefined && until === undefined ? null : { from, until };
  let timeDependent = validity !== null;
  for (const e of elements) {
    // Reservation elements price reserved time, whose instants an input always states: only
    // session elements make the session's start matter.
    const prices = e.restrictions?.reservation ? "reservation" : "session";
    if (prices === "session" && (e.components.TIME || e.components.PARKING_TIME)) {
      timeDependent = true;
    }
    const r = e.restrictions;
    if (!r) continue;
    const raw = source[e.index]?.restrictions ?? {};
    if (prices === "session" && TIME_DEPENDENT_RESTRICTIONS.some((k) => raw[k] !== undefined)) {
      timeDependent = true;
    }
    if (r.startTod !== undefined) tods.add(r.startTod);
    if (r.endTod !== undefined) tods.add(r.endTod);
    if (r.startTod !== undefined || r.endTod !== undefined || r.days || r.startDay !== undefined) {
      localTime = true;
    }
    if (r.endDay !== undefined) localTime = true;
    for (const ms of [r.minDurationMs, r.maxDurationMs]) if (ms !== undefined) durations.add(ms);
    for (const wh of [r.minWh, r.maxWh]) if (wh) energies.set(`${wh.n}/${wh.d}`, wh);
    if (r.minPowerW || r.maxPowerW) power = true;
  }
  if (localTime) tods.add(0); // local midnight: dates and days change there
  const cents = (v: number) => {
    const c = mul(exact(v), MINOR_PER_MAJOR);
    if (c.d !== 1n) throw new RangeError(`min_price/max_price must be whole cents: ${v}`);
    return c.n;
  };
  const bound = (p: { excl_vat: number; incl_vat?: number } | undefined) =>
    p && { excl: cents(p.excl_vat), incl: optional(p.incl_vat, cents) };
  const restrictedTo = (kind: CompiledRestrictions["reservation"]) =>
    elements.filter((e) => (e.restrictions?.reservation ?? null) === kind);
  const used = restrictedTo("RESERVATION");
  return {
    complex: isComplex(tariff),
    timeZone: tariff.time_zone ?? "UTC",
    elements,
    sessionElements: restrictedTo(null),
    waiveFlatWithoutEnergy: tariff.rules?.flat_fee_without_energy === "waive",
    reservationElements: { used, expired: [...restrictedTo("RESERVATION_EXPIRES"), ...used] },
    minPrice: bound(tariff.min_price),
    maxPrice: bound(tariff.max_price),
    timeDependent,
    validity,
    boundaries: {
      timesOfDay: [...tods].sort((a, b) => a - b).filter((t) => t < DAY_MS),
      localTime,
      durationsMs: [...durations].sort((a, b) => a - b),
      energiesWh: [...energies.values()],
      power,
    },
  };
}
