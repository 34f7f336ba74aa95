import type { Db } from "../db";
import { inTransaction } from "../db/retry";
import type { Operation } from "../generated/prisma/client";
import { storePushedPassword } from "../stations/set-station-credentials";
import { completeOperation } from "./complete-operation";

export type DispatchOutcome = Parameters<typeof completeOperation>[2];

/**
 * Records what became of a command a gateway sent: the operation's final state and event, and for
 * an accepted pushed password the new hash. Runs again after a deadlock or serialization failure
 * (a concurrent disconnect touches the same station), so the outcome is not lost to one. Returns
 * null when the operation was already final (settled by a sweep), leaving it as it was.
 */
export async function recordDispatchOutcome({
  db,
  operation,
  outcome,
}: {
  db: Db;
  operation: Pick<Operation, "id" | "tenantId" | "stationId" | "scope" | "request">;
  outcome: DispatchOutcome;
}) {
  const pushedPassword =
    outcome.status === "succeeded" && operation.scope === "station.credentials";
  const final: DispatchOutcome = pushedPassword
    ? { status: "succeeded", result: { applied: "pushed" } }
    : outcome;
  return inTransaction(db, async (tx) => {
    const done = await completeOperation(tx, operation.id, final);
    if (done && pushedPassword) await storePushedPassword(tx, operation);
    return done;
  });
}
