import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { kwhFromWh } from "../charging/kwh-from-wh";
import { toFixed } from "../pricing/rational";
import {
  type MeterSample,
  type SampledValue,
  normalizeMeterValue,
  parseReading,
} from "./meter-values";

const at = "2026-11-22T10:00:00.000Z";
const sample = (...sampledValue: SampledValue[]) =>
  normalizeMeterValue({ timestamp: at, sampledValue });
const nothing: Omit<MeterSample, "sampled_at" | "context"> = {
  energy_wh: null,
  energy_kwh: null,
  power_kw: null,
  current_a: null,
  voltage_v: null,
  soc_percent: null,
};

describe("energy registers (Wh by default, exact kWh with the unit multiplier)", () => {
  it("1.6: a value string without unit or measurand is the import register in Wh", () => {
    expect(sample({ value: "12345" })).toEqual({
      ...nothing,
      sampled_at: at,
      energy_wh: 12345,
      energy_kwh: "12.345",
      context: "Sample.Periodic",
    });
  });

  it('1.6: kWh registers pass through (7.25 kWh = 7250 Wh = "7.250")', () => {
    expect(sample({ value: "7.25", unit: "kWh" })).toMatchObject({
      energy_wh: 7250,
      energy_kwh: "7.250",
    });
    // below the Wh: rounded half up once, and energy_kwh is always energy_wh / 1000
    expect(sample({ value: "12.3456", unit: "kWh" })).toMatchObject({
      energy_wh: 12346,
      energy_kwh: "12.346",
    });
    expect(sample({ value: "12.3454", unit: "kWh" })).toMatchObject({ energy_wh: 12345 });
  });

  it("exactly, where floating point would be off: 0.5005 kWh is 500.5 Wh, rounded to 501", () => {
    expect(0.5005 * 1000).toBe(500.49999999999994); // what a float conversion would round to 500
    expect(sample({ value: "0.5005", unit: "kWh" })).toMatchObject({
      energy_wh: 501,
      energy_kwh: "0.501",
    });
    expect(sample({ value: 0.5005, unitOfMeasure: { unit: "kWh" } })).toMatchObject({
      energy_wh: 501,
    });
  });

  it("2.x: the multiplier is a power of ten applied in the value's own unit", () => {
    // 12.5 × 10^3 Wh = 12 500 Wh
    expect(sample({ value: 12.5, unitOfMeasure: { unit: "Wh", multiplier: 3 } })).toMatchObject({
      energy_wh: 12500,
      energy_kwh: "12.500",
    });
    // 123 × 10^-1 kWh = 12.3 kWh = 12 300 Wh
    expect(sample({ value: 123, unitOfMeasure: { unit: "kWh", multiplier: -1 } })).toMatchObject({
      energy_wh: 12300,
      energy_kwh: "12.300",
    });
    // 123456 × 10^-1 Wh = 12 345.6 Wh → 12 346 Wh (a 0.1 Wh resolution meter)
    expect(sample({ value: 123456, unitOfMeasure: { unit: "Wh", multiplier: -1 } })).toMatchObject({
      energy_wh: 12346,
      energy_kwh: "12.346",
    });
    // 100050 × 10^-2 Wh = 1000.5 Wh → 1001 (half up)
    expect(sample({ value: 100050, unitOfMeasure: { unit: "Wh", multiplier: -2 } })).toMatchObject({
      energy_wh: 1001,
    });
    // 4.2 × 10^3 kWh = 4 200 kWh = 4 200 000 Wh
    expect(sample({ value: 4.2, unitOfMeasure: { unit: "kWh", multiplier: 3 } })).toMatchObject({
      energy_wh: 4200000,
      energy_kwh: "4200.000",
    });
    // unit omitted: Wh (the 2.x default), multiplier omitted: 0
    expect(sample({ value: 250 })).toMatchObject({ energy_wh: 250, energy_kwh: "0.250" });
    expect(sample({ value: 250, unitOfMeasure: {} })).toMatchObject({ energy_wh: 250 });
  });

  it("units are read case-insensitively; an unknown energy unit is not guessed", () => {
    expect(sample({ value: "1.5", unit: "KWH" })).toMatchObject({ energy_wh: 1500 });
    expect(sample({ value: "1500", unitOfMeasure: { unit: "wh" } })).toMatchObject({
      energy_wh: 1500,
    });
    expect(sample({ value: "1500", unit: "varh" })).toMatchObject({ energy_wh: null });
    expect(sample({ value: 2, unitOfMeasure: { unit: "MWh" } })).toMatchObject({
      energy_wh: null,
    });
  });

  it("a big lifetime register stays exact", () => {
    expect(sample({ value: "98765432.109", unit: "kWh" })).toMatchObject({
      energy_wh: 98765432109,
      energy_kwh: "98765432.109",
    });
  });
});

