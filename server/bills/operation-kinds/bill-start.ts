import { z } from "zod";
import { lockBillRow } from "../lock-bill";
import { byChargerStatus, refuse, type OperationKind } from "../../operations/kinds/kind";
import { nextRemoteStartId } from "../../operations/kinds/station-command";

const request = z.object({ bill_id: z.string(), connector_id: z.number().int() });

/**
 * A bill's start (POST …/bills/{id}/start): the start command carrying the bill's charging token,
 * read from the bill when the call is built, so the token is in no operation request, result or
 * event. Its outcome moves the bill: `rejected` back to `open` (start again with a new key),
 * `unknown` to `start_unknown`; `succeeded` leaves it `starting` until the transaction appears
 * (`bills/match-bill.ts`), which may also come first.
 */
export const billStart: OperationKind = {
  scope: "bill.start",
  carriesSecret: false,
  async build({ operation, station, db }) {
    const { bill_id } = request.parse(operation.request);
    const bill = await db.bill.findFirst({
      where: { id: bill_id, stationId: station.id },
      select: {
        status: true,
        chargingToken: true,
        connector: { select: { connectorNumber: true, evse: { select: { evseNumber: true } } } },
      },
    });
    if (!bill) return refuse("not_found", "The bill is no longer this station's.");
    if (bill.status !== "starting")
      return refuse("bill_not_open", "The bill is no longer waiting for its start.", {
        bill_status: bill.status,
      });
    return station.protocol === "ocpp1.6"
      ? {
          action: "RemoteStartTransaction",
          payload: { connectorId: bill.connector.connectorNumber, idTag: bill.chargingToken },
        }
      : {
          action: "RequestStartTransaction",
          payload: {
            evseId: bill.connector.evse.evseNumber,
            remoteStartId: nextRemoteStartId(),
            idToken: { idToken: bill.chargingToken, type: "Central" },
          },
        };
  },
  interpret: (answer) =>
    byChargerStatus((answer as { status?: unknown } | null)?.status, answer, ACCEPTED),
  async onSettled(tx, operation, outcome) {
    const { bill_id } = request.parse(operation.request);
    // The station row is held (completeOperation); the bill is one of its rows.
    const bill = await lockBillRow(tx, bill_id);
    // One start of a bill is in flight at a time (a bill starts only when `open`, and a start
    // leaves it `open` only once final), so a `starting` bill is this operation's. A transaction
    // may have matched it first: then it is `charging` and stays so.
    if (!bill || bill.status !== "starting" || outcome.status === "succeeded") return;
    await tx.bill.update({
      where: { id: bill.id },
      data: { status: outcome.status === "rejected" ? "open" : "start_unknown" },
    });
  },
};

const ACCEPTED = new Set(["Accepted"]);
