import { db as defaultDb, type DbTx } from "../db";
import { DomainError, fieldError, notFound } from "../errors";
import type { Transaction } from "../generated/prisma/client";
import { appendBillEvent } from "./bill-events";
import { DEFAULT_SIMULATED_SECONDS, type FinalizeBillInput } from "./bill-schema";
import { asChargingToken } from "./charging-token";
import { requireManagedSettlement } from "./external-settlement";
import { lockBill } from "./lock-bill";
import { billTariff, finalColumns, priceBillSession, pricedOr, quoteBill } from "./price-bill";
import { billInclude, presentBill, type BillRow } from "./present-bill";
import { transactionSession } from "./transaction-session";

export type FinalizeBillOptions = {
  tenantId: number;
  billId: string;
  input: FinalizeBillInput;
  /** set by an external session finalizing its own bill; otherwise such a bill is refused */
  bySession?: boolean;
  db?: DbTx;
};

/**
 * Fixes a bill's amount (spec section 4, managed paid charging rule 5; rule 9 for simulated
 * bills), once: the pricing engine on the bill's tariff version, then the group discount, the
 * merchant validation and the cost cap; `cost_breakdown` with `activity` on `elements-v1` bills;
 * `bill.finalized` in the same transaction. A final bill never changes: finalizing it again with
 * the same input answers it as it is, with another input 409 `bill_final`. An external session's
 * bill is finalized through its session only (else 409 `bill_externally_settled`); its
 * `bill.finalized` carries `session_id`.
 *
 * - `csms`: `transaction_id` names the completed transaction carrying the bill's token on its
 *   station and connector (409 `transaction_mismatch`, with the reason), ended (409
 *   `transaction_active`), with a start and an end not before it (409
 *   `transaction_times_invalid`); while the bill's start is being dispatched, 409
 *   `bill_start_in_progress`.
 * - `simulated`: `energy_wh` drawn evenly over `duration_seconds` (default 3600) from the bill's
 *   creation, priced as a quote.
 */
export async function finalizeBill({
  tenantId,
  billId,
  input,
  bySession = false,
  db = defaultDb(),
}: FinalizeBillOptions) {
  const bill = await lockBill(db, { tenantId, billId });
  if (!bill) throw notFound("bill");
  if (!bySession) requireManagedSettlement(bill);
  if (bill.status === "final") {
    if (sameInput(bill, input)) return presentBill(bill);
    throw new DomainError("bill_final", "The bill is final; its amount never changes.", {
      bill_id: bill.id,
      total_minor: bill.totalMinor,
    });
  }
  requireInputOf(bill, input);
  const snapshot = await billTariff(db, bill);
  let columns: ReturnType<typeof finalColumns>;
  let transactionId: number | null = null;
  if (bill.source === "simulated") {
    const durationSeconds = input.duration_seconds ?? DEFAULT_SIMULATED_SECONDS;
    const price = pricedOr(
      () =>
        quoteBill(bill, snapshot, {
          energy_wh: input.energy_wh!,
          duration_seconds: durationSeconds,
          start_at: bill.createdAt,
        }),
      (message) => fieldError("validation_failed", message, [{ field: "energy_wh", message }]),
    );
    columns = finalColumns(bill, price, durationSeconds);
  } else {
    await requireNoStartInFlight(db, bill);
    const transaction = await verifiedTransaction(db, bill, input.transaction_id!);
    const session = await transactionSession(db, transaction);
    const price = pricedOr(
      () => priceBillSession(bill, snapshot, session),
      (message) => timesInvalid(transaction.id, "unpriceable", message),
    );
    const seconds = Math.round(
      (transaction.endedAt!.getTime() - transaction.startedAt!.getTime()) / 1000,
    );
    columns = finalColumns(bill, price, seconds);
    transactionId = transaction.id;
  }
  const final = await db.bill.update({
    where: { id: bill.id },
    data: { ...columns, status: "final", finalizedAt: new Date(), transactionId },
    include: billInclude,
  });
  return appendBillEvent(
    db,
    "bill.finalized",
    final,
    final.sessionId ? { session_id: final.sessionId } : {},
  );
}

