import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { type Rational, rat } from "./rational";
import { allocateCents } from "./rounding";

const cents = (...values: [number, number][]) => values.map(([n, d]) => rat(n, d));

describe("allocateCents (largest remainder)", () => {
  it("rounds the sum once and gives the missing cents to the largest remainders", () => {
    // 1.2 + 1.7 + 2.4 = 5.3 -> 5; floors 1 + 1 + 2 = 4; one cent to the largest remainder (0.7)
    expect(allocateCents(cents([12, 10], [17, 10], [24, 10]))).toEqual({
      total: 5n,
      lines: [1n, 2n, 2n],
    });
  });

  it("breaks equal remainders in favour of the line listed first", () => {
    // 0.5 + 0.5 + 0.5 = 1.5 -> 2 (half up); floors 0; two cents to the first two lines
    expect(allocateCents(cents([1, 2], [1, 2], [1, 2]))).toEqual({
      total: 2n,
      lines: [1n, 1n, 0n],
    });
    // 1/3 x 3 = 1: one cent, to the first line
    expect(allocateCents(cents([1, 3], [1, 3], [1, 3])).lines).toEqual([1n, 0n, 0n]);
  });

  it("leaves whole amounts alone and handles no lines", () => {
    expect(allocateCents(cents([7, 1], [0, 1]))).toEqual({ total: 7n, lines: [7n, 0n] });
    expect(allocateCents([])).toEqual({ total: 0n, lines: [] });
  });

  it("property: lines sum to the rounded sum and each is its amount rounded down or up", () => {
    const amount = fc
      .tuple(fc.integer({ min: 0, max: 10_000_000 }), fc.integer({ min: 1, max: 100_000 }))
      .map(([n, d]): Rational => rat(n, d));
    fc.assert(
      fc.property(fc.array(amount, { maxLength: 8 }), (amounts) => {
        const { total, lines } = allocateCents(amounts);
        const sum = amounts.reduce((s, a) => s + Number(a.n) / Number(a.d), 0);
        expect(Math.abs(Number(total) - sum)).toBeLessThanOrEqual(0.5 + 1e-9);
        expect(lines.reduce((s, v) => s + v, 0n)).toBe(total);
        lines.forEach((line, i) => {
          const a = amounts[i] ?? rat(0);
          expect(line * a.d >= a.n - a.d + 1n && line * a.d <= a.n + a.d - 1n).toBe(true);
        });
      }),
    );
  });
});
