import { describe, expect, it } from "vitest";
import { db } from "../db";
import { appendEvent } from "../events/append-event";
import { runJobsNow } from "../jobs/run-now";
import { aTenantWithKey } from "../../testing/builders";
import { partitionsJob } from "./maintenance-jobs";
import { ensurePartitions } from "./partitions";
import { applyRetention } from "./retention";

const DAY = 86_400_000;
const utcDay = (at: Date) =>
  new Date(Date.UTC(at.getUTCFullYear(), at.getUTCMonth(), at.getUTCDate()));
const dayName = (parent: string, at: Date) =>
  `${parent}_p${at.toISOString().slice(0, 10).replaceAll("-", "")}`;

const exists = async (table: string) => {
  const [row] = await db().$queryRaw<{ found: string | null }[]>`
    SELECT to_regclass(${table})::text AS found`;
  return row?.found === table;
};

let message = 0;
/** A charger message recorded at `at`; answers the partition that holds it. */
async function aChargerMessage(at: Date) {
  const messageId = `m-${++message}`;
  await db().$executeRaw`
    INSERT INTO charger_messages (station_id, message_id, action, response, created_at)
    VALUES (1, ${messageId}, 'StatusNotification', '{}', ${at})`;
  const [row] = await db().$queryRaw<{ part: string }[]>`
    SELECT tableoid::regclass::text AS part FROM charger_messages WHERE message_id = ${messageId}`;
  return row!.part;
}

/** An event of `type` logged at `at`; answers the partition that holds it. */
async function anEvent(tenantId: number, type: string, at: Date) {
  const event = await appendEvent({ db: db(), tenantId, type, resourceId: null, data: {} });
  await db().event.updateMany({ where: { id: event.id }, data: { createdAt: at } });
  const [row] = await db().$queryRaw<{ part: string }[]>`
    SELECT tableoid::regclass::text AS part FROM events WHERE id = ${event.id}`;
  return row!.part;
}

