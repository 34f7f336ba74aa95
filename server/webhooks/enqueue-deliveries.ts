import type { DbTx } from "../db";
import type { Event } from "../generated/prisma/client";
import { enqueue } from "../jobs/enqueue";
import { newId } from "../lib/ids";
import { deliverWebhook } from "./deliver-webhook";
import { STATION_FILTERED_TYPES } from "./webhook-schema";

/**
 * Fans an event out to the tenant's active endpoints, in the event's own transaction, so a
 * delivery, and the job that makes its attempts, exist exactly when its event does. Applies each
 * endpoint's `stations` filter and meter sample interval (Transaction.Begin and Transaction.End
 * readings always go out).
 */
export async function enqueueDeliveries(tx: DbTx, event: Event, deliverOnlyTo?: string) {
  const endpoints = await tx.webhookEndpoint.findMany({
    where: {
      tenantId: event.tenantId,
      status: "active",
      ...(deliverOnlyTo ? { id: deliverOnlyTo } : { events: { has: event.type } }),
    },
  });
  let queued = 0;
  for (const endpoint of endpoints) {
    if (
      STATION_FILTERED_TYPES.has(event.type) &&
      endpoint.stationsFiltered &&
      !endpoint.stations.includes(event.stationId ?? -1)
    )
      continue;
    if (event.type === "meter.sampled" && !(await meterSampleDue(tx, endpoint, event))) continue;
    const id = newId("dlv");
    await tx.webhookDelivery.create({
      data: {
        id,
        tenantId: event.tenantId,
        endpointId: endpoint.id,
        eventId: event.id,
        nextAttemptAt: event.createdAt,
      },
    });
    const key = { id: event.id, type: event.type, created_at: event.createdAt.toISOString() };
    await enqueue(
      tx,
      deliverWebhook,
      { delivery_id: id, event: key },
      { key: id, runAt: event.createdAt },
    );
    queued++;
  }
  return queued;
}

async function meterSampleDue(
  tx: DbTx,
  endpoint: { id: string; meterSampleIntervalSeconds: number },
  event: Event,
) {
  const data = event.data as {
    transaction_id?: number;
    sampled_at?: string;
    context?: string | null;
  };
  if (typeof data.transaction_id !== "number" || !data.sampled_at) return true;
  const sampledAt = new Date(data.sampled_at);
  const always = data.context === "Transaction.Begin" || data.context === "Transaction.End";
  const key = {
    endpointId_transactionId: { endpointId: endpoint.id, transactionId: data.transaction_id },
  };
  if (!always) {
    const state = await tx.webhookMeterState.findUnique({ where: key });
    if (
      state &&
      sampledAt.getTime() - state.lastDeliveredAt.getTime() <
        endpoint.meterSampleIntervalSeconds * 1000
    )
      return false;
  }
  await tx.webhookMeterState.upsert({
    where: key,
    update: { lastDeliveredAt: sampledAt },
    create: {
      endpointId: endpoint.id,
      transactionId: data.transaction_id,
      lastDeliveredAt: sampledAt,
    },
  });
  return true;
}
