/**
 * The one place the engine rounds money (README, decision 6): a column of exact amounts (one per
 * priced dimension, in cents) becomes whole cents whose sum is the exact sum rounded once, half up.
 *
 * Allocation is the largest remainder (Hamilton) method: every line first gets its exact amount
 * rounded down; the cents still missing to reach the rounded total go, one each, to the lines with
 * the largest fractional remainders; equal remainders go to the line listed first. So every line
 * is its exact amount rounded down or up (never off by a whole cent or more), and the lines add up
 * to the rounded total exactly.
 */
import { type Rational, ZERO, add, cmp, floor, roundHalfUp, sub } from "./rational";

export interface Allocation {
  /** The exact sum, rounded once: exact halves towards +infinity. */
  readonly total: bigint;
  /** One whole-cent amount per input line, in input order; they sum to `total`. */
  readonly lines: readonly bigint[];
}

/** Allocates the rounded sum of non-negative exact amounts back to the amounts. */
export function allocateCents(exact: readonly Rational[]): Allocation {
  let sum = ZERO;
  for (const amount of exact) sum = add(sum, amount);
  const total = roundHalfUp(sum);
  const lines = exact.map(floor);
  let missing = total - lines.reduce((s, v) => s + v, 0n);
  // 0 <= missing <= number of lines with a remainder (the rounded sum is within half a cent of the
  // exact sum, which is within the sum of the remainders of the rounded-down sum).
  if (missing > 0n) {
    const remainders = exact.map((amount, i) => ({
      i,
      r: sub(amount, { n: lines[i] ?? 0n, d: 1n }),
    }));
    remainders.sort((a, b) => cmp(b.r, a.r) || a.i - b.i);
    for (const { i } of remainders) {
      if (missing === 0n) break;
      lines[i] = (lines[i] ?? 0n) + 1n;
      missing -= 1n;
    }
  }
  return { total, lines };
}