describe("per-phase values", () => {
  const threePhase: SampledValue[] = [
    { value: "1000", phase: "L1" },
    { value: "1100", phase: "L2" },
    { value: "1200", phase: "L3" },
    { value: "2300", measurand: "Power.Active.Import", phase: "L1", unit: "W" },
    { value: "2400", measurand: "Power.Active.Import", phase: "L2", unit: "W" },
    { value: "2500.5", measurand: "Power.Active.Import", phase: "L3", unit: "W" },
    { value: "10.5", measurand: "Current.Import", phase: "L1", unit: "A" },
    { value: "11", measurand: "Current.Import", phase: "L2", unit: "A" },
    { value: "9.75", measurand: "Current.Import", phase: "L3", unit: "A" },
    { value: "30", measurand: "Current.Import", phase: "N", unit: "A" }, // neutral: not a phase
    { value: "229", measurand: "Voltage", phase: "L1-N", unit: "V" },
    { value: "231", measurand: "Voltage", phase: "L2-N", unit: "V" },
    { value: "234", measurand: "Voltage", phase: "L3-N", unit: "V" },
    { value: "400", measurand: "Voltage", phase: "L1-L2", unit: "V" }, // line-to-line: not a phase
  ];

  it("sum energy and power over L1..L3, take the highest current and the average voltage", () => {
    // 1000 + 1100 + 1200 = 3300 Wh; 2.3 + 2.4 + 2.5005 = 7.2005 kW → 7.201 (half up);
    // max(10.5, 11, 9.75) = 11 A (the neutral's 30 A is not a phase current);
    // (229 + 231 + 234) / 3 = 231.333… V (the 400 V line-to-line value is left out)
    expect(sample(...threePhase)).toEqual({
      sampled_at: at,
      energy_wh: 3300,
      energy_kwh: "3.300",
      power_kw: "7.201",
      current_a: "11.000",
      voltage_v: "231.333",
      soc_percent: null,
      context: "Sample.Periodic",
    });
  });

  it("an overall value wins over the phases", () => {
    const withTotals = [
      ...threePhase,
      { value: "5000" },
      { value: "11", measurand: "Power.Active.Import", unit: "kW" },
      { value: "16", measurand: "Current.Import" },
      { value: "230", measurand: "Voltage" },
    ];
    expect(sample(...withTotals)).toMatchObject({
      energy_wh: 5000,
      power_kw: "11.000",
      current_a: "16.000",
      voltage_v: "230.000",
    });
  });

  it("L1-N counts as L1 (never twice); only line-to-line voltages give no phase voltage", () => {
    expect(
      sample(
        { value: 3680, measurand: "Power.Active.Import", phase: "L1" },
        { value: 3680, measurand: "Power.Active.Import", phase: "L1-N" }, // the same power again
        { value: 3700, measurand: "Power.Active.Import", phase: "L2-N" },
        { value: 400, measurand: "Voltage", phase: "L1-L2" },
        { value: 401, measurand: "Voltage", phase: "L2-L3" },
        { value: 399, measurand: "Voltage", phase: "L3-L1" },
      ),
    ).toMatchObject({ power_kw: "7.380", voltage_v: null });
  });

  it("a single-phase charger reporting only L1 reads as that phase", () => {
    expect(
      sample(
        {
          value: 7.4,
          measurand: "Power.Active.Import",
          phase: "L1",
          unitOfMeasure: { unit: "kW" },
        },
        { value: 32, measurand: "Current.Import", phase: "L1", unitOfMeasure: { unit: "A" } },
        { value: 231.4, measurand: "Voltage", phase: "L1-N", unitOfMeasure: { unit: "V" } },
        { value: 15.2, phase: "L1", unitOfMeasure: { unit: "kWh" } },
      ),
    ).toMatchObject({
      energy_wh: 15200,
      power_kw: "7.400",
      current_a: "32.000",
      voltage_v: "231.400",
    });
  });

  it("2.x per-phase energy with multipliers sums exactly (0.1 + 0.2 kWh = 300 Wh)", () => {
    expect(
      sample(
        { value: 0.1, phase: "L1", unitOfMeasure: { unit: "kWh" } },
        { value: 0.2, phase: "L2", unitOfMeasure: { unit: "kWh" } },
        { value: 5, phase: "L3", unitOfMeasure: { unit: "Wh", multiplier: 1 } },
      ),
    ).toMatchObject({ energy_wh: 350, energy_kwh: "0.350" });
  });

  it("one unreadable phase makes the whole figure null, not a partial sum", () => {
    expect(
      sample(
        { value: "1000", phase: "L1" },
        { value: "oops", phase: "L2" },
        { value: "1000", phase: "L3" },
        { value: "16", measurand: "Current.Import", phase: "L1" },
        { value: "", measurand: "Current.Import", phase: "L2" },
      ),
    ).toMatchObject({ energy_wh: null, energy_kwh: null, current_a: null });
  });
});

