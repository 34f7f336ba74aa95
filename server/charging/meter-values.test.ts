import { describe, expect, it } from "vitest";
import { kwhFromWh, normalizeMeterValue } from "./meter-values";

const at = "2026-11-22T10:00:00.000Z";

describe("meter values normalized per spec section 6", () => {
  it("energy registers default to Wh and convert exactly to kWh", () => {
    // 1.6: value strings, no unit: Wh. 12345 Wh = 12.345 kWh.
    expect(
      normalizeMeterValue({ timestamp: at, sampledValue: [{ value: "12345" }] }),
    ).toMatchObject({ energy_wh: 12345, energy_kwh: "12.345" });
    // registers in kWh pass through: 7.25 kWh = 7250 Wh
    expect(
      normalizeMeterValue({ timestamp: at, sampledValue: [{ value: "7.25", unit: "kWh" }] }),
    ).toMatchObject({ energy_wh: 7250, energy_kwh: "7.250" });
    // 2.x: numeric value with multiplier: 12.5 × 10^3 Wh = 12500 Wh
    expect(
      normalizeMeterValue({
        timestamp: at,
        sampledValue: [{ value: 12.5, unitOfMeasure: { unit: "Wh", multiplier: 3 } }],
      }),
    ).toMatchObject({ energy_wh: 12500, energy_kwh: "12.500" });
    // 2.x kWh with multiplier -1: 123 × 10^-1 kWh = 12.3 kWh = 12300 Wh
    expect(
      normalizeMeterValue({
        timestamp: at,
        sampledValue: [{ value: 123, unitOfMeasure: { unit: "kWh", multiplier: -1 } }],
      }),
    ).toMatchObject({ energy_wh: 12300 });
    // 0.1 + 0.2 style floats never leak: 0.3 kWh is 300 Wh exactly
    expect(kwhFromWh(300)).toBe("0.300");
  });

  it("with only per-phase values, sums energy and power, takes the highest current and the average voltage", () => {
    const sample = normalizeMeterValue({
      timestamp: at,
      sampledValue: [
        { value: "1000", phase: "L1" },
        { value: "1100", phase: "L2" },
        { value: "1200", phase: "L3" },
        { value: "2300", measurand: "Power.Active.Import", phase: "L1", unit: "W" },
        { value: "2400", measurand: "Power.Active.Import", phase: "L2", unit: "W" },
        { value: "2500", measurand: "Power.Active.Import", phase: "L3", unit: "W" },
        { value: "10.5", measurand: "Current.Import", phase: "L1", unit: "A" },
        { value: "11", measurand: "Current.Import", phase: "L2", unit: "A" },
        { value: "9.75", measurand: "Current.Import", phase: "L3", unit: "A" },
        { value: "229", measurand: "Voltage", phase: "L1-N", unit: "V" },
        { value: "231", measurand: "Voltage", phase: "L2-N", unit: "V" },
        { value: "233", measurand: "Voltage", phase: "L3-N", unit: "V" },
        { value: "400", measurand: "Voltage", phase: "L1-L2", unit: "V" }, // phase-to-phase: ignored
      ],
    });
    // 1000 + 1100 + 1200 = 3300 Wh; 2.3 + 2.4 + 2.5 = 7.2 kW; max(10.5, 11, 9.75) = 11 A; (229 + 231 + 233) / 3 = 231 V
    expect(sample).toMatchObject({
      energy_wh: 3300,
      energy_kwh: "3.300",
      power_kw: "7.2",
      current_a: "11",
      voltage_v: "231",
    });
  });

  it("a total value wins over phases; SoC and context are reported; unreported fields are null", () => {
    const sample = normalizeMeterValue({
      timestamp: at,
      sampledValue: [
        { value: 5000, context: "Transaction.End", unitOfMeasure: { unit: "Wh" } },
        { value: 2000, phase: "L1", unitOfMeasure: { unit: "Wh" } },
        { value: 80, measurand: "SoC", unitOfMeasure: { unit: "Percent" } },
        { value: 11, measurand: "Power.Active.Import", unitOfMeasure: { unit: "kW" } },
      ],
    });
    expect(sample).toEqual({
      sampled_at: at,
      energy_wh: 5000,
      energy_kwh: "5.000",
      power_kw: "11",
      current_a: null,
      voltage_v: null,
      soc_percent: "80",
      context: "Transaction.End",
    });
  });

  it("never throws on garbage from a charger: unreadable values become null", () => {
    const sample = normalizeMeterValue({
      timestamp: at,
      sampledValue: [
        { value: "twelve" },
        { value: "", measurand: "Power.Active.Import" },
        { value: "NaN", measurand: "SoC" },
        { value: 1, unitOfMeasure: { multiplier: 99 } },
      ],
    });
    expect(sample).toMatchObject({
      energy_wh: null,
      energy_kwh: null,
      power_kw: null,
      soc_percent: null,
    });
  });
});
