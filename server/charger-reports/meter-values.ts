import {
  type Rational,
  ONE,
  add,
  cmp,
  div,
  mul,
  rat,
  roundHalfUp,
  toFixed,
} from "../pricing/rational";
import { DECIMALS } from "../charging/kwh-from-wh";

/**
 * One OCPP MeterValue (1.6 or 2.x) normalized into the meter sample of spec section 6.
 *
 * Arithmetic is exact (bigint rationals, never floating point): a charger's reading is taken
 * as the decimal it wrote ("0.5005", or a JSON number's shortest decimal form), scaled by the
 * 2.x multiplier (a power of ten) and the unit, summed or averaged, and rounded once at the end.
 *
 * Output format (one rule for every decimal string): exactly three decimals, rounded half up
 * (towards +infinity, as in pricing): `energy_kwh` "12.346" (Wh precision, always
 * `energy_wh` / 1000 exactly), `power_kw` "7.200" (W), `current_a` "16.000" (mA),
 * `voltage_v` "230.333" (mV), `soc_percent` "80.000". `energy_wh` is an integer.
 *
 * Rules (spec section 6, "Meter sample data"), and the decisions the spec leaves open:
 * - The measurand defaults to Energy.Active.Import.Register. Reported: that register, Power.Active.Import,
 *   Current.Import, Voltage, SoC; every other measurand is ignored (export, reactive,
 *   interval, offered, temperature, ...).
 * - Units (case-insensitive): energy Wh (the default) or kWh; power W (default) or kW; current A;
 *   voltage V; SoC Percent (or "%"). A value in any other unit reads as unreadable (null): we do not
 *   guess what "varh" or a custom unit means. The 2.x multiplier scales the value in its own unit
 *   (2.1: "it does not specify a conversion between units").
 * - Phases. A value without `phase` is the overall value and wins over per-phase values. With only
 *   per-phase values, the phases are L1, L2, L3; "L1-N" (measured between L1 and neutral) is the
 *   same quantity as "L1" for every measurand, and is used for a phase only when "L1" itself is not
 *   reported, so nothing counts twice. Energy and power are summed over the phases reported;
 *   `current_a` is the highest phase current; `voltage_v` the average phase (line-to-neutral)
 *   voltage. Line-to-line values (L1-L2, L2-L3, L3-L1) and N (neutral) are not phase values and
 *   are ignored, so a meter that reports only line-to-line voltages gives `voltage_v` null.
 * - Location. Outlet (the OCPP default when absent) is used when the measurand is reported there;
 *   otherwise the location of the first value of that measurand (e.g. SoC from the EV). Values of
 *   one measurand from different locations are never mixed.
 * - OCPP 1.6 values with `format: "SignedData"` are signed blobs, not readings: ignored.
 * - A reading is a decimal in any notation: "12.5", "1.2345E4", and 2.x's JSON numbers, which
 *   JSON writes in exponent form below 10^-6 and from 10^21 (5.960464477539063e-8); the exponent
 *   has at most three digits. It is read exactly and rounded once, to the three decimals kept, so
 *   a reading below half a thousandth (a current of 6e-8 A, a SoC of 1e-300 %) reads "0.000".
 * - A value that is not a decimal number (garbage, "", "NaN", "0x10", an unusable multiplier,
 *   or a magnitude of 10^15 or more in the reported unit) makes its field null; a sum, maximum
 *   or average with one unreadable part is null too, never a partial figure. The sample is still
 *   recorded with its other fields. Nothing here throws on charger input
 *   (ocpp/exponent-readings.test.ts).
 * - `context`: Transaction.End if any sampled value has it, else Transaction.Begin, else the first
 *   context given, else the OCPP default Sample.Periodic (so the first and last readings of a
 *   transaction are recognized even if a charger labels only some values).
 * - `sampled_at`: the charger's timestamp as ISO 8601 UTC with milliseconds; null if unreadable.
 */

export type SampledValue = {
  /** 1.6: a decimal string; 2.x: a JSON number */
  value: string | number;
  context?: string;
  /** 1.6: Raw (default) or SignedData */
  format?: string;
  measurand?: string;
  phase?: string;
  location?: string;
  /** 1.6 */
  unit?: string;
  /** 2.x; `multiplier` is a power of ten, default 0 */
  unitOfMeasure?: { unit?: string; multiplier?: number };
};

