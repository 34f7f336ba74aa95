import { db as defaultDb, type Db, type DbTx } from "../db";
import { DomainError, notFound } from "../errors";
import { issueToken } from "../charging/authorize-token";
import type { Command } from "./command-schema";
import { createOperation } from "./create-operation";
import { outcomeNotices, type OutcomeNotices } from "./outcome-notices";
import { presentOperation } from "./present-operation";

export { commandBody } from "./command-schema";

export type CreateCommandOptions = {
  tenantId: number;
  stationId: number;
  apiKeyId: string | null;
  command: Command;
  db?: DbTx;
};

/**
 * Validates a command against the station (its connector, its transaction) and records it as a
 * `station.command` operation (`createOperation`: `dispatching`, or `rejected` with
 * `station_offline` at once). The gateway holding the station translates it into the station's
 * protocol when it sends it (`./kinds/station-command.ts`).
 */
export async function createCommand({
  tenantId,
  stationId,
  apiKeyId,
  command,
  db = defaultDb(),
}: CreateCommandOptions) {
  const station = await db.station.findFirst({
    where: { id: stationId, tenantId },
    include: { connectors: true },
  });
  if (!station) throw notFound("station");
  if ("connector_id" in command && !station.connectors.some((c) => c.id === command.connector_id))
    throw new DomainError(
      "connector_not_found",
      "connector_id names no connector of this station.",
      { fields: [{ field: "connector_id", message: "names no connector of this station" }] },
    );
  if (command.action === "stop") {
    const transaction = await db.transaction.findFirst({
      where: { id: command.transaction_id, stationId, tenantId },
    });
    if (!transaction)
      throw new DomainError(
        "transaction_not_found",
        "transaction_id names no transaction of this station.",
        { fields: [{ field: "transaction_id", message: "names no transaction of this station" }] },
      );
    if (transaction.endedAt)
      throw new DomainError("transaction_ended", "The transaction has already ended.", {
        transaction_id: transaction.id,
      });
  }
  const operation = await createOperation({
    db,
    tenantId,
    stationId,
    apiKeyId,
    scope: "station.command",
    action: command.action,
    request: command,
  });
  // The token the charger will present for this start is the service's own: valid for a day.
  if (command.action === "start" && operation.status === "dispatching")
    await issueToken(db, tenantId, command.token, "start_command");
  return operation;
}

/** How often a waiting 202 reads its operation when no notice came (a missed notification). */
export const OUTCOME_POLL_MS = 1_000;

/**
 * Waits a short, bounded time for an operation to leave `dispatching`; returns its latest state.
 * Woken by the completing transaction's notice (`completeOperation` notifies at commit), on the
 * process's one shared LISTEN connection; a slow fallback poll covers a lost notice or a dropped
 * listener. The subscription is listening before the first read, so a completion that commits
 * after that read is always noticed.
 */
export async function waitForOperation({
  db,
  operationId,
  timeoutMs,
  pollMs = OUTCOME_POLL_MS,
  notices = outcomeNotices(),
}: {
  db: Db;
  operationId: string;
  timeoutMs: number;
  pollMs?: number;
  notices?: OutcomeNotices;
}) {
  const deadline = Date.now() + timeoutMs;
  const notice = timeoutMs > 0 ? await notices.subscribe(operationId) : null;
  try {
    for (;;) {
      const row = await db.operation.findUniqueOrThrow({ where: { id: operationId } });
      const left = deadline - Date.now();
      if (row.status !== "dispatching" || left <= 0 || !notice) return presentOperation(row);
      await notice.next(Math.min(pollMs, left));
    }
  } finally {
    notice?.cancel();
  }
}
