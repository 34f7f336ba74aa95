import type { ChargerContext } from "../charging/connections";
import type { DbTx } from "../db";
import type { Transaction } from "../generated/prisma/client";
import { log } from "../log";
import { asChargingToken } from "./charging-token";
import { lockBillRow } from "./lock-bill";

/** Bills a transaction with their token may still become: not yet charging, not final. */
const MATCHABLE = new Set(["open", "starting", "start_unknown"]);

/**
 * A transaction started, or learned its token: when the token is a bill's (tenant-scoped; tokens
 * are unique per tenant, so at most one bill has it) and the transaction runs on that bill's
 * station and connector, the bill takes the transaction and is `charging`. The first such
 * transaction wins; a token on another connector, or of a bill already charging, ended or final,
 * matches nothing and is logged (without the token). Runs in the charger message's transaction,
 * which holds the station row, so the bill row comes next in the lock order.
 */
export async function matchBill(tx: DbTx, charger: ChargerContext, transaction: Transaction) {
  const token = transaction.idToken === null ? null : asChargingToken(transaction.idToken);
  if (!token) return;
  const candidate = await tx.bill.findUnique({
    where: { tenantId_chargingToken: { tenantId: charger.tenantId, chargingToken: token } },
    select: { id: true, source: true, stationId: true, connectorId: true, status: true },
  });
  // a simulated bill's token is never handed to a charger: no charger's message touches it
  if (!candidate || candidate.source !== "csms") return;
  const reason =
    candidate.stationId !== charger.stationId
      ? "another_station"
      : candidate.connectorId !== transaction.connectorId
        ? "another_connector"
        : !MATCHABLE.has(candidate.status)
          ? `bill_${candidate.status}`
          : null;
  const bill = reason === null ? await lockBillRow(tx, candidate.id) : null;
  if (bill && MATCHABLE.has(bill.status) && bill.transactionId === null) {
    await tx.bill.update({
      where: { id: bill.id },
      data: { status: "charging", transactionId: transaction.id },
    });
    return;
  }
  log.warn("a transaction carries a bill's token but is not the bill's", {
    bill_id: candidate.id,
    transaction_id: transaction.id,
    station_id: charger.stationId,
    reason: reason ?? `bill_${bill?.status ?? "gone"}`,
  });
}
