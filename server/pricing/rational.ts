/**
 * Exact rational numbers over bigint. Pricing never uses floating point for money, energy or
 * time: every quantity is a Rational (integer Wh and integer milliseconds are Rationals with
 * denominator 1), so splitting a period anywhere and adding the pieces back gives exactly the
 * whole. Values are always normalized: denominator > 0 and numerator/denominator coprime.
 */
export interface Rational {
  readonly n: bigint;
  readonly d: bigint;
}

export const ZERO: Rational = { n: 0n, d: 1n };
export const ONE: Rational = { n: 1n, d: 1n };

function gcd(a: bigint, b: bigint): bigint {
  if (a < 0n) a = -a;
  if (b < 0n) b = -b;
  while (b !== 0n) {
    const t = a % b;
    a = b;
    b = t;
  }
  return a;
}

export function rat(n: bigint | number, d: bigint | number = 1n): Rational {
  let num = typeof n === "bigint" ? n : BigInt(n);
  let den = typeof d === "bigint" ? d : BigInt(d);
  if (den === 0n) throw new RangeError("rational with zero denominator");
  if (den < 0n) {
    num = -num;
    den = -den;
  }
  if (den === 1n) return { n: num, d: 1n };
  const g = gcd(num, den);
  return g === 1n ? { n: num, d: den } : { n: num / g, d: den / g };
}

/** An integer given as a JS number (must be a safe integer). */
export function int(value: number): Rational {
  if (!Number.isSafeInteger(value)) throw new RangeError(`not a safe integer: ${value}`);
  return { n: BigInt(value), d: 1n };
}

export function add(a: Rational, b: Rational): Rational {
  if (a.d === 1n && b.d === 1n) return { n: a.n + b.n, d: 1n };
  if (a.d === b.d) return rat(a.n + b.n, a.d);
  return rat(a.n * b.d + b.n * a.d, a.d * b.d);
}

export function sub(a: Rational, b: Rational): Rational {
  if (a.d === 1n && b.d === 1n) return { n: a.n - b.n, d: 1n };
  if (a.d === b.d) return rat(a.n - b.n, a.d);
  return rat(a.n * b.d - b.n * a.d, a.d * b.d);
}

export function mul(a: Rational, b: Rational): Rational {
  if (a.d === 1n && b.d === 1n) return { n: a.n * b.n, d: 1n };
  return rat(a.n * b.n, a.d * b.d);
}

export function div(a: Rational, b: Rational): Rational {
  if (b.n === 0n) throw new RangeError("division by zero");
  return rat(a.n * b.d, a.d * b.n);
}

export function cmp(a: Rational, b: Rational): -1 | 0 | 1 {
  const l = a.d === b.d ? a.n : a.n * b.d;
  const r = a.d === b.d ? b.n : b.n * a.d;
  return l < r ? -1 : l > r ? 1 : 0;
}

export const eq = (a: Rational, b: Rational) => a.n === b.n && a.d === b.d;
export const lt = (a: Rational, b: Rational) => cmp(a, b) < 0;
export const le = (a: Rational, b: Rational) => cmp(a, b) <= 0;
export const gt = (a: Rational, b: Rational) => cmp(a, b) > 0;
export const ge = (a: Rational, b: Rational) => cmp(a, b) >= 0;
export const isZero = (a: Rational) => a.n === 0n;
export const isPositive = (a: Rational) => a.n > 0n;
export const min = (a: Rational, b: Rational) => (cmp(a, b) <= 0 ? a : b);
export const max = (a: Rational, b: Rational) => (cmp(a, b) >= 0 ? a : b);

export function sum(values: Iterable<Rational>): Rational {
  let total = ZERO;
  for (const v of values) total = add(total, v);
  return total;
}

/** Largest integer <= a (also for a fraction not in lowest terms). */
export function floor(a: Rational): bigint {
  if (a.d === 1n) return a.n;
  const q = a.n / a.d;
  return a.n < 0n && q * a.d !== a.n ? q - 1n : q;
}

