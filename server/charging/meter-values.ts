/**
 * Normalizes one OCPP MeterValue (1.6 or 2.x) into the meter sample of spec section 6.
 * Energy is exact: registers become integer Wh (Wh by default, kWh with its multiplier) and kWh is
 * printed from the integer, never through floating point.
 */
export type SampledValue = {
  value: string | number;
  context?: string;
  measurand?: string;
  phase?: string;
  unit?: string; // 1.6
  unitOfMeasure?: { unit?: string; multiplier?: number }; // 2.x
};

export type MeterSample = {
  sampled_at: string;
  energy_wh: number | null;
  energy_kwh: string | null;
  power_kw: string | null;
  current_a: string | null;
  voltage_v: string | null;
  soc_percent: string | null;
  context: string | null;
};

const ENERGY = "Energy.Active.Import.Register";
const PHASES = ["L1", "L2", "L3"];

/** A finite number from a charger value scaled by 10^multiplier, or null. */
function numberOf(sv: SampledValue): number | null {
  const raw = typeof sv.value === "number" ? sv.value : Number(String(sv.value).trim());
  if (typeof sv.value === "string" && String(sv.value).trim() === "") return null;
  if (!Number.isFinite(raw)) return null;
  const multiplier = sv.unitOfMeasure?.multiplier ?? 0;
  return Number.isInteger(multiplier) && Math.abs(multiplier) <= 9 ? raw * 10 ** multiplier : null;
}

const unitOf = (sv: SampledValue) => (sv.unitOfMeasure?.unit ?? sv.unit ?? "").trim();

/** Energy in integer Wh: Wh by default, kWh converted; rounded to the nearest Wh. */
function energyWh(sv: SampledValue): number | null {
  const n = numberOf(sv);
  if (n === null) return null;
  const wh = unitOf(sv).toLowerCase() === "kwh" ? n * 1000 : n;
  return Math.round(wh);
}

/** A decimal string with at most `places` decimals and no trailing zeros ("7.2", "11", "0.005"). */
export function decimal(value: number, places = 3): string {
  const fixed = value.toFixed(places);
  return fixed.includes(".") ? fixed.replace(/0+$/, "").replace(/\.$/, "") : fixed;
}

/** Wh integer to an exact kWh string with three decimals ("12.345"). */
export function kwhFromWh(wh: number): string {
  const sign = wh < 0 ? "-" : "";
  const abs = Math.abs(wh);
  return `${sign}${Math.floor(abs / 1000)}.${String(abs % 1000).padStart(3, "0")}`;
}

function pick(values: SampledValue[], measurand: string) {
  const matching = values.filter(
    (v) => (v.measurand ?? ENERGY) === measurand && !["Outlet"].includes(v.phase ?? ""),
  );
  const total = matching.find((v) => !v.phase);
  // Phase-to-neutral values (L1-N) count as that phase; phase-to-phase values (L1-L2) are ignored.
  const phases = matching.filter((v) => v.phase && PHASES.includes(v.phase.replace(/-N$/, "")));
  return { total, phases };
}

export function normalizeMeterValue(meterValue: {
  timestamp: string;
  sampledValue: SampledValue[];
}): MeterSample {
  const values = meterValue.sampledValue ?? [];
  const energy = pick(values, ENERGY);
  let wh: number | null = energy.total ? energyWh(energy.total) : null;
  if (wh === null && energy.phases.length) {
    const parts = energy.phases.map(energyWh);
    wh = parts.every((p) => p !== null) ? parts.reduce<number>((a, b) => a + b, 0) : null;
  }
  const power = pick(values, "Power.Active.Import");
  const kw = (sv: SampledValue) => {
    const n = numberOf(sv);
    return n === null ? null : unitOf(sv).toLowerCase() === "kw" ? n : n / 1000;
  };
  let powerKw: number | null = power.total ? kw(power.total) : null;
  if (powerKw === null && power.phases.length) {
    const parts = power.phases.map(kw);
    powerKw = parts.every((p) => p !== null) ? parts.reduce<number>((a, b) => a + b, 0) : null;
  }
  const current = pick(values, "Current.Import");
  const currents = (current.phases.length ? current.phases : current.total ? [current.total] : [])
    .map(numberOf)
    .filter((n): n is number => n !== null);
  const voltage = pick(values, "Voltage");
  const voltages = (voltage.phases.length ? voltage.phases : voltage.total ? [voltage.total] : [])
    .map(numberOf)
    .filter((n): n is number => n !== null);
  const soc = values.find((v) => v.measurand === "SoC");
  const socValue = soc ? numberOf(soc) : null;
  const context = values.find((v) => v.context)?.context ?? null;
  return {
    sampled_at: meterValue.timestamp,
    energy_wh: wh,
    energy_kwh: wh === null ? null : kwhFromWh(wh),
    power_kw: powerKw === null ? null : decimal(powerKw),
    current_a: currents.length ? decimal(Math.max(...currents)) : null,
    voltage_v: voltages.length
      ? decimal(voltages.reduce((a, b) => a + b, 0) / voltages.length)
      : null,
    soc_percent: socValue === null ? null : decimal(socValue, 1),
    context,
  };
}
