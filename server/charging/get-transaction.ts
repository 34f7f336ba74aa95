import { db as defaultDb, type DbTx } from "../db";
import { notFound } from "../errors";
import { kwhFromWh } from "./kwh-from-wh";
import { presentTransaction, transactionInclude } from "./present-transaction";

export type GetTransactionOptions = { tenantId: number; transactionId: number; db?: DbTx };

export async function getTransaction({
  tenantId,
  transactionId,
  db = defaultDb(),
}: GetTransactionOptions) {
  const row = await db.transaction.findFirst({
    where: { id: transactionId, tenantId },
    include: transactionInclude,
  });
  if (!row) throw notFound("transaction");
  return presentTransaction(row);
}

/** Most samples one answer carries: a 24-hour session of 10-second samples. */
export const MAX_METER_SAMPLES = 8_640;

/**
 * A transaction's meter samples in the charger's time order (every one stored, unthrottled, up to
 * `MAX_METER_SAMPLES` from the start). Energy is what the transaction delivered so far: the
 * register less its start reading (the first sample's when the start had none).
 */
export async function listMeterSamples({
  tenantId,
  transactionId,
  db = defaultDb(),
}: GetTransactionOptions) {
  const row = await db.transaction.findFirst({
    where: { id: transactionId, tenantId },
    select: { meterStartWh: true },
  });
  if (!row) throw notFound("transaction");
  const samples = await db.meterSample.findMany({
    where: { transactionId, tenantId },
    orderBy: [{ sampledAt: "asc" }, { id: "asc" }],
    take: MAX_METER_SAMPLES + 1,
  });
  const start = row.meterStartWh ?? samples.find((s) => s.energyWh !== null)?.energyWh ?? null;
  const data = samples.slice(0, MAX_METER_SAMPLES).map((s) => {
    const wh = s.energyWh !== null && start !== null ? Number(s.energyWh - start) : null;
    return {
      sampled_at: s.sampledAt.toISOString(),
      energy_wh: wh,
      energy_kwh: wh === null ? null : kwhFromWh(wh),
      power_kw: s.powerKw,
      current_a: s.currentA,
      voltage_v: s.voltageV,
      soc_percent: s.socPercent,
      context: s.context,
    };
  });
  return { data, truncated: samples.length > MAX_METER_SAMPLES };
}