export type MeterValue = { timestamp: string; sampledValue: SampledValue[] };

export type MeterSample = {
  /** ISO 8601 UTC; null when the charger's timestamp is unreadable */
  sampled_at: string | null;
  energy_wh: number | null;
  energy_kwh: string | null;
  power_kw: string | null;
  current_a: string | null;
  voltage_v: string | null;
  soc_percent: string | null;
  context: string;
};

export const ENERGY_REGISTER = "Energy.Active.Import.Register";
const POWER = "Power.Active.Import";
const CURRENT = "Current.Import";
const VOLTAGE = "Voltage";
const SOC = "SoC";

/** Readings at or beyond this magnitude (in the reported unit: Wh, kW, A, V, %) are unreadable. */
const LIMIT = rat(10n ** 15n);
const MAX_MULTIPLIER = 99;

/**
 * Per reported measurand: the unit a value is in when none is given, and each unit's factor to
 * the reported unit. (Maps, not object literals: "constructor" from a charger is just a name.)
 */
const UNITS = new Map<string, { fallback: string; factor: Map<string, Rational> }>([
  [
    ENERGY_REGISTER,
    {
      fallback: "wh",
      factor: new Map([
        ["wh", ONE],
        ["kwh", rat(1000)],
      ]),
    },
  ],
  [
    POWER,
    {
      fallback: "w",
      factor: new Map([
        ["w", rat(1, 1000)],
        ["kw", ONE],
      ]),
    },
  ],
  [CURRENT, { fallback: "a", factor: new Map([["a", ONE]]) }],
  [VOLTAGE, { fallback: "v", factor: new Map([["v", ONE]]) }],
  [
    SOC,
    {
      fallback: "percent",
      factor: new Map([
        ["percent", ONE],
        ["%", ONE],
      ]),
    },
  ],
]);

const READING_CONTEXTS = new Set([
  "Interruption.Begin",
  "Interruption.End",
  "Other",
  "Sample.Clock",
  "Sample.Periodic",
  "Transaction.Begin",
  "Transaction.End",
  "Trigger",
]);

const PHASES = ["L1", "L2", "L3"] as const;

const NUMBER = /^([+-]?)(\d*)(?:\.(\d*))?(?:[eE]([+-]?\d{1,3}))?$/;

const pow10 = (e: number): Rational =>
  e >= 0 ? rat(10n ** BigInt(e)) : rat(1n, 10n ** BigInt(-e));

/**
 * The exact value of a charger's reading: a decimal string ("12.5", "-3", "1.2E3", " 7 ") or a
 * finite JSON number (its shortest decimal form, so 0.1 is exactly 1/10). Null for anything else.
 */
export function parseReading(value: unknown): Rational | null {
  let text: string;
  if (typeof value === "number") {
    if (!Number.isFinite(value)) return null;
    text = String(value);
  } else if (typeof value === "string") {
    text = value.trim();
  } else return null;
  if (text.length > 40) return null;
  const match = NUMBER.exec(text);
  if (!match) return null;
  const [, sign = "", whole = "", fraction = "", exponent = "0"] = match;
  if (whole === "" && fraction === "") return null;
  const digits = BigInt(`${whole}${fraction}`);
  return mul(rat(sign === "-" ? -digits : digits), pow10(Number(exponent) - fraction.length));
}

type Entry = {
  measurand: string;
  /** undefined: the overall value */
  phase: string | undefined;
  location: string;
  raw: Record<string, unknown>;
};

const text = (v: unknown): string | undefined => (typeof v === "string" ? v : undefined);

function entriesOf(sampledValue: unknown): { entries: Entry[]; contexts: string[] } {
  const entries: Entry[] = [];
  const contexts: string[] = [];
  for (const item of Array.isArray(sampledValue) ? (sampledValue as unknown[]) : []) {
    if (!item || typeof item !== "object") continue;
    const raw = item as Record<string, unknown>;
    const context = text(raw.context);
    if (context && READING_CONTEXTS.has(context)) contexts.push(context);
    if (raw.format === "SignedData") continue;
    const measurand = raw.measurand === undefined ? ENERGY_REGISTER : text(raw.measurand);
    if (!measurand || !UNITS.has(measurand)) continue;
    const phase =
      raw.phase === undefined || raw.phase === null ? undefined : (text(raw.phase) ?? "?");
    entries.push({ measurand, phase, location: text(raw.location) ?? "Outlet", raw });
  }
  return { entries, contexts };
}

