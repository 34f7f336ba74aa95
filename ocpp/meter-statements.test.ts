import { beforeAll, describe, expect, it } from "vitest";
import { db } from "../server/db";
import { aStationWithPassword, aTenantWithKey } from "../testing/builders";
import { aConnectedCharger } from "../testing/ocpp";
import { aLiveGateway } from "../testing/live-gateway";
import { logStatements } from "../testing/statement-log";

const { sent, named, transactionsWith } = logStatements();
beforeAll(async () => {
  // Every row version written to `stations`, counted as it is written (the statistics views
  // report theirs up to 10 s late): which station, and whether its `last_seen_at` moved.
  await db().$executeRawUnsafe(
    `CREATE TABLE station_row_writes (station_id int, last_seen_moved boolean)`,
  );
  await db().$executeRawUnsafe(`
    CREATE FUNCTION station_row_written() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      INSERT INTO station_row_writes
      VALUES (NEW.id, NEW.last_seen_at IS DISTINCT FROM OLD.last_seen_at);
      RETURN NULL;
    END $$`);
  await db().$executeRawUnsafe(`
    CREATE TRIGGER station_row_written AFTER UPDATE ON stations
    FOR EACH ROW EXECUTE FUNCTION station_row_written()`);
});

// Every message's station is due a last-seen write (at most one per 30 s by default): the case
// of a charger reporting every 10 s, a third of its messages, made every one.
const gw = aLiveGateway({ lastSeen: { minIntervalMs: 0 } });
const PASSWORD = "meter-stmts-pass-1";
const CHARGERS = 20;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const at = (s: number) => new Date(Date.UTC(2026, 0, 1, 12, 0, 0) + s * 1000).toISOString();

describe("a batch of MeterValues, statement by statement (issue 29, point 2)", () => {
  it("one update of each station row per message, its last-seen mark with its event counter; no read for site limits none follows", async () => {
    const t = await aTenantWithKey();
    const chargers: {
      station: { id: number };
      charger: Awaited<ReturnType<typeof aConnectedCharger>>;
      transactionId: number;
    }[] = [];
    for (let i = 0; i < CHARGERS; i++) {
      const station = await aStationWithPassword(t, PASSWORD);
      const charger = await aConnectedCharger(gw, station, PASSWORD, "ocpp1.6");
      const started = (await charger.call("StartTransaction", {
        connectorId: 1,
        idTag: "COUNTED",
        meterStart: 0,
        timestamp: new Date().toISOString(),
      })) as { transactionId: number };
      chargers.push({ station, charger, transactionId: started.transactionId });
    }
    const ids = chargers.map((c) => c.station.id);
    // what the connects and starts leave to the last-seen flush (once a second) is written
    await sleep(1_500);

    /** every charger sends one MeterValues at the charger's second `s`; what the database did */
    const round = async (s: number) => {
      sent.clear();
      await db().$executeRawUnsafe(`TRUNCATE station_row_writes`);
      const since = new Date();
      await Promise.all(
        chargers.map(({ charger, transactionId }) =>
          charger.call("MeterValues", {
            connectorId: 1,
            transactionId,
            meterValue: [
              {
                timestamp: at(s),
                sampledValue: [
                  { value: String(100 * s) },
                  { value: "7.4", measurand: "Power.Active.Import", unit: "kW" },
                ],
              },
            ],
          }),
        ),
      );
      // a last-seen flush would have run meanwhile
      await sleep(1_500);
      const writes = await db().$queryRaw<{ station_id: number; last_seen_moved: boolean }[]>`
        SELECT station_id, last_seen_moved FROM station_row_writes WHERE station_id = ANY(${ids})`;
      const stations = await db().station.findMany({ where: { id: { in: ids } } });
      return {
        batches: transactionsWith(/INSERT INTO meter_samples/),
        flushes: [...sent.values()]
          .flat()
          .filter((x) => /^UPDATE stations AS s SET last_seen_at/.test(x)),
        writes,
        seen: stations.filter((s) => s.lastSeenAt && s.lastSeenAt >= since).length,
      };
    };

    try {
      // 10 s after the start by the chargers' clocks: every message has its `meter.sampled`
      const sampled = await round(10);
      expect(sampled.batches.length).toBeGreaterThan(0);
      for (const batch of sampled.batches)
        // BEGIN; the stations locked; what the messages need; samples, totals and records; the
        // events with each station's counter and last-seen mark; COMMIT. (Before: a read of the
        // site-power allocations of transactions no site limit covers, 7 statements.)
        expect(batch).toEqual([
          "BEGIN",
          expect.stringMatching(/^SELECT id, connection_generation .* FOR NO KEY UPDATE$/),
          expect.stringMatching(/^SELECT m\.ord/),
          expect.stringMatching(/^WITH seen AS .* INSERT INTO meter_samples/),
          expect.stringMatching(/^WITH moved AS \( UPDATE stations s SET event_sequence/),
          "COMMIT",
        ]);
      // each prepared once per connection, run by name after (server/db/prepared.ts)
      for (const batch of sampled.batches)
        expect(batch.slice(1, -1).filter((x) => !named.has(x))).toEqual([]);
      // One row version of each station per message, with its last-seen mark in it. (Before: the
      // event counter's update, then the gateway's flush wrote the row again for `last_seen`.)
      expect(sampled.flushes).toEqual([]);
      expect(sampled.writes).toHaveLength(CHARGERS);
      expect(new Set(sampled.writes.map((w) => w.station_id)).size).toBe(CHARGERS);
      expect(sampled.writes.every((w) => w.last_seen_moved)).toBe(true);
      expect(sampled.seen).toBe(CHARGERS);
      for (const { station } of chargers)
        expect(
          await db().event.count({ where: { stationId: station.id, type: "meter.sampled" } }),
        ).toBe(1);

      // 1 s later: no event due (one per 10 s), the mark written by the batch's own statement
      const quiet = await round(11);
      for (const batch of quiet.batches)
        expect(batch).toEqual([
          "BEGIN",
          expect.stringMatching(/^SELECT id, connection_generation .* FOR NO KEY UPDATE$/),
          expect.stringMatching(/^SELECT m\.ord/),
          expect.stringMatching(/^WITH seen AS .* INSERT INTO meter_samples/),
          "COMMIT",
        ]);
      expect(quiet.flushes).toEqual([]);
      expect(quiet.writes).toHaveLength(CHARGERS);
      expect(quiet.writes.every((w) => w.last_seen_moved)).toBe(true);
      expect(quiet.seen).toBe(CHARGERS);
      for (const { station, transactionId } of chargers) {
        expect(
          await db().event.count({ where: { stationId: station.id, type: "meter.sampled" } }),
        ).toBe(1);
        const row = await db().transaction.findUniqueOrThrow({ where: { id: transactionId } });
        expect(row.energyWh).toBe(1_100);
        expect(await db().meterSample.count({ where: { transactionId } })).toBe(2);
      }
    } finally {
      await Promise.all(chargers.map(({ charger }) => charger.close({ force: true })));
    }
  }, 60_000);
});
