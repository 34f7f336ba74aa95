import { db as defaultDb, type Db, type DbTx } from "../db";
import { gatewayAlive } from "../charging/gateways";
import { DomainError, fieldError, notFound } from "../errors";
import { issueToken } from "../charging/authorize-token";
import type { Command } from "./command-schema";
import { createOperation } from "./create-operation";
import { readOperation } from "./operation-row";
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
 * Validates a command against the station (its connector, EVSE, transaction) and records it as a
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
  const connectorId = "connector_id" in command ? (command.connector_id ?? null) : null;
  const evseNumber = "evse_number" in command ? (command.evse_number ?? null) : null;
  if (connectorId !== null && evseNumber !== null)
    throw fieldError("validation_failed", "Name a connector or an EVSE, not both.", [
      { field: "evse_number", message: "must be absent when connector_id is given" },
    ]);
  const transactionId = command.action === "stop" ? command.transaction_id : null;
  // What the command names and who holds the station, in one statement (Prisma's include and the
  // gateway read took three): the station, the connector and transaction it names, if they are the
  // station's, and the live gateway holding its socket (`owningGateway`'s rule).
  const [station] = await db.$queryRaw<
    {
      connectorFound: boolean;
      evseFound: boolean;
      transactionFound: boolean;
      transactionEnded: boolean;
      gatewayId: string | null;
    }[]
  >`
    SELECT EXISTS (SELECT 1 FROM connectors c WHERE c.station_id = s.id AND c.id = ${connectorId})
             AS "connectorFound",
           EXISTS (SELECT 1 FROM evses e WHERE e.station_id = s.id AND e.evse_number = ${evseNumber})
             AS "evseFound",
           t.id IS NOT NULL AS "transactionFound", t.ended_at IS NOT NULL AS "transactionEnded",
           g.id AS "gatewayId"
      FROM stations s
      LEFT JOIN transactions t ON t.id = ${transactionId} AND t.station_id = s.id
                              AND t.tenant_id = s.tenant_id
      LEFT JOIN gateways g ON g.id = s.gateway_id AND ${gatewayAlive("g")}
     WHERE s.id = ${stationId} AND s.tenant_id = ${tenantId}`;
  if (!station) throw notFound("station");
  if (connectorId !== null && !station.connectorFound)
    throw new DomainError(
      "connector_not_found",
      "connector_id names no connector of this station.",
      { fields: [{ field: "connector_id", message: "names no connector of this station" }] },
    );
  if (evseNumber !== null && !station.evseFound)
    throw new DomainError("evse_not_found", "evse_number names no EVSE of this station.", {
      fields: [{ field: "evse_number", message: "names no EVSE of this station" }],
    });
  if (transactionId !== null) {
    if (!station.transactionFound)
      throw new DomainError(
        "transaction_not_found",
        "transaction_id names no transaction of this station.",
        { fields: [{ field: "transaction_id", message: "names no transaction of this station" }] },
      );
    if (station.transactionEnded)
      throw new DomainError("transaction_ended", "The transaction has already ended.", {
        transaction_id: transactionId,
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
    gatewayId: station.gatewayId,
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
      const row = await readOperation(db, operationId);
      const left = deadline - Date.now();
      if (row.status !== "dispatching" || left <= 0 || !notice) return presentOperation(row);
      await notice.next(Math.min(pollMs, left));
    }
  } finally {
    notice?.cancel();
  }
}