describe("power, current, voltage and SoC", () => {
  it("power in W or kW, with 2.x multipliers", () => {
    expect(sample({ value: "7200", measurand: "Power.Active.Import" })).toMatchObject({
      power_kw: "7.200",
    });
    expect(sample({ value: "22", measurand: "Power.Active.Import", unit: "kW" })).toMatchObject({
      power_kw: "22.000",
    });
    expect(
      sample({
        value: 1505,
        measurand: "Power.Active.Import",
        unitOfMeasure: { unit: "W", multiplier: 2 },
      }),
    ).toMatchObject({ power_kw: "150.500" });
    // float would print 4.0005.toFixed(3) as "4.000"; exactly it is a half, rounded up
    expect(
      sample({ value: 4.0005, measurand: "Power.Active.Import", unitOfMeasure: { unit: "kW" } }),
    ).toMatchObject({ power_kw: "4.001" });
    // power in a unit that is not active power (kVA) is not reported
    expect(sample({ value: "22", measurand: "Power.Active.Import", unit: "kVA" })).toMatchObject({
      power_kw: null,
    });
  });

  it("SoC as 1.6 string and 2.x number, from the EV location", () => {
    expect(
      sample({ value: "80", measurand: "SoC", unit: "Percent", location: "EV" }),
    ).toMatchObject({ soc_percent: "80.000" });
    expect(
      sample({ value: 55.5, measurand: "SoC", location: "EV", unitOfMeasure: { unit: "Percent" } }),
    ).toMatchObject({ soc_percent: "55.500" });
  });

  it("a measurand at the Outlet wins over other locations; other locations are never mixed in", () => {
    expect(
      sample(
        { value: "10100", location: "Inlet" },
        { value: "10000", location: "Outlet" },
        { value: "5000", location: "EV", phase: "L1" },
      ),
    ).toMatchObject({ energy_wh: 10000 });
    // only reported at the Inlet: that is the reading
    expect(sample({ value: "10100", location: "Inlet" })).toMatchObject({ energy_wh: 10100 });
  });

  it("ignores measurands the sample does not report, and SignedData values", () => {
    expect(
      sample(
        { value: "500", measurand: "Energy.Active.Export.Register" },
        { value: "12", measurand: "Energy.Active.Import.Interval" },
        { value: "35", measurand: "Temperature", unit: "Celsius" },
        { value: "32", measurand: "Current.Offered" },
        { value: "11000", measurand: "Power.Offered" },
        { value: "50", measurand: "Frequency" },
        { value: "1234", format: "SignedData" }, // a signed blob that happens to look numeric
      ),
    ).toEqual({ ...nothing, sampled_at: at, context: "Sample.Periodic" });
  });
});

