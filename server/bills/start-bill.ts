import { issueToken } from "../charging/authorize-token";
import { db as defaultDb, type DbTx } from "../db";
import { DomainError, notFound } from "../errors";
import { createOperation } from "../operations/create-operation";
import { requireManagedSettlement } from "./external-settlement";
import { requireFunding } from "./funding";
import { lockBill } from "./lock-bill";

export type StartBillOptions = {
  tenantId: number;
  billId: string;
  /** who asked, recorded on the operation like a command's */
  apiKeyId: string | null;
  db?: DbTx;
};

/**
 * Starts a `csms` bill (spec section 4, managed paid charging rule 3): a `bill.start` operation
 * (`operation-kinds/bill-start.ts`) that hands the charger the bill's charging token, which the
 * service issues (valid under `known_tokens` too) and never shows. Needs an `open` bill (409
 * `bill_not_open`; a simulated one is 409 `bill_simulated`) whose card payment is authorized (409
 * `payment_not_authorized`); an external session's bill is 409 `bill_externally_settled`. The bill is `starting` until the operation's outcome moves it; an
 * offline station rejects the operation at once and the bill is `open` again.
 */
export async function startBill({
  tenantId,
  billId,
  apiKeyId,
  db = defaultDb(),
}: StartBillOptions) {
  const bill = await lockBill(db, { tenantId, billId });
  if (!bill) throw notFound("bill");
  requireManagedSettlement(bill);
  if (bill.source === "simulated")
    throw new DomainError(
      "bill_simulated",
      "A simulated bill is never started: finalize it with energy_wh.",
      { bill_id: bill.id },
    );
  if (bill.status !== "open")
    throw new DomainError("bill_not_open", "Only an open bill can be started.", {
      bill_id: bill.id,
      bill_status: bill.status,
      start_operation_id: bill.startOperationId,
    });
  await requireFunding(db, bill);
  await db.bill.update({ where: { id: bill.id }, data: { status: "starting" } });
  const operation = await createOperation({
    db,
    tenantId,
    stationId: bill.stationId,
    apiKeyId,
    scope: "bill.start",
    action: "start",
    request: { bill_id: bill.id, connector_id: bill.connectorId },
  });
  await db.bill.update({ where: { id: bill.id }, data: { startOperationId: operation.id } });
  // The token the charger will present is the service's own, like a start command's.
  if (operation.status === "dispatching")
    await issueToken(db, tenantId, bill.chargingToken, "bill");
  return operation;
}