function sameInput(bill: BillRow, input: FinalizeBillInput) {
  return bill.source === "simulated"
    ? input.transaction_id === undefined &&
        input.energy_wh === bill.energyWh &&
        (input.duration_seconds ?? DEFAULT_SIMULATED_SECONDS) === bill.durationSeconds
    : input.energy_wh === undefined &&
        input.duration_seconds === undefined &&
        input.transaction_id === bill.transactionId;
}

/** 422 for the fields the bill's source does not take, and the one it needs. */
function requireInputOf(bill: BillRow, input: FinalizeBillInput) {
  const simulated = bill.source === "simulated";
  const issues = [
    ...(simulated && input.energy_wh === undefined
      ? [{ field: "energy_wh", message: "a simulated bill is finalized with energy_wh" }]
      : []),
    ...(simulated && input.transaction_id !== undefined
      ? [{ field: "transaction_id", message: "a simulated bill has no transaction" }]
      : []),
    ...(!simulated && input.transaction_id === undefined
      ? [{ field: "transaction_id", message: "a csms bill is finalized with its transaction" }]
      : []),
    ...(!simulated
      ? (["energy_wh", "duration_seconds"] as const)
          .filter((f) => input[f] !== undefined)
          .map((field) => ({ field, message: "only simulated bills take it" }))
      : []),
  ];
  if (issues.length)
    throw fieldError("validation_failed", `${issues[0]!.field} ${issues[0]!.message}.`, issues);
}

async function requireNoStartInFlight(db: DbTx, bill: BillRow) {
  if (bill.status !== "starting" || !bill.startOperationId) return;
  const dispatching = await db.operation.count({
    where: { id: bill.startOperationId, status: "dispatching" },
  });
  if (dispatching)
    throw new DomainError(
      "bill_start_in_progress",
      "The bill's start is still being dispatched; finalize once it settled and its transaction ended.",
      { bill_id: bill.id, start_operation_id: bill.startOperationId },
    );
}

const mismatch = (transactionId: number, reason: string, message: string) =>
  new DomainError("transaction_mismatch", message, { transaction_id: transactionId, reason });

const timesInvalid = (transactionId: number, reason: string, message: string) =>
  new DomainError("transaction_times_invalid", message, { transaction_id: transactionId, reason });

/**
 * The transaction a csms bill is finalized with: the tenant's, on the bill's station and
 * connector, carrying its token (another tenant's reads as unknown), the one the bill matched
 * when it matched one, ended, and with times the engine can price.
 */
async function verifiedTransaction(db: DbTx, bill: BillRow, transactionId: number) {
  const t: Transaction | null = await db.transaction.findFirst({
    where: { id: transactionId, tenantId: bill.tenantId },
  });
  if (!t)
    throw mismatch(transactionId, "unknown_transaction", "No such transaction in this project.");
  if (bill.transactionId !== null && bill.transactionId !== t.id)
    throw mismatch(t.id, "not_matched", "The bill is matched to another transaction.");
  if (t.stationId !== bill.stationId)
    throw mismatch(t.id, "station", "The transaction ran on another station than the bill's.");
  if (t.connectorId !== bill.connectorId)
    throw mismatch(t.id, "connector", "The transaction ran on another connector than the bill's.");
  if (t.idToken === null || asChargingToken(t.idToken) !== bill.chargingToken)
    throw mismatch(t.id, "token", "The transaction was not started with the bill's token.");
  if (!t.endedAt)
    throw new DomainError("transaction_active", "The transaction has not ended; stop it first.", {
      transaction_id: t.id,
    });
  if (!t.startedAt)
    throw timesInvalid(
      t.id,
      "start_unknown",
      "The charger never reported the transaction's start.",
    );
  if (t.endedAt < t.startedAt)
    throw timesInvalid(t.id, "end_before_start", "The transaction ends before it starts.");
  return t;
}
