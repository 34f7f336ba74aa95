import type { DbTx } from "../../db";
import type { Operation } from "../../generated/prisma/client";
import type { OperationStatus } from "../operation-schema";

/**
 * An operation kind: everything that differs between one kind of charger operation and another
 * (a command, a password push, a bill's start, a display push). The mechanism around it is
 * the same for every kind: `createOperation` writes it, `dispatchOperation` claims, builds, sends,
 * interprets and completes it, `completeOperation` settles it once with its event and `onSettled`.
 */
export type OperationKind = {
  /** the operations' `scope`, its key in the registry (`./index.ts`) */
  scope: string;
  /**
   * Whether the kind's call carries a secret `createOperation` must be given (a pushed password):
   * it is sealed at rest (server/lib/secret-box.ts), handed to `build`, and dropped when the
   * operation is final, so no copy outlives the send.
   */
  carriesSecret: boolean;
  /** request fields kept for the kind's own use and never shown (a password's hash) */
  hiddenRequestFields?: readonly string[];
  /**
   * The OCPP call for the station's protocol, built by the gateway after it claimed the operation
   * and before it sends it; or a refusal (nothing is sent; the operation is `rejected` with it).
   * May read the database; must not write (a refusal is recorded by the dispatcher).
   */
  build(input: {
    operation: Operation;
    station: DispatchStation;
    secret: string | null;
    db: DbTx;
  }): Promise<OcppCall | Refusal>;
  /**
   * The charger's (schema-valid) answer as an outcome; `operation` is what was asked (an answer
   * that does not repeat what it answers, as 1.6 ChangeConfiguration's, is read against it; the
   * dispatcher always passes it).
   */
  interpret(
    answer: unknown,
    protocol: string,
    operation?: Operation,
  ): Outcome & { status: "succeeded" | "rejected" };
  /**
   * Runs in the transaction that makes the operation final, whatever made it final (an answer, a
   * sweep, an offline refusal, an outcome decided at creation), once: never for an operation that
   * was already final. Runs before the `operation.completed` event is appended, so what it records
   * comes first in the log. Locks: the station row is held; take only rows of this station.
   */
  onSettled?(tx: DbTx, operation: Operation, outcome: Outcome): Promise<void>;
};

export type OcppCall = { action: string; payload: Record<string, unknown> };
/** The station as the gateway holding its socket sees it. */
export type DispatchStation = { id: number; tenantId: number; protocol: string };
export type OperationError = { code: string; message: string; details: Record<string, unknown> };
export type Outcome = {
  status: Exclude<OperationStatus, "dispatching">;
  result: Record<string, unknown>;
};
export type Refusal = { refused: OperationError };

export const refuse = (code: string, message: string, details: Record<string, unknown> = {}) => ({
  refused: { code, message, details },
});

export function isRefusal(built: OcppCall | Refusal): built is Refusal {
  return "refused" in built;
}

/** A charger status word as an outcome: `accepted` ones succeed; anything else is a rejection. */
export function byChargerStatus(
  status: unknown,
  answer: unknown,
  accepted: ReadonlySet<string>,
): Outcome & { status: "succeeded" | "rejected" } {
  if (typeof status === "string" && accepted.has(status)) {
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
