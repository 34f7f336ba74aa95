import { z } from "zod";
import { refuse, type OperationKind } from "./kind";

const statusRequest = z.object({ transaction_id: z.number().int(), reference: z.string() });

/**
 * OCPP 2.x GetTransactionStatus, sent by the service itself (no API route) when a 2.x charger
 * reconnects while the service still has transactions of it open (`askTransactionStatus`): the
 * answer says whether the charger still runs the transaction (`ongoing`) and whether it holds
 * queued messages for it (`messages_in_queue`), before the gateway records the messages it sends.
 */
export const stationTransactionStatus: OperationKind = {
  scope: "station.transaction_status",
  carriesSecret: false,
  build({ operation, station }) {
    const { reference } = statusRequest.parse(operation.request);
    if (station.protocol === "ocpp1.6")
      return Promise.resolve(
        refuse("protocol_unsupported", "GetTransactionStatus is not part of OCPP 1.6."),
      );
    return Promise.resolve({
      action: "GetTransactionStatus",
      payload: { transactionId: reference },
    });
  },
  interpret(answer) {
    const a = answer as { ongoingIndicator?: boolean; messagesInQueue: boolean };
    return {
      status: "succeeded",
      result: { ongoing: a.ongoingIndicator ?? null, messages_in_queue: a.messagesInQueue },
    };
  },
};
