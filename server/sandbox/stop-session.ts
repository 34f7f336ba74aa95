import type { WorkspacePrincipal } from "../access/caller";
import type { Db, DbTx } from "../db";
import { DomainError, notFound } from "../errors";
import { createCommand } from "../operations/create-command";
import { atomically } from "./atomically";
import { STATUS_CHANNEL, waitOnNotices } from "./notices";
import { loadSessionFacts, lockSandboxSession, presentSandboxSession } from "./session-facts";
import { driveNow } from "./session-job";
import type { SandboxSessionResource, SandboxSessionStatus } from "./session-schema";
import { syncSandboxSession } from "./session-status";

/** How long a stop's or refund's answer waits for the session to settle. */
export const SETTLE_WAIT_MS = 3_000;

/**
 * `POST /v1/sessions/{id}/stop`: the production stop (a `station.command` stop of the session's
 * transaction: RequestStopTransaction / RemoteStopTransaction) to the virtual charger, which first
 * reports every pending advance and then ends the transaction; the session is `stopping` at once
 * and settles by its job (server/sandbox/README.md, Settlement). Under the session's locks, so of
 * two stops the second sees the first: under another key 409 `session_already_stopped` (the same
 * key replays the first answer). A session still starting (or failed): 409 `session_not_charging`.
 */
export async function stopSandboxSession(
  db: DbTx,
  principal: WorkspacePrincipal,
  id: string,
): Promise<SandboxSessionResource> {
  return atomically(db, async (tx) => {
    const facts = await lockSandboxSession(tx, { tenantId: principal.tenantId, id });
    if (!facts) throw notFound("sandbox session");
    const status = facts.row.status as SandboxSessionStatus;
    if (status === "stopping" || status === "settled" || status === "refunded")
      throw new DomainError(
        "session_already_stopped",
        "The session was already stopped; read it for its settlement (GET /v1/sessions/{session_id}). Nothing new was sent.",
        { session_id: id, status, stop_operation_id: facts.row.stopOperationId },
      );
    if (status !== "charging" || !facts.transaction)
      throw new DomainError(
        "session_not_charging",
        status === "failed"
          ? "The session failed to start (see its last_error): there is nothing to stop."
          : "The session is still starting: retry the stop in a moment.",
        { session_id: id, status },
        status === "failed" ? {} : { retryAfterSeconds: 1 },
      );
    const operation = await createCommand({
      tenantId: principal.tenantId,
      stationId: facts.row.stationId,
      apiKeyId: principal.actorId,
      command: { action: "stop", transaction_id: facts.transaction.id },
      db: tx,
    });
    await tx.sandboxSession.update({ where: { id }, data: { stopOperationId: operation.id } });
    return syncSandboxSession(tx, id);
  });
}

/**
 * A stop's or refund's `afterCommit`: runs the session's settlement in this process if no runner
 * has it yet, and waits up to 3 s for the session to reach `until`; answers it as it is then.
 */
export async function awaitSessionStatus(
  rootDb: Db,
  body: SandboxSessionResource,
  until: readonly SandboxSessionStatus[],
  phase: "stopping" | "refund",
) {
  void driveNow(rootDb, body.id, phase);
  return waitOnNotices({
    channel: STATUS_CHANNEL,
    id: body.id,
    timeoutMs: SETTLE_WAIT_MS,
    read: async () => {
      const facts = await loadSessionFacts(rootDb, { id: body.id });
      return facts ? presentSandboxSession(rootDb, facts) : body;
    },
    done: (now) => until.includes(now.status),
  });
}
