import { describe, expect, it } from "vitest";
import { histogramOf, histogramQuantile, parseMetrics, sumOf } from "./read-metrics";

const TEXT = `# HELP t_seconds a histogram
# TYPE t_seconds histogram
t_seconds_bucket{le="0.1",action="A"} 10
t_seconds_bucket{le="0.5",action="A"} 90
t_seconds_bucket{le="+Inf",action="A"} 100
t_seconds_sum{action="A"} 25
t_seconds_count{action="A"} 100
t_seconds_bucket{le="0.1",action="B \\"quoted\\""} 0
t_seconds_bucket{le="0.5",action="B \\"quoted\\""} 0
t_seconds_bucket{le="+Inf",action="B \\"quoted\\""} 0
t_seconds_count{action="B \\"quoted\\""} 0
up 1
`;

describe("reading /metrics", () => {
  it("parses samples with escaped labels, sums series and interpolates quantiles as PromQL does", () => {
    const samples = parseMetrics(TEXT);
    expect(sumOf(samples, "up")).toBe(1);
    expect(samples.some((s) => s.labels.action === 'B "quoted"')).toBe(true);
    const a = histogramOf(samples, "t_seconds", { action: "A" });
    expect(a).toMatchObject({ count: 100, sum: 25 });
    expect(a.buckets).toEqual([
      { le: 0.1, count: 10 },
      { le: 0.5, count: 90 },
      { le: Infinity, count: 100 },
    ]);
    expect(histogramQuantile(a, 0.05)).toBeCloseTo(0.05); // half of the first bucket's rank
    expect(histogramQuantile(a, 0.5)).toBeCloseTo(0.3); // 0.1 + 0.4 × (50 − 10) / 80
    expect(histogramQuantile(a, 0.99)).toBe(0.5); // in +Inf: the last finite bound
    expect(histogramQuantile(histogramOf(samples, "t_seconds", { action: "none" }), 0.5)).toBeNaN();
  });
});
