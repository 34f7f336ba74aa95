import { z } from "zod";
import { describe, expect, it } from "vitest";
import { aStation, aTenantWithKey } from "../../testing/builders";
import { db } from "../db";
import { Prisma } from "../generated/prisma/client";
import { armStationJobs, type StationJobPayload } from "./arm";
import { defineJob } from "./define-job";
import { runJobsNow } from "./run-now";

const job = (id: string) => db().job.findUniqueOrThrow({ where: { id } });
const only = (stationId: number) => Prisma.sql`SELECT ${stationId}::int AS id`;

describe("armStationJobs", () => {
  it("queues one job per station, coalesces while queued, queues a finished one again", async () => {
    const t = await aTenantWithKey();
    const station = await aStation(t.tenantId, t.key);
    const runs: number[] = [];
    const def = defineJob<StationJobPayload>({
      id: "test.arm",
      payload: z.object({ station_id: z.number().int() }),
      handler: ({ station_id }) => Promise.resolve(void runs.push(station_id)),
    });
    const id = `test.arm:${station.id}`;
    await armStationJobs(db(), def, only(station.id), 0);
    const first = await job(id);
    expect(first).toMatchObject({
      status: "queued",
      attempt: 0,
      payload: { station_id: station.id },
    });
    // armed again while queued: the same row, its due time kept
    await armStationJobs(db(), def, only(station.id), 60_000);
    expect((await job(id)).runAt).toEqual(first.runAt);
    expect(await db().job.count({ where: { name: "test.arm" } })).toBe(1);

    expect(await runJobsNow({ db: db(), definitions: [def] })).toBe(1);
    expect(await job(id)).toMatchObject({ status: "succeeded", attempt: 1 });
    await armStationJobs(db(), def, only(station.id), 0);
    expect(await job(id)).toMatchObject({ status: "queued", attempt: 0, finishedAt: null });
    expect(await runJobsNow({ db: db(), definitions: [def] })).toBe(1);
    expect(runs).toEqual([station.id, station.id]);
  });

  it("an arm made while a run holds its job row waits for that run and queues the job again", async () => {
    const t = await aTenantWithKey();
    const station = await aStation(t.tenantId, t.key);
    const change: { armed?: Promise<unknown> } = {};
    let reads = 0;
    const def = defineJob<StationJobPayload>({
      id: "test.arm-held",
      payload: z.object({ station_id: z.number().int() }),
      async handler(_p, ctx) {
        await db().$transaction(async (tx) => {
          expect(await ctx.holds(tx)).toBe(true);
          reads++;
          if (!change.armed) {
            // a change commits while this run holds its row: its arm must wait for the run
            change.armed = armStationJobs(db(), def, only(station.id), 0);
            await new Promise((r) => setTimeout(r, 300));
          }
          await ctx.settle(tx, { ok: true });
        });
      },
    });
    await armStationJobs(db(), def, only(station.id), 0);
    expect(await runJobsNow({ db: db(), definitions: [def] })).toBe(1);
    await change.armed;
    expect(await job(`test.arm-held:${station.id}`)).toMatchObject({
      status: "queued",
      attempt: 0,
    });
    expect(await runJobsNow({ db: db(), definitions: [def] })).toBe(1);
    expect(reads).toBe(2);
  });
});
