import { z } from "zod";
import { refuse, type OperationKind } from "../../operations/kinds/kind";

const request = z.object({
  bill_id: z.string(),
  transaction_id: z.number().int(),
  total_cost_minor: z.number().int(),
});

/**
 * A managed bill's running cost shown on an OCPP 2.0.1/2.1 charger (`CostUpdated`, incl. taxes,
 * in the charger's configured currency: dollars here). Best effort: created by the live cap at
 * most once a minute per bill, never for 1.6 (its DataTransfer variant is out of scope), and
 * nothing depends on its outcome.
 */
export const billCostUpdate: OperationKind = {
  scope: "bill.cost_update",
  carriesSecret: false,
  async build({ operation, station, db }) {
    if (station.protocol === "ocpp1.6")
      return refuse("not_supported", "OCPP 1.6 chargers are not sent running costs.");
    const input = request.parse(operation.request);
    const transaction = await db.transaction.findFirst({
      where: { id: input.transaction_id, stationId: station.id },
      select: { reference: true },
    });
    if (!transaction)
      return refuse("transaction_not_found", "The transaction is not one of this station's.");
    return {
      action: "CostUpdated",
      payload: { totalCost: input.total_cost_minor / 100, transactionId: transaction.reference },
    };
  },
  // CostUpdated's answer is empty: any schema-valid answer is an acknowledgement.
  interpret: (answer) => ({ status: "succeeded", result: { response: answer } }),
};
