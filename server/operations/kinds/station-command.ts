import { commandBody, type Command } from "../command-schema";
import { byChargerStatus, refuse, type OcppCall, type OperationKind, type Refusal } from "./kind";

type Target = {
  connector?: { connectorNumber: number; evseNumber: number; evseConnectorNumber: number };
  /** an EVSE, with its connectors' 1.6 numbers (1.6 addresses an EVSE by its one connector) */
  evse?: { evseNumber: number; connectorNumbers: number[] };
  transactionReference?: string;
};

let remoteStartId = Math.floor(Date.now() / 1000) % 1_000_000;
/** OCPP 2.x RequestStartTransaction's remoteStartId: one sequence for every kind that starts. */
export const nextRemoteStartId = () => ++remoteStartId;

/**
 * Operator commands (start, stop, reset, unlock, availability, trigger). The API validated the
 * command against the station and stored it with resource IDs and EVSE numbers; `build` translates
 * them to the fields of the protocol the station speaks now: a connector, an EVSE (2.x `evse`
 * without `connectorId`, `Reset`'s `evseId`) or the whole station (no `evse`; 1.6 connector 0).
 */
export const stationCommand: OperationKind = {
  scope: "station.command",
  carriesSecret: false,
  async build({ operation, station, db }) {
    const command = commandBody.parse(operation.request);
    const target: Target = {};
    if ("connector_id" in command && command.connector_id !== undefined) {
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
    if ("evse_number" in command && command.evse_number !== undefined) {
      const evse = await db.evse.findFirst({
        where: { stationId: station.id, evseNumber: command.evse_number },
        include: { connectors: { select: { connectorNumber: true } } },
      });
      if (!evse) return refuse("evse_not_found", "The EVSE is no longer part of the station.");
      target.evse = {
        evseNumber: evse.evseNumber,
        connectorNumbers: evse.connectors.map((c) => c.connectorNumber),
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

const notInProtocol = (what: string) =>
  refuse("protocol_unsupported", `${what} is not part of OCPP 1.6; nothing was sent.`);

/** OCPP 1.6 addresses an EVSE through its connector: only an EVSE with exactly one can be named. */
function v16ConnectorOf(evse: NonNullable<Target["evse"]>): number | Refusal {
  return evse.connectorNumbers.length === 1
    ? evse.connectorNumbers[0]!
    : notInProtocol("An EVSE with several connectors");
}

/** The request each protocol version expects for a command. */
function ocppCall(command: Command, protocol: string, target: Target): OcppCall | Refusal {
  const v16 = protocol === "ocpp1.6";
  const c = target.connector;
  const evse = target.evse;
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
      if (v16)
        return evse
          ? notInProtocol("Resetting one EVSE")
          : { action: "Reset", payload: { type: command.mode === "hard" ? "Hard" : "Soft" } };
      return {
        action: "Reset",
        payload: {
          type: command.mode === "hard" ? "Immediate" : "OnIdle",
          ...(evse ? { evseId: evse.evseNumber } : {}),
        },
      };
    case "unlock":
      return v16
        ? { action: "UnlockConnector", payload: { connectorId: c!.connectorNumber } }
        : {
            action: "UnlockConnector",
            payload: { evseId: c!.evseNumber, connectorId: c!.evseConnectorNumber },
          };
    case "availability": {
      const operative = command.mode === "operative";
      if (v16) {
        // connector 0 is the whole station
        const connectorId = c ? c.connectorNumber : evse ? v16ConnectorOf(evse) : 0;
        if (typeof connectorId !== "number") return connectorId;
        return {
          action: "ChangeAvailability",
          payload: { connectorId, type: operative ? "Operative" : "Inoperative" },
        };
      }
      return {
        action: "ChangeAvailability",
        payload: {
          operationalStatus: operative ? "Operative" : "Inoperative",
          ...evseField(target),
        },
      };
    }
    case "trigger": {
      if (v16) {
        const connectorId = c ? c.connectorNumber : evse ? v16ConnectorOf(evse) : undefined;
        if (typeof connectorId === "object") return connectorId;
        return {
          action: "TriggerMessage",
          payload: {
            requestedMessage:
              command.message === "LogStatusNotification"
                ? "DiagnosticsStatusNotification"
                : command.message,
            ...(connectorId !== undefined ? { connectorId } : {}),
          },
        };
      }
      return {
        action: "TriggerMessage",
        payload: { requestedMessage: command.message, ...evseField(target) },
      };
    }
  }
}

/** OCPP 2.x `evse`: a connector is `{ id, connectorId }`, an EVSE `{ id }`, the station none. */
function evseField({ connector, evse }: Target) {
  if (connector)
    return { evse: { id: connector.evseNumber, connectorId: connector.evseConnectorNumber } };
  if (evse) return { evse: { id: evse.evseNumber } };
  return {};
}
