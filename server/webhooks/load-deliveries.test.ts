import { afterAll, describe, expect, it } from "vitest";
import { db, type DbTx } from "../db";
import { appendEvent } from "../events/append-event";
import { presentEvent } from "../events/present-event";
import { Prisma } from "../generated/prisma/client";
import { runJobsNow } from "../jobs/run-now";
import { seal } from "../lib/secret-box";
import { aTenantWithKey } from "../../testing/builders";
import { deliveryJob } from "./deliver-webhook";
import {
  deliveriesStatement,
  deliveryLoader,
  loadDeliveries,
  type DeliveryKey,
} from "./load-deliveries";
import { aReceiver } from "../../testing/webhooks";

const receivers: Awaited<ReturnType<typeof aReceiver>>[] = [];
afterAll(async () => {
  await Promise.all(receivers.map((r) => r.close()));
});

/** A tenant with an active endpoint for two event types that live in different partitions. */
async function aTenantWithEndpoint(url = "http://127.0.0.1:9/hooks") {
  const { tenantId } = await aTenantWithKey();
  const endpoint = await db().webhookEndpoint.create({
    data: {
      id: `whk_${tenantId}`,
      tenantId,
      url,
      events: ["station.connected", "meter.sampled"],
      secretEncrypted: seal("whsec_test"),
      apiVersion: "2026-10-15",
    },
  });
  const append = (type: string, n: number) =>
    db().$transaction((tx) => appendEvent({ db: tx, tenantId, type, resourceId: n, data: { n } }));
  return { tenantId, endpoint, append };
}

type Payload = {
  delivery_id: string;
  event?: { id: string; type: string; created_at: string };
};

async function jobsOf(endpointId: string) {
  const deliveries = await db().webhookDelivery.findMany({ where: { endpointId } });
  const jobs = await db().job.findMany({
    where: { id: { in: deliveries.map((d) => `webhooks.deliver:${d.id}`) } },
  });
  return jobs.map((j) => j.payload as Payload);
}

const keyOf = (p: Payload): DeliveryKey => ({
  deliveryId: p.delivery_id,
  ...(p.event && {
    event: { id: p.event.id, type: p.event.type, createdAt: new Date(p.event.created_at) },
  }),
});

describe("reading a claim's deliveries", () => {
  it("the fan-out's job carries the event's whole key, and the read visits only the partitions holding those events", async () => {
    const { endpoint, append } = await aTenantWithEndpoint();
    const events = [
      await append("station.connected", 1),
      await append("meter.sampled", 2),
      await append("station.connected", 3),
    ];
    const payloads = await jobsOf(endpoint.id);
    expect(payloads.map((p) => p.event).sort((a, b) => a!.id.localeCompare(b!.id))).toEqual(
      events
        .map((e) => ({ id: e.id, type: e.type, created_at: e.createdAt.toISOString() }))
        .sort((a, b) => a.id.localeCompare(b.id)),
    );

    const keys = payloads.map(keyOf);
    const loaded = await loadDeliveries(db(), keys);
    for (const event of events) {
      const delivery = [...loaded.values()].find((d) => d.event?.id === event.id);
      expect(delivery).toMatchObject({
        status: "queued",
        endpoint: { url: endpoint.url, status: "active", apiVersion: "2026-10-15" },
      });
      expect(presentEvent(delivery!.event!)).toEqual(presentEvent(event));
    }

    // Every partition of `events` the plan reads is one that holds one of these events.
    const holding = await db().$queryRaw<{ partition: string }[]>`
      SELECT DISTINCT tableoid::regclass::text AS partition FROM events
       WHERE id = ANY(${events.map((e) => e.id)}::text[])`;
    const plan = await db().$queryRaw<{ "QUERY PLAN": string }[]>(
      Prisma.sql`EXPLAIN ${deliveriesStatement(keys)}`,
    );
    const visited = new Set(
      plan.flatMap((row) => [...row["QUERY PLAN"].matchAll(/ on (events_\w+)/g)].map((m) => m[1])),
    );
    expect([...visited].sort()).toEqual(holding.map((h) => h.partition).sort());
    expect(visited.size).toBe(2); // of the many partitions `events` has
  });

  it("finds the event by the delivery row when a job carries no key (queued before keys were carried), and by no other key than its own", async () => {
    const { endpoint, append } = await aTenantWithEndpoint();
    const event = await append("station.connected", 1);
    const [payload] = await jobsOf(endpoint.id);
    const keyless = await loadDeliveries(db(), [{ deliveryId: payload!.delivery_id }]);
    expect(keyless.get(payload!.delivery_id)!.event).toEqual(event);

    const wrongTime = keyOf(payload!);
    wrongTime.event!.createdAt = new Date(event.createdAt.getTime() + 1);
    const missed = await loadDeliveries(db(), [wrongTime]);
    expect(missed.get(payload!.delivery_id)).toMatchObject({ status: "queued", event: null });
  });

  it("reads the jobs that start together in one statement", async () => {
    const { endpoint, append } = await aTenantWithEndpoint();
    for (let n = 0; n < 3; n++) await append("station.connected", n);
    const keys = (await jobsOf(endpoint.id)).map(keyOf);
    let statements = 0;
    const counting = {
      $queryRaw: (...args: Parameters<DbTx["$queryRaw"]>) => {
        statements++;
        return db().$queryRaw(...args);
      },
    } as unknown as DbTx;
    const load = deliveryLoader();
    const loaded = await Promise.all(keys.map((key) => load(counting, key)));
    expect(statements).toBe(1);
    expect(loaded.map((d) => d?.id)).toEqual(keys.map((k) => k.deliveryId));
  });

  it("a job queued before keys were carried is delivered with its event", async () => {
    const r = await aReceiver(() => 200);
    receivers.push(r);
    const { endpoint, append } = await aTenantWithEndpoint(r.url);
    const event = await append("station.connected", 1);
    await db().$executeRaw`
      UPDATE jobs SET payload = payload - 'event' WHERE name = 'webhooks.deliver'
         AND payload->>'delivery_id' IN (SELECT id FROM webhook_deliveries WHERE endpoint_id = ${endpoint.id})`;
    expect((await jobsOf(endpoint.id))[0]!.event).toBeUndefined();
    const loopback = { allowPrivate: true, resolve: () => Promise.resolve(["127.0.0.1"]) };
    await runJobsNow({ db: db(), definitions: [deliveryJob(() => loopback)] });
    expect(r.received.map((x) => x.body)).toEqual([JSON.stringify(presentEvent(event))]);
    expect(
      await db().webhookDelivery.findFirstOrThrow({ where: { endpointId: endpoint.id } }),
    ).toMatchObject({
      status: "acknowledged",
      attempts: 1,
    });
  });
});
