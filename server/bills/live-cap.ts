import type { ChargerContext } from "../charging/connections";
import type { DbTx } from "../db";
import type { Transaction } from "../generated/prisma/client";
import { log } from "../log";
import { flagHoldExceeded, sendCapOperation } from "./cap-stop";
import { createOperation } from "../operations/create-operation";
import { isPricingError } from "../pricing";
import { billTariff, priceBillSession } from "./price-bill";
import { transactionSession } from "./transaction-session";

/** Live pricing runs at most once per 10 s of the charger's readings per bill. */
export const PRICE_INTERVAL_MS = 10_000;
/** CostUpdated goes to a charger at most once a minute per bill. */
export const COST_UPDATE_INTERVAL_MS = 60_000;

type ChargingBill = {
  id: string;
  status: string;
  tenant_id: number;
  station_id: number;
  tariff_id: number;
  tariff_version: number;
  pricing_group: string | null;
  merchant_validation: string | null;
  hold_minor: number;
  stop_operation_id: string | null;
  hold_exceeded_at: Date | null;
  running_priced_at: Date | null;
  cost_updated_at: Date | null;
  hold_margin_minor: number;
  settlement_owner: string;
};

/**
 * The live cap (issue 13, item 4; issue 21, item 2): while a managed bill's transaction runs, each
 * meter update prices the session so far exactly as finalizing would (the bill's tariff version
 * and adjustments), at most once per 10 s of readings (`readingAt`, the charger's newest
 * timestamp), and stores it as `running_cost_minor`. Once it reaches the hold minus the project's
 * margin, the service stops the charger: the first `bill.cap` stop is created here (its id is kept
 * on the bill under the bill's lock, so a later update never makes another) and the bill's
 * `stop_reason` is `hold_limit`; from then on the cap's sweep (`cap-sweep.ts`) sends it again,
 * and escalates, until the transaction ends. The moment the running cost passes the hold itself
 * while the transaction still runs, the bill is flagged for reconciliation with
 * `bill.cap_exceeded` (`flagHoldExceeded`), once. OCPP 2.0.1/2.1 chargers are sent the running
 * cost (`bill.cost_update`), at most once a minute. Runs in the charger message's transaction,
 * which holds the station row, so the bill row is locked at once (one query with the project's
 * margin); a session the engine cannot price yet (no start time on a time-dependent tariff) is
 * skipped. An external session's bill is priced the same way, and never stopped or flagged.
 */
export async function billTransactionUpdated(
  tx: DbTx,
  charger: ChargerContext,
  transaction: Transaction,
  readingAt: Date,
) {
  const [bill] = await tx.$queryRaw<ChargingBill[]>`
    SELECT b.id, b.status, b.tenant_id, b.station_id, b.tariff_id, b.tariff_version,
           b.pricing_group, b.merchant_validation, b.hold_minor, b.stop_operation_id,
           b.hold_exceeded_at,
           b.running_priced_at, b.cost_updated_at, t.hold_margin_minor, b.settlement_owner
    FROM bills b JOIN tenants t ON t.id = b.tenant_id
    WHERE b.transaction_id = ${transaction.id}
    FOR NO KEY UPDATE OF b`;
  if (!bill || bill.status !== "charging") return;
  const last = bill.running_priced_at?.getTime();
  if (last !== undefined && readingAt.getTime() - last < PRICE_INTERVAL_MS) return;
  const priced = {
    tariffId: bill.tariff_id,
    tariffVersion: bill.tariff_version,
    pricingGroup: bill.pricing_group,
    merchantValidation: bill.merchant_validation,
  };
  let running: number;
  try {
    const session = await transactionSession(tx, transaction);
    running = priceBillSession(priced, await billTariff(tx, priced), session).adjusted.total_minor;
  } catch (error) {
    if (!isPricingError(error)) throw error;
    log.info("a charging bill could not be priced yet", { bill_id: bill.id, reason: error.code });
    return;
  }
  const data: {
    runningCostMinor: number;
    runningPricedAt: Date;
    stopOperationId?: string;
    stopReason?: string;
    capAttempts?: number;
    costUpdatedAt?: Date;
  } = { runningCostMinor: running, runningPricedAt: readingAt };
  // An external session's bill has no hold here: no energy or hold cutoff (spec section 4,
  // external sessions rule 8); it is priced live for its usage only.
  const capped = bill.settlement_owner !== "external";
  if (
    capped &&
    running >= bill.hold_minor - bill.hold_margin_minor &&
    bill.stop_operation_id === null
  ) {
    const target = { id: bill.id, tenantId: bill.tenant_id, stationId: bill.station_id };
    const stop = await sendCapOperation(tx, target, transaction.id, 1);
    data.stopOperationId = stop.id;
    data.stopReason = "hold_limit";
    data.capAttempts = 1;
  }
  const now = new Date();
  const costUpdateDue =
    !bill.cost_updated_at ||
    now.getTime() - bill.cost_updated_at.getTime() >= COST_UPDATE_INTERVAL_MS;
  if (charger.protocol !== "ocpp1.6" && costUpdateDue) {
    await createOperation({
      db: tx,
      tenantId: bill.tenant_id,
      stationId: bill.station_id,
      apiKeyId: null,
      scope: "bill.cost_update",
      action: "cost_update",
      request: { bill_id: bill.id, transaction_id: transaction.id, total_cost_minor: running },
    });
    data.costUpdatedAt = now;
  }
  await tx.bill.update({ where: { id: bill.id }, data, select: { id: true } });
  // Past the hold with the transaction still running: no stop was confirmed (a confirmed one
  // ends the transaction, and the stop's own readings are priced by `billTransactionEnded`).
  if (capped && running > bill.hold_minor && bill.hold_exceeded_at === null)
    await flagHoldExceeded(tx, bill.id, { transactionEnded: false });
}