/** The value in the measurand's reported unit (Wh, kW, A, V, %), or null if unreadable. */
function reading(entry: Entry): Rational | null {
  const value = parseReading(entry.raw.value);
  if (value === null) return null;
  const uom = entry.raw.unitOfMeasure;
  const of = uom && typeof uom === "object" ? (uom as Record<string, unknown>) : {};
  const multiplier = of.multiplier ?? 0;
  if (
    typeof multiplier !== "number" ||
    !Number.isInteger(multiplier) ||
    Math.abs(multiplier) > MAX_MULTIPLIER
  )
    return null;
  const units = UNITS.get(entry.measurand);
  if (!units) return null;
  const unit = (text(of.unit) ?? text(entry.raw.unit))?.trim().toLowerCase() || units.fallback;
  const factor = units.factor.get(unit);
  if (!factor) return null;
  const result = mul(mul(value, pow10(multiplier)), factor);
  const magnitude = result.n < 0n ? rat(-result.n, result.d) : result;
  return cmp(magnitude, LIMIT) < 0 ? result : null;
}

/**
 * The values of one measurand to read: the overall value if there is one, else one value per
 * phase (L1 before L1-N), all from one location.
 */
function select(entries: Entry[], measurand: string): Entry[] {
  const all = entries.filter((e) => e.measurand === measurand);
  const first = all[0];
  if (!first) return [];
  const location = all.some((e) => e.location === "Outlet") ? "Outlet" : first.location;
  const here = all.filter((e) => e.location === location);
  const overall = here.find((e) => e.phase === undefined);
  if (overall) return [overall];
  return PHASES.flatMap((p) => {
    const entry = here.find((e) => e.phase === p) ?? here.find((e) => e.phase === `${p}-N`);
    return entry ? [entry] : [];
  });
}

/** Readings of the selected values, or null if there are none or any one is unreadable. */
function readings(entries: Entry[], measurand: string): Rational[] | null {
  const values = select(entries, measurand).map(reading);
  if (values.length === 0 || values.some((v) => v === null)) return null;
  return values as Rational[];
}

const total = (values: Rational[]) => values.reduce(add);
const highest = (values: Rational[]) => values.reduce((a, b) => (cmp(a, b) >= 0 ? a : b));
const average = (values: Rational[]) => div(total(values), rat(values.length));
const decimal = (value: Rational | null) => (value === null ? null : toFixed(value, DECIMALS));

function timestampOf(value: unknown): string | null {
  const t = text(value);
  if (!t || !/^\d{4}-\d{2}-\d{2}T/.test(t)) return null;
  const date = new Date(t);
  return Number.isNaN(date.getTime()) ? null : date.toISOString();
}

function contextOf(contexts: string[]): string {
  if (contexts.includes("Transaction.End")) return "Transaction.End";
  if (contexts.includes("Transaction.Begin")) return "Transaction.Begin";
  return contexts[0] ?? "Sample.Periodic";
}

/** Normalizes one OCPP MeterValue; see the rules above. Never throws. */
export function normalizeMeterValue(meterValue: MeterValue): MeterSample {
  const mv: Record<string, unknown> =
    meterValue && typeof meterValue === "object" ? meterValue : {};
  const { entries, contexts } = entriesOf(mv.sampledValue);
  const energy = readings(entries, ENERGY_REGISTER);
  const wh = energy === null ? null : roundHalfUp(total(energy));
  const power = readings(entries, POWER);
  const current = readings(entries, CURRENT);
  const voltage = readings(entries, VOLTAGE);
  const soc = readings(entries, SOC);
  return {
    sampled_at: timestampOf(mv.timestamp),
    energy_wh: wh === null ? null : Number(wh),
    energy_kwh: wh === null ? null : decimal(rat(wh, 1000n)),
    power_kw: decimal(power && total(power)),
    current_a: decimal(current && highest(current)),
    voltage_v: decimal(voltage && average(voltage)),
    soc_percent: decimal(soc && soc[0]!),
    context: contextOf(contexts),
  };
}
