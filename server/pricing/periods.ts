/**
 * Pricing periods: the session's activity segments cut wherever a restriction can change state,
 * so each period is priced by the restrictions that hold at its start. Energy is spread evenly over
 * a segment's charging time, so a cut at time t inside a segment carries exactly the energy drawn
 * before t, and a cut at an energy threshold falls exactly where the threshold is crossed.
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
  readonly powerW: Rational | null;
  readonly currentA: Rational | null;
}

type Piece = Omit<Period, "energyBeforeWh">;

/** Splits a piece at `fraction` of its energy and time (0 < fraction < 1). */
function cut(p: Piece, at: Rational, energy: Rational): [Piece, Piece] {
  return [
    { ...p, end: at, energyWh: energy },
    { ...p, start: at, energyWh: sub(p.energyWh, energy) },
  ];
}

/** Cuts at each instant in `boundaries` (sorted, integer ms) that falls inside a segment. */
function cutAtInstants(segments: readonly Segment[], boundaries: readonly number[]): Piece[] {
  const pieces: Piece[] = [];
  let next = 0;
  for (const s of segments) {
    let piece: Piece = {
      start: int(s.start),
      end: int(s.end),
      kind: s.kind,
      energyWh: int(s.energyWh),
      powerW: averagePowerW(s),
      currentA: s.currentA,
    };
    while (next < boundaries.length && (boundaries[next] ?? Infinity) <= s.start) next++;
    let from = s.start;
    for (let i = next; i < boundaries.length; i++) {
      const b = boundaries[i] ?? Infinity;
      if (b >= s.end) break;
      // Energy drawn from `from` to b, as a share of what is left of the segment.
      const energy = isZero(piece.energyWh)
        ? ZERO
        : div(mul(piece.energyWh, int(b - from)), int(s.end - from));
      const [head, tail] = cut(piece, int(b), energy);
      pieces.push(head);
      piece = tail;
      from = b;
    }
    pieces.push(piece);
  }
  return pieces;
}

/** Cuts where the running energy total crosses each threshold, then records energy-before. */
function cutAtEnergies(pieces: readonly Piece[], thresholds: readonly Rational[]): Period[] {
  const sorted = [...thresholds].sort((a, b) => (lt(a, b) ? -1 : gt(a, b) ? 1 : 0));
  const periods: Period[] = [];
  let before = ZERO;
  let t = 0;
  for (let piece of pieces) {
    for (;;) {
      while (t < sorted.length && !gt(sorted[t] ?? ZERO, before)) t++;
      const threshold = sorted[t];
      const after = add(before, piece.energyWh);
      if (threshold === undefined || !lt(threshold, after)) break;
      const energy = sub(threshold, before); // 0 < energy < piece energy
      const share = div(energy, piece.energyWh);
      const at = add(piece.start, mul(sub(piece.end, piece.start), share));
      const [head, tail] = cut(piece, at, energy);
      periods.push({ ...head, energyBeforeWh: before });
      before = threshold;
      piece = tail;
    }
    periods.push({ ...piece, energyBeforeWh: before });
    before = add(before, piece.energyWh);
  }
  return periods;
}

export function buildPeriods(
  segments: readonly Segment[],
  instants: readonly number[],
  energyThresholdsWh: readonly Rational[],
): Period[] {
  return cutAtEnergies(cutAtInstants(segments, instants), energyThresholdsWh);
}
