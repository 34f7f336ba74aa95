/**
 * Operator commands as OCPP calls: the request each protocol version expects, and how its answer
 * becomes an operation outcome. Pure functions; the API builds the call, the gateway sends it.
 */
export type OcppCall = { action: string; payload: Record<string, unknown> };

export type CommandTarget = {
  protocol: string;
  connector?: { connectorNumber: number; evseNumber: number; evseConnectorNumber: number };
  transactionReference?: string;
};

export type Command =
  | { action: "start"; connector_id: number; token: string; token_type?: string }
  | { action: "stop"; transaction_id: number }
  | { action: "reset"; mode: "soft" | "hard" }
  | { action: "unlock"; connector_id: number }
  | { action: "availability"; connector_id: number; mode: "inoperative" | "operative" };

let remoteStartId = Math.floor(Date.now() / 1000) % 1_000_000;

export function buildOcppCall(command: Command, target: CommandTarget): OcppCall {
  const v16 = target.protocol === "ocpp1.6";
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
              remoteStartId: ++remoteStartId,
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

const ACCEPTED = new Set(["Accepted", "Unlocked", "Scheduled"]);

/** A charger's answer as an outcome: accepted statuses succeed, anything else is a rejection. */
export function interpretAnswer(answer: unknown): {
  status: "succeeded" | "rejected";
  result: Record<string, unknown>;
} {
  const setVariable = (answer as { setVariableResult?: { attributeStatus?: string }[] } | null)
    ?.setVariableResult?.[0];
  const status = setVariable
    ? setVariable.attributeStatus
    : (answer as { status?: unknown } | null)?.status;
  if (typeof status === "string" && ACCEPTED.has(status)) {
    return { status: "succeeded", result: { charger_status: status, response: answer } };
  }
  return {
    status: "rejected",
    result: {
      charger_status: typeof status === "string" ? status : null,
      response: answer,
      error: {
        code: "charger_rejected",
        message: `The charger answered ${String(status)}.`,
        details: { charger_status: status ?? null },
      },
    },
  };
}