describe("time partitions", () => {
  it("the hourly job creates the coming periods' partitions before any row needs them", async () => {
    const now = new Date(utcDay(new Date()).getTime() + 40 * DAY + 3_600_000);
    const tomorrow = new Date(utcDay(now).getTime() + DAY);
    const threeAhead = new Date(utcDay(now).getTime() + 3 * DAY);
    expect(await exists(dayName("charger_messages", tomorrow))).toBe(false);

    expect(await runJobsNow({ db: db(), definitions: [partitionsJob], cron: true, now })).toBe(1);

    for (const parent of ["charger_messages", "events_meter_sampled"]) {
      expect(await exists(dayName(parent, tomorrow))).toBe(true);
      expect(await exists(dayName(parent, threeAhead))).toBe(true);
      expect(await exists(dayName(parent, new Date(threeAhead.getTime() + DAY)))).toBe(false);
    }
    const month = `${now.toISOString().slice(0, 7).replace("-", "")}`;
    expect(await exists(`events_kept_p${month}`)).toBe(true);
    expect(await exists(`meter_samples_p${month}`)).toBe(true);
    // Tomorrow's rows go to tomorrow's partition, not the default one.
    expect(await aChargerMessage(new Date(tomorrow.getTime() + 60_000))).toBe(
      dayName("charger_messages", tomorrow),
    );
    // A second run (another process, the next slot) finds them all and creates nothing.
    expect(await ensurePartitions({ db: db(), now })).toEqual([]);
  });

  it("an insert for a time no partition covers lands in the default partition, and moves out when its partition is made", async () => {
    const t = await aTenantWithKey();
    const far = new Date("2031-06-15T10:00:00Z");
    expect(await aChargerMessage(far)).toBe("charger_messages_default");
    expect(await anEvent(t.tenantId, "meter.sampled", far)).toBe("events_meter_sampled_default");
    expect(await anEvent(t.tenantId, "station.connected", far)).toBe("events_kept_default");

    const created = await ensurePartitions({ db: db(), now: far });
    expect(created).toEqual(
      expect.arrayContaining([
        "charger_messages_p20310615",
        "events_meter_sampled_p20310615",
        "events_kept_p203106",
      ]),
    );
    const where = await db().$queryRaw<{ part: string; n: number }[]>`
      SELECT tableoid::regclass::text AS part, count(*)::int AS n FROM events
      WHERE tenant_id = ${t.tenantId} GROUP BY 1 ORDER BY 1`;
    expect(where).toEqual([
      { part: "events_kept_p203106", n: 1 },
      { part: "events_meter_sampled_p20310615", n: 1 },
    ]);
    const [defaults] = await db().$queryRaw<{ n: number }[]>`
      SELECT count(*)::int AS n FROM charger_messages_default WHERE created_at >= ${far}`;
    expect(defaults?.n).toBe(0);
  });

  it("retention drops partitions wholly past retention, keeps the partly expired and current ones, and never drops kept events", async () => {
    const t = await aTenantWithKey();
    const now = new Date();
    const old = new Date(utcDay(now).getTime() - 20 * DAY);
    await ensurePartitions({ db: db(), now: old });
    const oldAt = new Date(old.getTime() + 3_600_000);
    expect(await aChargerMessage(oldAt)).toBe(dayName("charger_messages", old));
    expect(await anEvent(t.tenantId, "meter.sampled", oldAt)).toBe(
      dayName("events_meter_sampled", old),
    );
    await anEvent(t.tenantId, "station.connected", oldAt);
    const current = await aChargerMessage(now);
    expect(current).toBe(dayName("charger_messages", now));
    await anEvent(t.tenantId, "meter.sampled", now);

    // A drop cut short between its DETACH and its DROP leaves a table attached to nothing.
    const nextOld = dayName("charger_messages", new Date(old.getTime() + DAY));
    await db().$executeRawUnsafe(`ALTER TABLE charger_messages DETACH PARTITION "${nextOld}"`);

    const { dropped_partitions: dropped } = await applyRetention({ db: db(), now });

    expect(dropped).toEqual(
      expect.arrayContaining([
        dayName("charger_messages", old),
        dayName("events_meter_sampled", old),
        nextOld,
      ]),
    );
    expect(await exists(dayName("events_meter_sampled", old))).toBe(false);
    expect(await exists(nextOld)).toBe(false);
    // Seven days ago's partition still holds events younger than 7 days: kept whole.
    const partly = new Date(utcDay(now).getTime() - 7 * DAY);
    expect(await exists(dayName("events_meter_sampled", partly))).toBe(true);
    expect(dropped).not.toContain(dayName("events_meter_sampled", partly));
    // Yesterday's charger messages may be younger than 24 h: kept; today's too.
    const yesterday = new Date(utcDay(now).getTime() - DAY);
    expect(await exists(dayName("charger_messages", yesterday))).toBe(true);
    expect(await exists(current)).toBe(true);
    const left = await db().event.findMany({
      where: { tenantId: t.tenantId },
      orderBy: { sequence: "asc" },
    });
    expect(left.map((e) => [e.type, e.createdAt.getTime() === oldAt.getTime()])).toEqual([
      ["station.connected", true],
      ["meter.sampled", false],
    ]);
    expect(dropped.some((name) => name.startsWith("events_kept"))).toBe(false);
  });

  it("event sequences stay unique and gap-free per tenant without a unique index: the counter row hands each out once", async () => {
    const t = await aTenantWithKey();
    await Promise.all(
      Array.from({ length: 20 }, () =>
        db().$transaction((tx) =>
          appendEvent({
            db: tx,
            tenantId: t.tenantId,
            type: "meter.sampled",
            resourceId: 1,
            data: {},
          }),
        ),
      ),
    );
    const events = await db().event.findMany({ where: { tenantId: t.tenantId } });
    expect(events.map((e) => e.sequence).sort((a, b) => a - b)).toEqual(
      Array.from({ length: 20 }, (_, i) => i + 1),
    );
  });
});
