import { z } from "zod";
import { byChargerStatus, refuse, type OperationKind } from "../../operations/kinds/kind";
import type { ReservationStatus } from "../reservation-schema";
import { setReservationStatus } from "../reservations";

export const reservationRequest = z.object({ reservation_id: z.number().int() });

/**
 * Reserves a connector: OCPP 1.6 ReserveNow (`connectorId`, `idTag`, `expiryDate`,
 * `reservationId`), OCPP 2.x ReserveNow (`id`, `idToken` of type `Central`, `expiryDateTime`,
 * `evseId`, and `connectorType` when asked). The reservation row follows the answer: `accepted`,
 * or the charger's word lowercased (`faulted`, `occupied`, `rejected`, `unavailable`); a refusal
 * of the service's (offline, CALLERROR) is `rejected`; no confirmed answer leaves it `requested`
 * (the charger may hold it) until it expires.
 */
export const stationReservation: OperationKind = {
  scope: "station.reservation",
  carriesSecret: false,
  async build({ operation, station, db }) {
    const { reservation_id } = reservationRequest.parse(operation.request);
    const r = await db.reservation.findFirst({
      where: { id: reservation_id, stationId: station.id },
      include: { connector: { include: { evse: true } } },
    });
    if (!r) return refuse("not_found", "The reservation is gone.");
    if (r.status !== "requested")
      return refuse("reservation_closed", `The reservation is ${r.status}.`);
    if (station.protocol === "ocpp1.6")
      return {
        action: "ReserveNow",
        payload: {
          connectorId: r.connector.connectorNumber,
          expiryDate: r.expiresAt.toISOString(),
          idTag: r.token,
          reservationId: r.id,
        },
      };
    return {
      action: "ReserveNow",
      payload: {
        id: r.id,
        expiryDateTime: r.expiresAt.toISOString(),
        idToken: { idToken: r.token, type: "Central" },
        evseId: r.connector.evse.evseNumber,
        ...(r.connectorType ? { connectorType: r.connectorType } : {}),
      },
    };
  },
  interpret(answer) {
    return byChargerStatus((answer as { status?: unknown }).status, answer, new Set(["Accepted"]));
  },
  async onSettled(tx, operation, outcome) {
    const { reservation_id } = reservationRequest.parse(operation.request);
    if (outcome.status === "unknown") return;
    let status: ReservationStatus = "rejected";
    if (outcome.status === "succeeded") status = "accepted";
    else {
      const word = outcome.result.charger_status;
      if (typeof word === "string") {
        const lower = word.toLowerCase();
        if (["faulted", "occupied", "rejected", "unavailable"].includes(lower))
          status = lower as ReservationStatus;
      }
    }
    await setReservationStatus(tx, reservation_id, status, {
      at: operation.completedAt ?? new Date(),
      from: ["requested"],
    });
  },
};

/**
 * Cancels a reservation: CancelReservation (`reservationId`, both protocol families). `Accepted`
 * makes it `canceled`; a `Rejected` answer leaves it as it was (the charger holds none by that
 * id, or will not cancel it) and the operation is `rejected`.
 */
export const stationReservationCancel: OperationKind = {
  scope: "station.reservation_cancel",
  carriesSecret: false,
  build({ operation }) {
    const { reservation_id } = reservationRequest.parse(operation.request);
    return Promise.resolve({
      action: "CancelReservation",
      payload: { reservationId: reservation_id },
    });
  },
  interpret(answer) {
    return byChargerStatus((answer as { status?: unknown }).status, answer, new Set(["Accepted"]));
  },
  async onSettled(tx, operation, outcome) {
    if (outcome.status !== "succeeded") return;
    const { reservation_id } = reservationRequest.parse(operation.request);
    await setReservationStatus(tx, reservation_id, "canceled", {
      at: operation.completedAt ?? new Date(),
    });
  },
};
