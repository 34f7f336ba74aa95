import { Prisma } from "../generated/prisma/client";
import type { TransactionHooks } from "../charger-reports/transaction-hooks";
import { drawChangedMaterially } from "./allocate";
import { requestRecompute, requestRecomputeForStation } from "./trigger";

/**
 * A site limit's part in a charger's transaction reports: a transaction starting or ending on a
 * covered station asks for its location's recomputation, in the report's transaction (the job
 * runs once it commits); readings whose power moved by half the headroom or more from the draw the
 * share was computed with do too. Reads only (the limit row is never locked here).
 */
export const siteLimitTransactionHooks: TransactionHooks = {
  domain: "site-limits",
  async onTransactionStarted(tx, _charger, t) {
    await requestRecomputeForStation(tx, t.stationId);
  },
  async onTransactionUpdated(tx, _charger, t) {
    const rows = await tx.$queryRaw<
      { location_id: number; draw_w: number | null; power_kw: string | null }[]
    >`
      SELECT a.location_id, a.draw_w,
             (SELECT m.power_kw FROM meter_samples m
               WHERE m.transaction_id = a.transaction_id AND m.power_kw IS NOT NULL
               ORDER BY m.sampled_at DESC LIMIT 1) AS power_kw
        FROM site_power_allocations a WHERE a.transaction_id = ${t.id}`;
    const row = rows[0];
    if (!row) return;
    const now = row.power_kw === null ? null : Math.round(Number(row.power_kw) * 1000);
    if (drawChangedMaterially(row.draw_w, now)) await requestRecompute(tx, row.location_id);
  },
  followsPower: (transactionId) => Prisma.sql`
    EXISTS (SELECT 1 FROM site_power_allocations a WHERE a.transaction_id = ${transactionId})`,
  async onPowerReadings(tx, readings) {
    const rows = await tx.$queryRaw<
      { location_id: number; transaction_id: number; draw_w: number | null }[]
    >`
      SELECT location_id, transaction_id, draw_w FROM site_power_allocations
       WHERE transaction_id = ANY(${readings.map((r) => r.transactionId)}::int[])`;
    const due = new Set<number>();
    for (const row of rows) {
      const r = readings.find((x) => x.transactionId === row.transaction_id)!;
      if (drawChangedMaterially(row.draw_w, Math.round(Number(r.powerKw) * 1000)))
        due.add(row.location_id);
    }
    for (const locationId of due) await requestRecompute(tx, locationId);
  },
  async onTransactionEnded(tx, t) {
    await requestRecomputeForStation(tx, t.stationId);
  },
};
