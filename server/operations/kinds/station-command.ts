import { commandBody, type Command } from "../command-schema";
import { byChargerStatus, refuse, type OcppCall, type OperationKind } from "./kind";

type Target = {
  connector?: { connectorNumber: number; evseNumber: number; evseConnectorNumber: number };
  transactionReference?: string;
};

let remoteStartId = Math.floor(Date.now() / 1000) % 1_000_000;
/** OCPP 2.x RequestStartTransaction's remoteStartId: one sequence for every kind that starts. */
export const nextRemoteStartId = () => ++remoteStartId;

/**
 * Operator commands (start, stop, reset, unlock, availability). The API validated the command
 * against the station and stored it with resource IDs; `build` translates them to the fields of
 * the protocol the station speaks now.
 */
export const stationCommand: OperationKind = {
  scope: "station.command",
  carriesSecret: false,
  async build({ operation, station, db }) {
    const command = commandBody.parse(operation.request);
    const target: Target = {};
    if ("connector_id" in command) {
      const connector = await db.connector.findFirst({
        where: { id: command.connector_id, stationId: station.id },
        include: { evse: true },
      });
      if (!connector)
        return refuse("connector_not_found", "The connector is no longer part of the station.");
      target.connector = {
        connectorNumber: connector.connectorNumber,
        evseNumber: connector.evse.evseNumber,
        evseConnectorNumber: connector.evseConnectorNumber,
      };
    }
    if (command.action === "stop") {
      const transaction = await db.transaction.findFirst({
        where: { id: command.transaction_id, stationId: station.id },
        select: { reference: true },
      });
      if (!transaction)
        return refuse("transaction_not_found", "The transaction is not one of this station's.");
      target.transactionReference = transaction.reference;
    }
    return ocppCall(command, station.protocol, target);
  },
  interpret: (answer) =>
    byChargerStatus((answer as { status?: unknown } | null)?.status, answer, ACCEPTED),
};

const ACCEPTED = new Set(["Accepted", "Unlocked", "Scheduled"]);

/** The request each protocol version expects for a command. */
function ocppCall(command: Command, protocol: string, target: Target): OcppCall {
  const v16 = protocol === "ocpp1.6";
  const c = target.connector;
  switch (command.action) {
    case "start":
      return v16
        ? {
            action: "RemoteStartTransaction",
            payload: { connectorId: c!.connectorNumber, idTag: command.token },
          }
        : {
            action: "RequestStartTransaction",
            payload: {
              evseId: c!.evseNumber,
              remoteStartId: nextRemoteStartId(),
              idToken: { idToken: command.token, type: command.token_type ?? "Central" },
            },
          };
    case "stop":
      return v16
        ? {
            action: "RemoteStopTransaction",
            payload: { transactionId: Number(target.transactionReference) },
          }
        : {
            action: "RequestStopTransaction",
            payload: { transactionId: target.transactionReference },
          };
    case "reset":
      return v16
        ? { action: "Reset", payload: { type: command.mode === "hard" ? "Hard" : "Soft" } }
        : { action: "Reset", payload: { type: command.mode === "hard" ? "Immediate" : "OnIdle" } };
    case "unlock":
      return v16
        ? { action: "UnlockConnector", payload: { connectorId: c!.connectorNumber } }
        : {
            action: "UnlockConnector",
            payload: { evseId: c!.evseNumber, connectorId: c!.evseConnectorNumber },
          };
    case "availability": {
      const operative = command.mode === "operative";
      return v16
        ? {
            action: "ChangeAvailability",
            payload: {
              connectorId: c!.connectorNumber,
              type: operative ? "Operative" : "Inoperative",
            },
          }
        : {
            action: "ChangeAvailability",
            payload: {
              operationalStatus: operative ? "Operative" : "Inoperative",
              evse: { id: c!.evseNumber, connectorId: c!.evseConnectorNumber },
            },
          };
    }
  }
}
