import { z } from "zod";
import { syncSessionStatus } from "../sync-status";
import { byChargerStatus, refuse, type OperationKind } from "../../operations/kinds/kind";

const request = z.object({ session_id: z.string(), transaction_id: z.number().int() });

/**
 * An external session's stop (POST …/charging-sessions/{id}/stop): the remote stop of the
 * session's own matched transaction, recorded on the request by the service. Its outcome
 * publishes the session's status (a refused stop leaves it `charging`, to stop again).
 */
export const externalStop: OperationKind = {
  scope: "external.stop",
  carriesSecret: false,
  async build({ operation, station, db }) {
    const { transaction_id } = request.parse(operation.request);
    const transaction = await db.transaction.findFirst({
      where: { id: transaction_id, stationId: station.id },
      select: { reference: true, endedAt: true },
    });
    if (!transaction)
      return refuse("transaction_not_found", "The transaction is not one of this station's.");
    if (transaction.endedAt) return refuse("transaction_ended", "The transaction has ended.");
    return station.protocol === "ocpp1.6"
      ? {
          action: "RemoteStopTransaction",
          payload: { transactionId: Number(transaction.reference) },
        }
      : { action: "RequestStopTransaction", payload: { transactionId: transaction.reference } };
  },
  interpret: (answer) =>
    byChargerStatus((answer as { status?: unknown } | null)?.status, answer, ACCEPTED),
  async onSettled(tx, operation) {
    await syncSessionStatus(tx, request.parse(operation.request).session_id);
  },
};

const ACCEPTED = new Set(["Accepted"]);