describe("context and timestamp", () => {
  it("reports the reading context; Transaction.Begin and End are recognized", () => {
    expect(sample({ value: "0", context: "Transaction.Begin" }).context).toBe("Transaction.Begin");
    expect(sample({ value: "4000", context: "Transaction.End" })).toMatchObject({
      context: "Transaction.End",
      energy_wh: 4000,
    });
    expect(sample({ value: "1", context: "Sample.Clock" }).context).toBe("Sample.Clock");
    // OCPP's default when the charger gives none
    expect(sample({ value: "1" }).context).toBe("Sample.Periodic");
    expect(sample().context).toBe("Sample.Periodic");
    // mixed labels: the transaction boundary is not lost
    expect(
      sample(
        { value: "1", context: "Sample.Periodic" },
        { value: "16", measurand: "Current.Import", context: "Transaction.End" },
      ).context,
    ).toBe("Transaction.End");
    // a context value OCPP does not define is not passed on
    expect(sample({ value: "1", context: "Whenever" }).context).toBe("Sample.Periodic");
  });

  it("the charger's timestamp in UTC with milliseconds; unreadable ones are null", () => {
    const of = (timestamp: string) =>
      normalizeMeterValue({ timestamp, sampledValue: [{ value: "1" }] }).sampled_at;
    expect(of("2026-11-22T11:00:00+01:00")).toBe("2026-11-22T10:00:00.000Z");
    expect(of("2026-11-22T10:00:00.5Z")).toBe("2026-11-22T10:00:00.500Z");
    expect(of("yesterday")).toBeNull();
    expect(of("2026-13-45T99:00:00Z")).toBeNull();
    expect(of("1700000000")).toBeNull();
  });
});

describe("never throws on charger input", () => {
  it("unreadable values make their field null", () => {
    expect(
      sample(
        { value: "twelve" },
        { value: "", measurand: "Power.Active.Import" },
        { value: "NaN", measurand: "SoC" },
        { value: "0x10", measurand: "Current.Import" },
        { value: "Infinity", measurand: "Voltage" },
      ),
    ).toEqual({ ...nothing, sampled_at: at, context: "Sample.Periodic" });
  });

  it("absurd multipliers and magnitudes, unknown units, odd names", () => {
    const unreadable: SampledValue[] = [
      { value: 1, unitOfMeasure: { multiplier: 99 } }, // 10^99 Wh
      { value: 1, unitOfMeasure: { multiplier: 1000 } },
      { value: 1, unitOfMeasure: { multiplier: 1.5 } },
      { value: "1e400" },
      { value: "9".repeat(41) },
      { value: 1e16 }, // beyond 10^15 Wh
      { value: "1", unit: "constructor" },
      { value: "1", unit: "__proto__" },
    ];
    for (const sv of unreadable) expect(sample(sv).energy_wh, JSON.stringify(sv)).toBeNull();
    expect(sample({ value: "1", measurand: "toString" })).toMatchObject(nothing);
    expect(sample({ value: "1", measurand: "__proto__" })).toMatchObject(nothing);
    // tiny values are readable: they round to zero
    expect(sample({ value: "1e-400" })).toMatchObject({ energy_wh: 0, energy_kwh: "0.000" });
  });

  it("structurally broken input", () => {
    const broken = [
      null,
      undefined,
      42,
      "MeterValue",
      {},
      { timestamp: at },
      { timestamp: at, sampledValue: null },
      { timestamp: at, sampledValue: "1234" },
      { timestamp: 1, sampledValue: [null, 7, "x", [], { value: null }, { value: {} }] },
      { timestamp: at, sampledValue: [{ value: "5", phase: 1, unitOfMeasure: "kWh" }] },
      {
        timestamp: at,
        sampledValue: [{ value: "5", unitOfMeasure: { unit: 3, multiplier: "3" } }],
      },
    ];
    for (const input of broken) {
      const result = normalizeMeterValue(input as never);
      expect(result).toMatchObject(nothing);
    }
  });

  it("for any input at all (property)", () => {
    const anySampledValue = fc.record(
      {
        value: fc.oneof(fc.string(), fc.double(), fc.integer(), fc.anything()),
        measurand: fc.constantFrom(
          "Energy.Active.Import.Register",
          "Power.Active.Import",
          "Current.Import",
          "Voltage",
          "SoC",
          "constructor",
          "Temperature",
        ),
        phase: fc.constantFrom("L1", "L2", "L3", "N", "L1-N", "L1-L2", "x"),
        unit: fc.oneof(fc.constantFrom("Wh", "kWh", "W", "kW", "A", "V", "Percent"), fc.string()),
        unitOfMeasure: fc.record(
          { unit: fc.string(), multiplier: fc.oneof(fc.integer(), fc.double()) },
          { requiredKeys: [] },
        ),
        context: fc.string(),
        location: fc.string(),
      },
      { requiredKeys: [] },
    );
    fc.assert(
      fc.property(fc.oneof(fc.array(anySampledValue), fc.anything()), fc.anything(), (sv, ts) => {
        const result = normalizeMeterValue({ timestamp: ts, sampledValue: sv } as never);
        expect(Object.keys(result).sort()).toEqual(
          [...Object.keys(nothing), "sampled_at", "context"].sort(),
        );
        if (result.energy_wh !== null) {
          expect(Number.isSafeInteger(result.energy_wh)).toBe(true);
          expect(result.energy_kwh).toBe(kwhFromWh(result.energy_wh));
        }
      }),
      { numRuns: 500 },
    );
  });
});

