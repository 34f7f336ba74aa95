import { db as defaultDb, type DbTx } from "../db";
import type { WebhookAttempt, WebhookDelivery } from "../generated/prisma/client";
import { toPage } from "../lib/pagination";
import { findWebhook } from "./manage-webhooks";

export type ListDeliveriesOptions = {
  tenantId: number;
  webhookId: string;
  limit: number;
  after?: string;
  db?: DbTx;
};

/** An endpoint's deliveries, newest first, each with every attempt. */
export async function listDeliveries({
  tenantId,
  webhookId,
  limit,
  after,
  db = defaultDb(),
}: ListDeliveriesOptions) {
  const endpoint = await findWebhook(db, tenantId, webhookId);
  const rows = await db.webhookDelivery.findMany({
    where: { endpointId: endpoint.id, ...(after ? { id: { lt: after } } : {}) },
    include: { attemptLog: { orderBy: { number: "asc" } } },
    orderBy: { id: "desc" },
    take: limit + 1,
  });
  const events = await db.event.findMany({
    where: { id: { in: rows.map((r) => r.eventId) } },
    select: { id: true, type: true },
  });
  const types = new Map(events.map((e) => [e.id, e.type]));
  return toPage(
    rows,
    limit,
    (d) => d.id,
    (d) => presentDelivery(d, types.get(d.eventId) ?? ""),
  );
}

export function presentDelivery(
  d: WebhookDelivery & { attemptLog: WebhookAttempt[] },
  eventType: string,
) {
  return {
    id: d.id,
    webhook_id: d.endpointId,
    event_id: d.eventId,
    event_type: eventType,
    status: d.status as "queued" | "acknowledged" | "failed",
    attempts: d.attempts,
    next_retry_at: d.status === "queued" ? d.nextAttemptAt.toISOString() : null,
    last_error: d.lastError,
    last_http_status: d.lastStatus,
    created_at: d.createdAt.toISOString(),
    completed_at: d.completedAt?.toISOString() ?? null,
    attempt_log: d.attemptLog.map((a) => ({
      number: a.number,
      started_at: a.startedAt.toISOString(),
      finished_at: a.finishedAt.toISOString(),
      http_status: a.httpStatus,
      error: a.error,
    })),
  };
}
