import { describe, expect, it, vi } from "vitest";
import { db } from "../server/db";
import { listEvents } from "../server/events/list-events";
import { PROJECT_SCOPES } from "../server/access/scopes";
import { log } from "../server/log";
import { aStationWithPassword, aTenantWithKey } from "../testing/builders";
import { aConnectedCharger, waitUntil } from "../testing/ocpp";
import { aLiveGateway } from "../testing/live-gateway";

const gw = aLiveGateway();

const PASSWORD = "meter-batch-pass-1";

/** Chargers of one tenant, connected, each with a 1.6 transaction in progress. */
async function chargersInTransactions(count: number) {
  const t = await aTenantWithKey();
  const chargers = [];
  for (let i = 0; i < count; i++) {
    const station = await aStationWithPassword(t, PASSWORD);
    const charger = await aConnectedCharger(gw, station, PASSWORD, "ocpp1.6");
    const started = (await charger.call("StartTransaction", {
      connectorId: 1,
      idTag: "BATCH",
      meterStart: 0,
      timestamp: new Date().toISOString(),
    })) as { transactionId: number };
    chargers.push({ station, charger, transactionId: started.transactionId });
  }
  return { tenantId: t.tenantId, chargers };
}

const at = (s: number) => new Date(Date.UTC(2026, 0, 1, 12, 0, 0) + s * 1000).toISOString();
const meterValues = (transactionId: number, s: number, wh: number) => ({
  connectorId: 1,
  transactionId,
  meterValue: [{ timestamp: at(s), sampledValue: [{ value: String(wh) }] }],
});

describe("MeterValues in batches across stations", () => {
  it("a retried MeterValues replays its first answer and records once, whatever else is in its batch", async () => {
    const { chargers } = await chargersInTransactions(4);
    // The replay must come from the batch's own read, not from a failed batch's fallback.
    const warn = vi.spyOn(log, "warn");
    const [first, ...others] = chargers;
    const answers: string[] = [];
    first!.charger.on(
      "message",
      ({ message, outbound }: { message: string; outbound: boolean }) => {
        if (!outbound) answers.push(String(message));
      },
    );
    const frame = (id: string, action: string, payload: unknown) =>
      JSON.stringify([2, id, action, payload]);
    const answered = (id: string, count: number) =>
      waitUntil(() => answers.filter((a) => a.includes(`"${id}"`)).length === count);
    try {
      // Other stations keep the writer busy, so the retries land in batches with their messages.
      let running = true;
      const busy = others.map(async ({ charger, transactionId }, n) => {
        for (let i = 1; running; i++)
          await charger.call("MeterValues", meterValues(transactionId, i, 100 * i + n));
      });
      const mv = meterValues(first!.transactionId, 30, 5_000);
      first!.charger.sendRaw(frame("mv-retried", "MeterValues", mv));
      await answered("mv-retried", 1);
      for (const count of [2, 3]) {
        first!.charger.sendRaw(frame("mv-retried", "MeterValues", mv));
        await answered("mv-retried", count);
      }
      // An id first used for another action is a new message (as on the per-message path).
      first!.charger.sendRaw(
        frame("mv-reused", "StatusNotification", {
          connectorId: 1,
          errorCode: "NoError",
          status: "Charging",
        }),
      );
      await answered("mv-reused", 1);
      first!.charger.sendRaw(
        frame("mv-reused", "MeterValues", meterValues(first!.transactionId, 60, 6_000)),
      );
      await answered("mv-reused", 2);
      running = false;
      await Promise.all(busy);

      expect(warn.mock.calls.filter(([m]) => m.includes("batch of charger calls"))).toEqual([]);
      for (const a of answers.filter((a) => a.includes('"mv-')))
        expect(JSON.parse(a)).toEqual([3, expect.stringMatching(/^mv-/), {}]);
      const samples = await db().meterSample.findMany({
        where: { transactionId: first!.transactionId },
        orderBy: { sampledAt: "asc" },
      });
      expect(samples.map((s) => Number(s.energyWh))).toEqual([5_000, 6_000]);
      const transaction = await db().transaction.findUniqueOrThrow({
        where: { id: first!.transactionId },
      });
      expect(transaction.energyWh).toBe(6_000);
      const records = await db().chargerMessage.findMany({
        where: { stationId: first!.station.id, messageId: { startsWith: "mv-" } },
        orderBy: { messageId: "asc" },
      });
      expect(records.map((r) => [r.messageId, r.action])).toEqual([
        ["mv-retried", "MeterValues"],
        ["mv-reused", "MeterValues"],
      ]);
      // Every other station's readings were each recorded once, in order.
      for (const { transactionId } of others) {
        const rows = await db().meterSample.findMany({
          where: { transactionId },
          orderBy: { id: "asc" },
        });
        const seconds = rows.map((r) => (r.sampledAt.getTime() - Date.parse(at(0))) / 1000);
        expect(seconds).toEqual(seconds.map((_, i) => i + 1));
      }
    } finally {
      await Promise.all(chargers.map(({ charger }) => charger.close({ force: true })));
    }
  });

  it("events of many chargers of one tenant, written at once, are read gap-free by cursor meanwhile", async () => {
    const { tenantId, chargers } = await chargersInTransactions(12);
    const scopes = new Set(PROJECT_SCOPES);
    const read: {
      sequence: number;
      station_id?: number;
      station_sequence?: number;
      type: string;
    }[] = [];
    let cursor = 0;
    const page = async () => {
      const p = await listEvents({ tenantId, after: cursor, limit: 7, scopes });
      read.push(...p.data);
      cursor = p.next_cursor;
      return p.has_more;
    };
    let writing = true;
    const reader = (async () => {
      while (writing) await page();
      while (await page());
    })();
    const READINGS = 8;
    let all: { sequence: number }[] = [];
    try {
      // Readings 10 s apart by the chargers' clocks: every one is a `meter.sampled` event.
      await Promise.all(
        chargers.map(async ({ charger, transactionId }) => {
          for (let i = 1; i <= READINGS; i++)
            await charger.call("MeterValues", meterValues(transactionId, 10 * i, 1_000 * i));
        }),
      );
      writing = false;
      await reader;
      all = await db().event.findMany({ where: { tenantId }, orderBy: { sequence: "asc" } });
    } finally {
      writing = false;
      await reader;
      await Promise.all(chargers.map(({ charger }) => charger.close({ force: true })));
    }
    // The reader, paging while events were being written, saw every one, in order, no gap.
    expect(read.map((e) => e.sequence)).toEqual(all.map((e) => e.sequence));
    expect(all.map((e) => e.sequence)).toEqual(all.map((_, i) => i + 1));
    for (const { station } of chargers) {
      const own = read.filter((e) => e.station_id === station.id);
      expect(own.map((e) => e.station_sequence)).toEqual(own.map((_, i) => i + 1));
      expect(own.filter((e) => e.type === "meter.sampled")).toHaveLength(READINGS);
    }
  });
});
