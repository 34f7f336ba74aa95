/**
 * Pricing periods: the session's activity segments cut wherever a restriction can change state,
 * so each period is priced by the restrictions that hold at its start. Energy is spread evenly over
 * a segment's charging time, so a cut at time t inside a segment carries exactly the energy drawn
 * before t, and a cut at an energy threshold falls exactly where the threshold is crossed.
 *
 * This runs once per meter interval of a long session: periods are built as plain literals of one
 * shape (no spreads), and the average power only when a restriction needs it.
 */
import { type Rational, ZERO, add, div, gt, int, isZero, lt, mul, sub } from "./rational";
import { type ActivityKind, type Segment, averagePowerW } from "./session";

export interface Period {
  readonly start: Rational; // ms since the epoch
  readonly end: Rational;
  readonly kind: ActivityKind;
  readonly energyWh: Rational;
  /** Energy drawn before this period. */
  readonly energyBeforeWh: Rational;
  /** Average power over the segment's charging time; null when unknown or not needed. */
  readonly powerW: Rational | null;
  readonly currentA: Rational | null;
}

const period = (
  start: Rational,
  end: Rational,
  kind: ActivityKind,
  energyWh: Rational,
  energyBeforeWh: Rational,
  powerW: Rational | null,
  currentA: Rational | null,
): Period => ({ start, end, kind, energyWh, energyBeforeWh, powerW, currentA });

/**
 * Cuts at each instant in `boundaries` (sorted, integer ms) that falls inside a segment, and
 * records the energy drawn before each piece.
 */
function cutAtInstants(
  segments: readonly Segment[],
  boundaries: readonly number[],
  withPower: boolean,
): Period[] {
  const pieces: Period[] = [];
  let next = 0;
  let before = ZERO;
  for (const s of segments) {
    const power = withPower ? averagePowerW(s) : null;
    while (next < boundaries.length && (boundaries[next] ?? Infinity) <= s.start) next++;
    let from = s.start;
    let energy = int(s.energyWh); // what is left of the segment's energy from `from`
    for (let i = next; i < boundaries.length; i++) {
      const b = boundaries[i] ?? Infinity;
      if (b >= s.end) break;
      // Energy drawn from `from` to b, as a share of what is left of the segment.
      const head = isZero(energy) ? ZERO : div(mul(energy, int(b - from)), int(s.end - from));
      pieces.push(period(int(from), int(b), s.kind, head, before, power, s.currentA));
      before = add(before, head);
      energy = sub(energy, head);
      from = b;
    }
    pieces.push(period(int(from), int(s.end), s.kind, energy, before, power, s.currentA));
    before = add(before, energy);
  }
  return pieces;
}

/** Cuts where the running energy total crosses each threshold. */
function cutAtEnergies(pieces: Period[], thresholds: readonly Rational[]): Period[] {
  if (thresholds.length === 0) return pieces;
  const sorted = [...thresholds].sort((a, b) => (lt(a, b) ? -1 : gt(a, b) ? 1 : 0));
  const periods: Period[] = [];
  let t = 0;
  for (let piece of pieces) {
    while (t < sorted.length) {
      const before = piece.energyBeforeWh;
      while (t < sorted.length && !gt(sorted[t] ?? ZERO, before)) t++;
      const threshold = sorted[t];
      if (threshold === undefined || !lt(threshold, add(before, piece.energyWh))) break;
      const energy = sub(threshold, before); // 0 < energy < piece energy
      const share = div(energy, piece.energyWh);
      const at = add(piece.start, mul(sub(piece.end, piece.start), share));
      const { kind, powerW, currentA } = piece;
      periods.push(period(piece.start, at, kind, energy, before, powerW, currentA));
      const rest = sub(piece.energyWh, energy);
      piece = period(at, piece.end, kind, rest, threshold, powerW, currentA);
    }
    periods.push(piece);
  }
  return periods;
}

export function buildPeriods(
  segments: readonly Segment[],
  instants: readonly number[],
  energyThresholdsWh: readonly Rational[],
  withPower = true,
): Period[] {
  return cutAtEnergies(cutAtInstants(segments, instants, withPower), energyThresholdsWh);
}
