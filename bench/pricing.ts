/**
 * Pricing benchmark: a 24-hour session of 1-minute meter readings (1 441 readings) priced against
 * a complex tariff of 10 elements (time-of-day windows, weekdays, a night window wrapping
 * midnight, kWh and power thresholds, durations, parking, VAT, step sizes, min/max price) in a
 * zone with DST. Prints the median and p99 and writes bench/results/pricing.json.
 *
 *   npx tsx bench/pricing.ts [runs]
 */
import os from "node:os";
import { priceSession } from "../server/pricing/engine";
import { aTariff } from "../testing/pricing";
import { complexTariffInput, daySession } from "./day-session";
import { machine, percentile, writeResult } from "./harness";

const RUNS = Number(process.argv[2] ?? 300);
const WARMUP = 20;

const tariff = aTariff(complexTariffInput);

const input = daySession();
let result = priceSession(tariff, input);
for (let i = 0; i < WARMUP; i++) result = priceSession(tariff, input);

/** Milliseconds per call, sorted. */
function measure(withPeriods: boolean): number[] {
  const times: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    const t0 = process.hrtime.bigint();
    result = priceSession(tariff, input, { periods: withPeriods });
    times.push(Number(process.hrtime.bigint() - t0) / 1e6);
  }
  return times.sort((a, b) => a - b);
}
const round = (ms: number) => Math.round(ms * 1000) / 1000;
const quantile = (times: number[], q: number) => round(percentile(times, q * 100));

const loadAtStart = os.loadavg();
const bare = measure(false);
const times = measure(true); // last, so `result` keeps its period detail

const report = {
  benchmark: "pricing: 24 h of 1-minute meter readings, complex tariff of 10 elements",
  measured_at: new Date().toISOString(),
  machine: machine(loadAtStart),
  runs: RUNS,
  readings: input.readings.length,
  periods_priced: result.periods.length,
  total_incl_vat_minor: result.total.incl_vat_minor,
  median_ms: quantile(times, 0.5),
  p99_ms: quantile(times, 0.99),
  min_ms: quantile(times, 0),
  max_ms: quantile(times, 1),
  without_period_detail: { median_ms: quantile(bare, 0.5), p99_ms: quantile(bare, 0.99) },
};
console.log(
  `pricing 24 h / 1-min readings / 10 elements: median ${report.median_ms} ms, p99 ${report.p99_ms} ms ` +
    `(${RUNS} runs, ${report.periods_priced} periods); without period detail: median ` +
    `${report.without_period_detail.median_ms} ms, p99 ${report.without_period_detail.p99_ms} ms`,
);
writeResult("pricing", report);
