import { z } from "zod";
import { byChargerStatus, refuse, type OperationKind } from "../../operations/kinds/kind";

/** What the live cap sends: the transaction's stop, or the connector taken out of service. */
export const CAP_MEANS = ["stop", "availability"] as const;
export type CapMeans = (typeof CAP_MEANS)[number];

const request = z.object({
  bill_id: z.string(),
  transaction_id: z.number().int(),
  means: z.enum(CAP_MEANS),
  attempt: z.number().int(),
});
export type CapRequest = z.infer<typeof request>;

/**
 * The live cap's calls (`server/bills/live-cap.ts` sends the first, `server/bills/cap-sweep.ts`
 * the rest): a managed bill's running cost reached its hold minus the margin, so its transaction
 * must end. `stop` is RemoteStopTransaction (1.6) / RequestStopTransaction (2.x) for the bill's
 * transaction; `availability` is ChangeAvailability Inoperative on the bill's connector (1.6) or
 * its EVSE's connector (2.x). A charger that is charging answers it `Scheduled` and takes the
 * connector out of service once the transaction ends (some end it at once), so it is the cap's
 * escalation for a charger that refuses or ignores its stops: the connector takes no new session
 * until an operator sets it operative again. Nothing is sent for a transaction that has ended
 * meanwhile (refused `transaction_ended`).
 */
export const billCap: OperationKind = {
  scope: "bill.cap",
  carriesSecret: false,
  async build({ operation, station, db }) {
    const input = request.parse(operation.request);
    const transaction = await db.transaction.findFirst({
      where: { id: input.transaction_id, stationId: station.id },
      select: {
        reference: true,
        endedAt: true,
        bill: {
          select: {
            connector: {
              select: {
                connectorNumber: true,
                evseConnectorNumber: true,
                evse: { select: { evseNumber: true } },
              },
            },
          },
        },
      },
    });
    if (!transaction?.bill)
      return refuse("transaction_not_found", "The transaction is not one of this station's.");
    if (transaction.endedAt)
      return refuse("transaction_ended", "The transaction has ended; nothing is left to stop.");
    const v16 = station.protocol === "ocpp1.6";
    if (input.means === "stop")
      return v16
        ? {
            action: "RemoteStopTransaction",
            payload: { transactionId: Number(transaction.reference) },
          }
        : { action: "RequestStopTransaction", payload: { transactionId: transaction.reference } };
    const connector = transaction.bill.connector;
    return v16
      ? {
          action: "ChangeAvailability",
          payload: { connectorId: connector.connectorNumber, type: "Inoperative" },
        }
      : {
          action: "ChangeAvailability",
          payload: {
            operationalStatus: "Inoperative",
            evse: { id: connector.evse.evseNumber, connectorId: connector.evseConnectorNumber },
          },
        };
  },
  interpret: (answer) =>
    byChargerStatus((answer as { status?: unknown } | null)?.status, answer, ACCEPTED),
};

const ACCEPTED = new Set(["Accepted", "Scheduled"]);
