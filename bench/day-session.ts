/**
 * The long session the pricing benchmarks use: a complex tariff of 10 elements (time-of-day
 * windows, weekdays, a night window wrapping midnight, kWh and power thresholds, durations,
 * parking, VAT, step sizes, min/max price) in a zone with DST, and 24 hours of 1-minute meter
 * readings (1,441) with bursts of charging at varying power, pauses and long idle stretches.
 */
import type { MeterSession } from "../server/pricing/session";
import type { TariffInput } from "../server/pricing/tariff-schema";

const weekdays = ["MONDAY", "TUESDAY", "WEDNESDAY", "THURSDAY", "FRIDAY"] as const;
export const complexTariffInput: TariffInput = {
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
};

/** 24 h from local noon: bursts of charging at varying power, pauses, long idle stretches. */
export function daySession(): MeterSession {
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
