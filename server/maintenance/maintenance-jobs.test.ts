import { describe, expect, it } from "vitest";
import { db } from "../db";
import { runJobsNow } from "../jobs/run-now";
import { retentionJob } from "./maintenance-jobs";

describe("retention as a cron job", () => {
  it("runs once per 10-minute slot, however often runners tick, and applies retention", async () => {
    const slot = new Date("2026-11-22T12:00:00Z");
    const tick = (minutes: number) =>
      runJobsNow({
        db: db(),
        definitions: [retentionJob],
        cron: true,
        now: new Date(slot.getTime() + minutes * 60_000),
      });
    await db().rateLimitWindow.create({
      data: {
        apiKeyId: "cron-test:stale",
        windowStart: new Date("2026-11-22T10:00:00Z"),
        count: 1,
      },
    });
    expect(await tick(0)).toBe(1);
    expect(await db().rateLimitWindow.count({ where: { apiKeyId: "cron-test:stale" } })).toBe(0);
    expect(await tick(3)).toBe(0); // two runners tick in the same slot: one run
    expect(await tick(9.99)).toBe(0);
    expect(await tick(10)).toBe(1);
    const jobs = await db().job.findMany({
      where: { name: retentionJob.id },
      orderBy: { id: "asc" },
    });
    expect(jobs.map((j) => [j.id, j.status])).toEqual([
      ["cron:maintenance.retention:2026-11-22T12:00:00.000Z", "succeeded"],
      ["cron:maintenance.retention:2026-11-22T12:10:00.000Z", "succeeded"],
    ]);
  });
});
