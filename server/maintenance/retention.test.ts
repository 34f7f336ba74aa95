import { describe, expect, it } from "vitest";
import { db } from "../db";
import { appendEvent } from "../events/append-event";
import { aStation, aTenantWithKey } from "../../testing/builders";
import { applyRetention } from "./retention";

describe("retention", () => {
  it("drops meter samples from the log after 7 days and cleared faults after 90; keeps everything else", async () => {
    const t = await aTenantWithKey();
    const station = await aStation(t.tenantId, t.key);
    const now = new Date("2026-11-22T12:00:00Z");
    const daysAgo = (d: number) => new Date(now.getTime() - d * 86_400_000);
    await db().$transaction(async (tx) => {
      for (const type of ["meter.sampled", "station.connected"]) {
        for (const age of [8, 6]) {
          const e = await appendEvent({
            db: tx,
            tenantId: t.tenantId,
            type,
            resourceId: 1,
            data: { age },
          });
          await tx.event.updateMany({ where: { id: e.id }, data: { createdAt: daysAgo(age) } });
        }
      }
    });
    const fault = (clearedDaysAgo: number | null) =>
      db().fault.create({
        data: {
          tenantId: t.tenantId,
          stationId: station.id,
          openedAt: daysAgo(200),
          clearedAt: clearedDaysAgo === null ? null : daysAgo(clearedDaysAgo),
          ocppStatus: "Faulted",
        },
      });
    const old = await fault(91);
    const recent = await fault(89);
    const open = await fault(null);
    const deleted = await applyRetention({ db: db(), now, batch: 1 });
    expect(deleted).toMatchObject({ meter_sampled_events: 1, cleared_faults: 1 });
    const kept = await db().event.findMany({
      where: { tenantId: t.tenantId },
      orderBy: { sequence: "asc" },
    });
    expect(kept.map((e) => [e.type, (e.data as { age: number }).age])).toEqual([
      ["meter.sampled", 6],
      ["station.connected", 8],
      ["station.connected", 6],
    ]);
    const faults = await db().fault.findMany({ where: { stationId: station.id } });
    expect(faults.map((f) => f.id).sort()).toEqual([recent.id, open.id].sort());
    expect(faults.map((f) => f.id)).not.toContain(old.id);
  });

  it("drops rate-limit windows an hour old", async () => {
    const now = new Date("2026-11-22T12:00:00Z");
    const minutesAgo = (m: number) => new Date(now.getTime() - m * 60_000);
    await db().rateLimitWindow.createMany({
      data: [
        { apiKeyId: "ocpp-auth:name:stale", windowStart: minutesAgo(61), count: 3 },
        { apiKeyId: "ocpp-auth:name:fresh", windowStart: minutesAgo(1), count: 3 },
      ],
    });
    const deleted = await applyRetention({ db: db(), now });
    expect(deleted.rate_limit_windows).toBe(1);
    const left = await db().rateLimitWindow.findMany({
      where: { apiKeyId: { startsWith: "ocpp" } },
    });
    expect(left.map((w) => w.apiKeyId)).toEqual(["ocpp-auth:name:fresh"]);
  });

  it("drops succeeded jobs a day after they finished and failed ones after 30 days; never unfinished ones", async () => {
    const now = new Date("2026-11-22T12:00:00Z");
    const daysAgo = (d: number) => new Date(now.getTime() - d * 86_400_000);
    const jobs: [string, string, Date | null][] = [
      ["succeeded-old", "succeeded", daysAgo(1.01)],
      ["succeeded-new", "succeeded", daysAgo(0.99)],
      ["failed-old", "failed", daysAgo(30.01)],
      ["failed-new", "failed", daysAgo(29.99)],
      ["queued-ancient", "queued", null],
      ["running-ancient", "running", null],
    ];
    await db().job.createMany({
      data: jobs.map(([id, status, finishedAt]) => ({
        id: `retention-test:${id}`,
        name: "retention-test",
        payload: {},
        status,
        finishedAt,
        createdAt: daysAgo(400),
        runAt: daysAgo(400),
      })),
    });
    const deleted = await applyRetention({ db: db(), now, batch: 1 });
    expect(deleted).toMatchObject({ succeeded_jobs: 1, failed_jobs: 1 });
    const left = await db().job.findMany({
      where: { name: "retention-test" },
      orderBy: { id: "asc" },
    });
    expect(left.map((j) => j.id.split(":")[1])).toEqual([
      "failed-new",
      "queued-ancient",
      "running-ancient",
      "succeeded-new",
    ]);
  });

  it("drops processor events 30 days after they were processed; keeps unprocessed ones however old", async () => {
    const now = new Date("2026-11-22T12:00:00Z");
    const daysAgo = (d: number) => new Date(now.getTime() - d * 86_400_000);
    const events: [string, Date | null][] = [
      ["processed-old", daysAgo(30.01)],
      ["processed-new", daysAgo(29.99)],
      ["unprocessed-ancient", null],
    ];
    await db().processorEvent.createMany({
      data: events.map(([id, processedAt]) => ({
        id: `evt_retention_${id}`,
        type: "payment_intent.succeeded",
        account: "acct_retention",
        receivedAt: daysAgo(400),
        processedAt,
      })),
    });
    const deleted = await applyRetention({ db: db(), now, batch: 1 });
    expect(deleted.processor_events).toBe(1);
    const left = await db().processorEvent.findMany({
      where: { account: "acct_retention" },
      orderBy: { id: "asc" },
    });
    expect(left.map((e) => e.id)).toEqual([
      "evt_retention_processed-new",
      "evt_retention_unprocessed-ancient",
    ]);
  });

  it("finds the processor events past retention through an index on processed_at, not a scan", async () => {
    // The sweep's own select, planned as PostgreSQL would for a table too big to scan: with
    // sequential scans priced out, only an index on processed_at avoids one.
    const plan = await db().$transaction(async (tx) => {
      await tx.$executeRaw`SET LOCAL enable_seqscan = off`;
      return tx.$queryRaw<{ "QUERY PLAN": string }[]>`
        EXPLAIN SELECT id FROM processor_events
         WHERE processed_at < ${new Date("2026-10-23T12:00:00Z")} LIMIT 5000`;
    });
    const text = plan.map((row) => row["QUERY PLAN"]).join("\n");
    expect(text).not.toMatch(/Seq Scan/);
    expect(text).toMatch(/Index (Only )?Scan (using|on) processor_events_\w+/);
    expect(text).toMatch(/Index Cond: \(processed_at </);
  });

  it("drops unfinished jobs stranded on the queue of a gateway that is not alive, and no others", async () => {
    const longAgo = new Date(Date.now() - 60_000);
    await db().gateway.createMany({
      data: [
        { id: "gw_alive", startedAt: new Date(), heartbeatAt: new Date() },
        { id: "gw_stale", startedAt: longAgo, heartbeatAt: longAgo },
        { id: "gw_stopped", startedAt: new Date(), heartbeatAt: new Date(), stoppedAt: new Date() },
      ],
    });
    const jobs: [string, string, string][] = [
      ["alive-queued", "gateway:gw_alive", "queued"],
      ["stale-queued", "gateway:gw_stale", "queued"],
      ["stale-running", "gateway:gw_stale", "running"],
      ["stale-succeeded", "gateway:gw_stale", "succeeded"],
      ["stopped-queued", "gateway:gw_stopped", "queued"],
      ["gone-queued", "gateway:gw_gone", "queued"],
      ["default-queued", "default", "queued"],
    ];
    await db().job.createMany({
      data: jobs.map(([id, queue, status]) => ({
        id: `stranded-test:${id}`,
        name: "stranded-test",
        queue,
        payload: {},
        status,
        finishedAt: status === "succeeded" ? new Date() : null,
      })),
    });
    const deleted = await applyRetention({ db: db(), batch: 2 });
    expect(deleted).toMatchObject({ stranded_jobs: 4 });
    const left = await db().job.findMany({
      where: { name: "stranded-test" },
      orderBy: { id: "asc" },
    });
    expect(left.map((j) => j.id.split(":")[1])).toEqual([
      "alive-queued",
      "default-queued",
      "stale-succeeded",
    ]);
  });
});
