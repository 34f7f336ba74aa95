import type { Db } from "../db";
import { inTransaction } from "../db/retry";
import { open } from "../lib/secret-box";
import { log } from "../log";
import { completeOperation } from "./complete-operation";
import { operationKind } from "./kinds";
import type { Operation } from "../generated/prisma/client";
import {
  isRefusal,
  type DispatchStation,
  type OcppCall,
  type OperationKind,
  type Outcome,
  type Refusal,
} from "./kinds/kind";

/** What became of one call sent to a charger, in the words the outcome needs. */
export type SendResult =
  /** a CALLRESULT that passed the official schema */
  | { kind: "answered"; answer: unknown }
  /** a CALLERROR: the charger says it did not process the call */
  | { kind: "call_error"; code: string }
  /** refused before it left (our call failed the official schema): nothing was sent */
  | { kind: "not_sent"; reason: string }
  /**
   * Sent, and no answer we can act on: a timeout, a closed socket, or an answer that fails the
   * official schema (the charger may well have carried the call out).
   */
  | { kind: "unconfirmed"; reason: string };

/** The socket to a station, as the gateway that holds it offers it. */
export type ChargerLink = {
  protocol: string;
  /** sends one call and waits for its answer; never throws */
  send: (call: OcppCall) => Promise<SendResult>;
};

/**
 * The one dispatch path for every operation kind, run by the gateway that holds the station's
 * socket (`link` answers for the stations it holds). The operation is claimed with a conditional
 * UPDATE before anything is built or sent, so exactly one gateway sends it and never twice; the
 * kind builds the call for the protocol the socket speaks; the answer becomes the outcome
 * (`interpret`), and the operation is completed with its kind's `onSettled` in one transaction,
 * run again after a deadlock or serialization failure. An outcome this sender cannot record is
 * left to `settleOrphanedOperations`. Returns the completed operation, or null when it was not
 * this gateway's to send or was already final.
 */
export async function dispatchOperation({
  db,
  operationId,
  gatewayId,
  link,
}: {
  db: Db;
  operationId: string;
  gatewayId: string;
  link: (stationId: number) => ChargerLink | undefined;
}) {
  const operation = await db.operation.findUnique({ where: { id: operationId } });
  if (!operation || operation.status !== "dispatching" || operation.claimedBy) return null;
  const charger = operation.stationId ? link(operation.stationId) : undefined;
  if (!operation.stationId || !charger) return null; // not held here; the sweeps decide
  const kind = operationKind(operation.scope); // before the claim: an unknown scope is never claimed
  const claimed = await db.operation.updateMany({
    where: { id: operationId, status: "dispatching", claimedBy: null },
    data: { claimedBy: gatewayId, claimedAt: new Date() },
  });
  if (claimed.count === 0) return null;
  const station = {
    id: operation.stationId,
    tenantId: operation.tenantId,
    protocol: charger.protocol,
  };
  const outcome = await buildSendInterpret({ db, kind, operation, station, charger });
  return inTransaction(db, (tx) => completeOperation(tx, operationId, outcome));
}

/** Never throws: a failure before the send is `rejected` (nothing sent), after it `unknown`. */
async function buildSendInterpret({
  db,
  kind,
  operation,
  station,
  charger,
}: {
  db: Db;
  kind: OperationKind;
  operation: Operation;
  station: DispatchStation;
  charger: ChargerLink;
}): Promise<Outcome> {
  let built: OcppCall | Refusal;
  try {
    built = await kind.build({
      operation,
      station,
      secret: operation.secret === null ? null : open(operation.secret),
      db,
    });
  } catch (error) {
    log.error("building an operation's call failed", { operationId: operation.id, error });
    return notSent("The call could not be built.");
  }
  if (isRefusal(built)) return { status: "rejected", result: { error: built.refused } };
  const sent = await charger.send(built);
  if (sent.kind !== "answered") return outcomeOf(sent);
  try {
    return kind.interpret(sent.answer, charger.protocol, operation);
  } catch (error) {
    log.error("interpreting a charger's answer failed", { operationId: operation.id, error });
    return outcomeOf({ kind: "unconfirmed", reason: "The answer could not be interpreted." });
  }
}

function outcomeOf(sent: Exclude<SendResult, { kind: "answered" }>): Outcome {
  switch (sent.kind) {
    case "call_error":
      return {
        status: "rejected",
        result: {
          error: {
            code: "charger_error",
            message: `The charger answered with ${sent.code}.`,
            details: { rpc_error_code: sent.code },
          },
        },
      };
    case "not_sent":
      return notSent(sent.reason);
    case "unconfirmed":
      return {
        status: "unknown",
        result: {
          error: {
            code: "dispatch_unconfirmed",
            message: "The charger did not confirm the command; reconcile before sending it again.",
            details: { reason: sent.reason },
          },
        },
      };
  }
}

const notSent = (reason: string): Outcome => ({
  status: "rejected",
  result: {
    error: {
      code: "internal_error",
      message: "The call could not be made; nothing was sent to the charger.",
      details: { reason },
    },
  },
});
