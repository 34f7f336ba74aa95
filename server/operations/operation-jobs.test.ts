import { describe, expect, it } from "vitest";
import { db } from "../db";
import { cronJobId, slotStart } from "../jobs/cron";
import { runJobsNow } from "../jobs/run-now";
import { newId } from "../lib/ids";
import { aStation, aTenantWithKey } from "../../testing/builders";
import { OPERATION_SWEEP_MS, operationSweepJob, redispatchJob } from "./operation-jobs";

const ago = (ms: number) => new Date(Date.now() - ms);
const sweep = operationSweepJob({ callTimeoutMs: 1_000 });

async function aGateway(heartbeatAt = new Date()) {
  const id = newId("gw");
  await db().gateway.create({ data: { id, heartbeatAt } });
  return id;
}

/** A station held by `gatewayId` with one `dispatching` operation, claimed by `claimedBy`. */
async function anOperation(options: { gatewayId: string; claimedBy: string | null; age: number }) {
  const t = await aTenantWithKey();
  const station = await aStation(t.tenantId, t.key, { connector_count: 1 });
  await db().station.update({
    where: { id: station.id },
    data: { gatewayId: options.gatewayId, protocol: "ocpp1.6", connectedAt: ago(60_000) },
  });
  const operation = await db().operation.create({
    data: {
      id: newId("op"),
      tenantId: t.tenantId,
      stationId: station.id,
      scope: "station.command",
      action: "reset",
      status: "dispatching",
      request: { action: "reset", mode: "soft" },
      claimedBy: options.claimedBy,
      claimedAt: options.claimedBy ? ago(options.age) : null,
      createdAt: ago(options.age),
    },
  });
  return () => db().operation.findUniqueOrThrow({ where: { id: operation.id } });
}

describe("the operation sweep as a cron job", () => {
  it("runs once per slot however many runners tick, settling what a dead gateway claimed and rejecting what no live one holds", async () => {
    const dead = await aGateway(ago(60_000));
    const orphan = await anOperation({ gatewayId: dead, claimedBy: dead, age: 5_000 });
    const unreachable = await anOperation({ gatewayId: dead, claimedBy: null, age: 5_000 });
    // No gateway, no gateway timer: only the job.
    const now = new Date();
    const tick = () => runJobsNow({ db: db(), definitions: [sweep], cron: true, now });
    expect(await tick()).toBe(1);
    expect(await tick()).toBe(0); // a second runner in the same slot runs nothing
    expect(await orphan()).toMatchObject({
      status: "unknown",
      result: { error: { code: "dispatch_unconfirmed", details: { reason: "gateway_stopped" } } },
    });
    expect(await unreachable()).toMatchObject({
      status: "rejected",
      result: { error: { code: "station_offline" } },
    });
    const job = await db().job.findUniqueOrThrow({
      where: { id: cronJobId(sweep.id, slotStart(OPERATION_SWEEP_MS, now)) },
    });
    expect(job).toMatchObject({ name: "operations.sweep", queue: "default", status: "succeeded" });
  });

  it("asks a live gateway that missed a NOTIFY to send through one job on its own queue, which only its runner claims", async () => {
    const live = await aGateway();
    const missed = await anOperation({ gatewayId: live, claimedBy: null, age: 2_000 });
    const busy = await aGateway();
    // Just written, its NOTIFY still on its way (dated ahead, so a slow machine keeps it in grace).
    await anOperation({ gatewayId: busy, claimedBy: null, age: -5_000 });
    const now = new Date(Date.now() + 60_000); // a slot of its own, not the test before's
    await runJobsNow({ db: db(), definitions: [sweep], cron: true, now });
    await runJobsNow({ db: db(), definitions: [sweep], cron: true, now }); // the same slot again

    const asked = await db().job.findMany({ where: { name: "operations.redispatch" } });
    expect(asked.map((j) => [j.id, j.queue, j.status])).toEqual([
      [
        `operations.redispatch:${live}:${slotStart(OPERATION_SWEEP_MS, now).toISOString()}`,
        `gateway:${live}`,
        "queued",
      ],
    ]);
    expect((await missed()).status).toBe("dispatching"); // the sweep sends nothing itself

    const sent: string[] = [];
    const gatewayJob = (gatewayId: string) =>
      redispatchJob({
        gatewayId,
        callTimeoutMs: 1_000,
        redispatch: () => Promise.resolve(void sent.push(gatewayId)),
      });
    // Another gateway's runner serves its own queue only.
    expect(await runJobsNow({ db: db(), definitions: [gatewayJob(busy)] })).toBe(0);
    expect(await runJobsNow({ db: db(), definitions: [gatewayJob(live)] })).toBe(1);
    expect(sent).toEqual([live]);
    const done = await db().job.findUniqueOrThrow({ where: { id: asked[0]!.id } });
    expect(done.status).toBe("succeeded");
  });
});