/** Smallest integer >= a. */
export function ceil(a: Rational): bigint {
  return -floor({ n: -a.n, d: a.d });
}

/** Nearest integer; exact halves go up (towards +infinity). */
export function roundHalfUp(a: Rational): bigint {
  return floor(add(a, { n: 1n, d: 2n }));
}

/** Smallest multiple of `step` (> 0) that is >= a. */
export function ceilToMultiple(a: Rational, step: Rational): Rational {
  return mul(rat(ceil(div(a, step))), step);
}

/** For display only; never feeds back into a price. */
export function toNumber(a: Rational): number {
  return a.d === 1n ? Number(a.n) : Number(a.n) / Number(a.d);
}

/**
 * Decimal string with exactly `places` fractional digits, rounded half up (display only). Accepts
 * a fraction not in lowest terms (denominator > 0).
 */
export function toFixed(a: Rational, places: number): string {
  const scale = 10n ** BigInt(places);
  const scaled = floor({ n: 2n * a.n * scale + a.d, d: 2n * a.d }); // a x scale + 1/2, floored
  const negative = scaled < 0n;
  const digits = (negative ? -scaled : scaled).toString().padStart(places + 1, "0");
  const whole = digits.slice(0, digits.length - places);
  const fraction = digits.slice(digits.length - places);
  return `${negative ? "-" : ""}${whole}${places > 0 ? `.${fraction}` : ""}`;
}

const DECIMAL = /^(-?)(\d+)(?:\.(\d+))?$/;

/**
 * Exact value of a JSON number or decimal string, using the number's shortest round-trip decimal
 * form (so 0.1 is exactly 1/10, not the nearest binary double; a number JavaScript writes in
 * exponent form, 1e-7 or 1e+21, is expanded exactly). Returns null for anything that is not a
 * plain decimal (NaN, Infinity, a string in exponent notation) or that has more than `maxPlaces`
 * fractional digits.
 */
export function parseDecimal(value: number | string, maxPlaces = 20): Rational | null {
  if (typeof value === "number" && !Number.isFinite(value)) return null;
  const text = typeof value === "number" ? numberToPlainString(value) : value.trim();
  const match = DECIMAL.exec(text);
  if (!match) return null;
  const [, sign = "", whole = "0", fraction = ""] = match;
  const trimmed = fraction.replace(/0+$/, "");
  if (trimmed.length > maxPlaces) return null;
  const n = BigInt(`${sign}${whole}${trimmed}`);
  return rat(n, 10n ** BigInt(trimmed.length));
}

/**
 * Exact value of a finite number, however small or large: the shortest decimal form of a double
 * has at most a few hundred digits (5e-324 has 324 places), a cheap bigint. Validators bound how
 * many places a stored price may have; a reading priced once (tariff simulate) is taken as it is.
 * Throws only for NaN and ±Infinity, which no JSON number is.
 */
export function exact(value: number): Rational {
  const r = parseDecimal(value, Infinity);
  if (!r) throw new RangeError(`not a finite number: ${value}`);
  return r;
}

/** Count of fractional digits in the shortest decimal form of a finite number. */
export function decimalPlaces(value: number): number {
  const text = numberToPlainString(value);
  const dot = text.indexOf(".");
  return dot < 0 ? 0 : text.length - dot - 1;
}

function numberToPlainString(value: number): string {
  const text = String(value);
  if (!/e/i.test(text)) return text;
  // Exponent form (1e-7, 1e21): expand exactly from the shortest representation.
  const [mantissa = "", exponentText = "0"] = text.toLowerCase().split("e");
  const exponent = Number(exponentText);
  const negative = mantissa.startsWith("-");
  const [intPart = "", fracPart = ""] = mantissa.replace("-", "").split(".");
  const digits = intPart + fracPart;
  const point = intPart.length + exponent;
  let plain: string;
  if (point <= 0) plain = `0.${"0".repeat(-point)}${digits}`;
  else if (point >= digits.length) plain = digits + "0".repeat(point - digits.length);
  else plain = `${digits.slice(0, point)}.${digits.slice(point)}`;
  return (negative ? "-" : "") + plain;
}
