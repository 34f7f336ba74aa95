import type { DbTx } from "../db";
import type { Prisma } from "../generated/prisma/client";
import { appendEvent } from "../events/append-event";
import { enqueue } from "../jobs/enqueue";
import { sandboxSessionJob } from "./session-job-target";
import { SANDBOX_CHANNEL, STATUS_CHANNEL } from "./notices";
import {
  deriveStatus,
  loadSessionFacts,
  lockSessionRow,
  presentSandboxSession,
} from "./session-facts";
import type { SandboxSessionResource, SandboxSessionStatus } from "./session-schema";

/** Statuses in which the session holds its connector and its station's virtual charger is wanted. */
export const OPEN_STATUSES: readonly SandboxSessionStatus[] = ["starting", "charging", "stopping"];

export type SessionError = { code: string; message: string; details?: Record<string, unknown> };

/**
 * Publishes the session's status when its facts moved it (`deriveStatus`), in the caller's
 * transaction, which wrote the fact and holds the session's station and bill (or, from a charger's
 * message, the station): the row locked and compared here, so a change is published once,
 * whoever sees it first (the charger's message through the hooks, the settlement job, a request,
 * a read). Returns the session as it now reads.
 */
export async function syncSandboxSession(tx: DbTx, id: string): Promise<SandboxSessionResource> {
  await lockSessionRow(tx, id);
  const facts = (await loadSessionFacts(tx, { id }))!;
  const status = deriveStatus(facts);
  if (status === facts.row.status) return presentSandboxSession(tx, facts);
  return moveTo(tx, id, facts.row.status as SandboxSessionStatus, status);
}

/** The session could not start: `failed` with its reason; its connector and charger are freed. */
export async function failSandboxSession(tx: DbTx, id: string, error: SessionError) {
  await lockSessionRow(tx, id);
  const row = await tx.sandboxSession.findUniqueOrThrow({ where: { id } });
  if (row.status !== "starting") return null;
  return moveTo(tx, id, "starting", "failed", { ...error, details: error.details ?? {} });
}

/**
 * Writes the move, frees the connector and the charger when the session leaves the open statuses
 * (the charger idles from then: the host disconnects it a while later), queues the settlement once
 * it is `stopping`, and appends `sandbox_session.status_changed` (its counter is the last lock).
 */
async function moveTo(
  tx: DbTx,
  id: string,
  previous: SandboxSessionStatus | null,
  status: SandboxSessionStatus,
  lastError?: SessionError,
) {
  const now = new Date();
  const open = OPEN_STATUSES.includes(status);
  const row = await tx.sandboxSession.update({
    where: { id },
    data: {
      status,
      ...(open ? {} : { openConnectorId: null }),
      ...(status === "charging" ? { startedAt: now } : {}),
      ...(status === "stopping" ? { stoppedAt: now } : {}),
      ...(status === "settled" ? { settledAt: now } : {}),
      ...(status === "refunded" ? { refundedAt: now } : {}),
      ...(lastError ? { lastError: lastError as Prisma.InputJsonObject } : {}),
    },
  });
  if (!open && previous !== null && OPEN_STATUSES.includes(previous)) {
    await tx.$executeRaw`
      UPDATE sandbox_chargers SET idle_since = ${now}
       WHERE station_id = ${row.stationId}
         AND NOT EXISTS (SELECT 1 FROM sandbox_sessions s
                          WHERE s.station_id = ${row.stationId} AND s.open_connector_id IS NOT NULL)`;
    await tx.$executeRaw`SELECT pg_notify(${SANDBOX_CHANNEL}, ${String(row.stationId)})`;
  }
  if (status === "stopping") await enqueueDrive(tx, id, "stopping");
  const session = await presentSandboxSession(tx, (await loadSessionFacts(tx, { id }))!);
  await publish(tx, session, previous);
  return session;
}

/** `sandbox_session.status_changed`, and the notice a waiting answer wakes on. */
export async function publish(
  tx: DbTx,
  session: SandboxSessionResource,
  previous: SandboxSessionStatus | null,
) {
  await tx.$executeRaw`SELECT pg_notify(${STATUS_CHANNEL}, ${session.id})`;
  await appendEvent({
    db: tx,
    tenantId: session.tenant_id,
    type: "sandbox_session.status_changed",
    resourceId: session.id,
    data: { session_id: session.id, status: session.status, previous_status: previous, session },
  });
}

export type DrivePhase = "starting" | "stopping" | "ended" | "refund" | `sync-${number}`;

/**
 * The session's settlement job for a phase (`starting`, `stopping`, `refund`): one per phase,
 * whoever asks first (its key), in the caller's transaction.
 */
export function enqueueDrive(tx: DbTx, id: string, phase: DrivePhase) {
  return enqueue(tx, sandboxSessionJob, { session_id: id }, { key: `${id}:${phase}` });
}
