/**
 * The one percentile every benchmark reports, with no imports of its own, so the simulator
 * processes use it too.
 */

export const round2 = (value: number) => Math.round(value * 100) / 100;

/** The nearest-rank percentile (0-100) of ascending samples; NaN when there are none. */
export function percentile(sorted: readonly number[], p: number) {
  if (sorted.length === 0) return NaN;
  const rank = Math.ceil((p / 100) * sorted.length);
  return sorted[Math.min(sorted.length - 1, Math.max(0, rank - 1))]!;
}

/** p50 and p99 of samples in milliseconds, rounded to hundredths. */
export function latency(samples: readonly number[]) {
  const sorted = [...samples].sort((a, b) => a - b);
  return { p50_ms: round2(percentile(sorted, 50)), p99_ms: round2(percentile(sorted, 99)) };
}