describe("exactness (property)", () => {
  it("any decimal kWh reading gives its Wh rounded half up, and kWh = Wh / 1000", () => {
    fc.assert(
      fc.property(
        fc.bigInt({ min: 0n, max: 10n ** 11n }),
        fc.integer({ min: 0, max: 6 }),
        (digits, places) => {
          // digits × 10^-places kWh, written as a decimal string
          const text = toFixed({ n: digits, d: 10n ** BigInt(places) }, places);
          const result = sample({ value: text, unit: "kWh" });
          // Wh = digits × 1000 / 10^places, rounded half up, in integers
          const scaled = digits * 1000n;
          const unit = 10n ** BigInt(places);
          const wh = Number((scaled + unit / 2n) / unit);
          expect(result.energy_wh).toBe(wh);
          expect(result.energy_kwh).toBe(kwhFromWh(wh));
        },
      ),
    );
  });

  it("2.x Wh with any multiplier equals value × 10^multiplier", () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 999_999 }), fc.integer({ min: 0, max: 6 }), (v, m) => {
        expect(sample({ value: v, unitOfMeasure: { unit: "Wh", multiplier: m } }).energy_wh).toBe(
          v * 10 ** m,
        );
      }),
    );
  });
});

describe("parseReading and kwhFromWh", () => {
  it("read plain decimals and exponents exactly", () => {
    expect(parseReading("12.5")).toEqual({ n: 25n, d: 2n });
    expect(parseReading(" +7 ")).toEqual({ n: 7n, d: 1n });
    expect(parseReading("-0.25")).toEqual({ n: -1n, d: 4n });
    expect(parseReading("1.2E3")).toEqual({ n: 1200n, d: 1n });
    expect(parseReading(".5")).toEqual({ n: 1n, d: 2n });
    expect(parseReading("5.")).toEqual({ n: 5n, d: 1n });
    expect(parseReading(0.1)).toEqual({ n: 1n, d: 10n });
    expect(parseReading(1e21)).toEqual({ n: 10n ** 21n, d: 1n });
    for (const bad of [
      "",
      ".",
      "-",
      "e3",
      "1e",
      "1,5",
      "1 000",
      "0x10",
      "NaN",
      NaN,
      Infinity,
      null,
      true,
      {},
    ])
      expect(parseReading(bad)).toBeNull();
  });

  it("print integer Wh as kWh with three decimals", () => {
    expect(kwhFromWh(0)).toBe("0.000");
    expect(kwhFromWh(300)).toBe("0.300");
    expect(kwhFromWh(4000)).toBe("4.000");
    expect(kwhFromWh(12345)).toBe("12.345");
    expect(kwhFromWh(-1500)).toBe("-1.500");
    expect(kwhFromWh(9007199254740991)).toBe("9007199254740.991");
  });
});
