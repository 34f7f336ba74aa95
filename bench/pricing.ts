/**
 * Pricing benchmark: a 24-hour session of 1-minute meter readings (1 441 readings) priced against
 * a complex tariff of 10 elements (time-of-day windows, weekdays, a night window wrapping
 * midnight, kWh and power thresholds, durations, parking, VAT, step sizes, min/max price) in a
 * zone with DST. Prints the median and p99 and writes bench/results/pricing.json.
 *
 *   npx tsx bench/pricing.ts [runs]
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { priceSession } from "../server/pricing/engine";
import type { MeterSession } from "../server/pricing/session";
import { aTariff } from "../server/pricing/testing";

const RUNS = Number(process.argv[2] ?? 300);
const WARMUP = 20;

const weekdays = ["MONDAY", "TUESDAY", "WEDNESDAY", "THURSDAY", "FRIDAY"] as const;
const tariff = aTariff({
  time_zone: "America/New_York",
  elements: [
    { price_components: [{ type: "FLAT", price: 1 }], restrictions: { min_kwh: 1 } },
    {
      price_components: [{ type: "ENERGY", price: 0.55, vat: 8.25, step_size: 100 }],
      restrictions: {
        min_power: 50,
        start_time: "16:00",
        end_time: "21:00",
        day_of_week: [...weekdays],
      },
    },
    {
      price_components: [{ type: "ENERGY", price: 0.45, vat: 8.25, step_size: 100 }],
      restrictions: { start_time: "16:00", end_time: "21:00", day_of_week: [...weekdays] },
    },
    {
      price_components: [{ type: "ENERGY", price: 0.18, vat: 8.25 }],
      restrictions: { start_time: "23:00", end_time: "06:00" },
    },
    {
      price_components: [{ type: "ENERGY", price: 0.28, vat: 8.25 }],
      restrictions: { max_kwh: 40 },
    },
    { price_components: [{ type: "ENERGY", price: 0.24, vat: 8.25 }] },
    {
      price_components: [{ type: "TIME", price: 0, step_size: 60 }],
      restrictions: { max_duration: 3600 },
    },
    {
      price_components: [{ type: "TIME", price: 1.5, step_size: 60 }],
      restrictions: { min_current: 6, max_current: 80 },
    },
    {
      price_components: [{ type: "PARKING_TIME", price: 12, step_size: 300, vat: 8.25 }],
      restrictions: { start_time: "08:00", end_time: "20:00", min_duration: 7200 },
    },
    {
      price_components: [
        { type: "TIME", price: 1 },
        { type: "PARKING_TIME", price: 3 },
      ],
    },
  ],
  min_price: { excl_vat: 2 },
  max_price: { excl_vat: 250 },
});

/** 24 h from local noon: bursts of charging at varying power, pauses, long idle stretches. */
function session(): MeterSession {
  const start = Date.parse("2026-10-16T16:00:17Z"); // Friday 12:00:17 EDT: boundaries fall mid-interval
  const readings: MeterSession["readings"][number][] = [];
  let wh = 0;
  for (let minute = 0; minute <= 24 * 60; minute++) {
    const phase = minute % 180;
    const charging = phase < 100 && !(phase > 40 && phase < 43);
    if (minute > 0 && charging) wh += 200 + ((minute * 37) % 900); // 12 to 66 kW
    readings.push({ at: start + minute * 60_000, energy_wh: wh, current_a: 10 + (minute % 60) });
  }
  return {
    method: "meter_values",
    started_at: start,
    stopped_at: start + 24 * 3_600_000,
    readings,
  };
}

const input = session();
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
const quantile = (times: number[], q: number) =>
  round(times[Math.min(times.length - 1, Math.max(0, Math.ceil(q * times.length) - 1))] ?? NaN);

const bare = measure(false);
const times = measure(true); // last, so `result` keeps its period detail

const report = {
  benchmark: "pricing: 24 h of 1-minute meter readings, complex tariff of 10 elements",
  measured_at: new Date().toISOString(),
  node: process.version,
  cpu: os.cpus()[0]?.model ?? "unknown",
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
const out = path.join(import.meta.dirname, "results", "pricing.json");
fs.mkdirSync(path.dirname(out), { recursive: true });
fs.writeFileSync(out, `${JSON.stringify(report, null, 2)}\n`);
