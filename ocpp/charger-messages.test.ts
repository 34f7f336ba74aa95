import { describe, expect, it } from "vitest";
import { db } from "../server/db";
import { aStationWithPassword, aTenantWithKey } from "../testing/builders";
import { aConnectedCharger, waitUntil } from "../testing/ocpp";
import { aLiveGateway } from "../testing/live-gateway";

const gw = aLiveGateway({ callTimeoutMs: 1500 });

const PASSWORD = "correct-horse-battery-9";

/**
 * charger_messages is partitioned by day, so its key holds created_at and cannot keep one record
 * per (station, message id) by itself: the charger call's station lock and its lookup first do.
 */
describe("charger message records", () => {
  it("keep one record per station and message id under concurrent retries, and replay the first answer", async () => {
    const t = await aTenantWithKey();
    const station = await aStationWithPassword(t, PASSWORD);
    const answers: string[] = [];
    const charger = await aConnectedCharger(gw, station, PASSWORD, "ocpp1.6", (charger) => {
      charger.on("message", ({ message, outbound }: { message: string; outbound: boolean }) => {
        if (!outbound) answers.push(String(message));
      });
    });
    try {
      const timestamp = new Date().toISOString();
      const start = JSON.stringify([
        2,
        "dup-1",
        "StartTransaction",
        { connectorId: 1, idTag: "T", meterStart: 0, timestamp },
      ]);
      // Copies in flight at once on one connection are refused by ocpp-rpc itself
      // (FormationViolation); copies after an answer are retries: each runs its own transaction.
      const answered = (n: number) =>
        waitUntil(() => answers.filter((a) => a.includes('"dup-1"')).length === n);
      for (let i = 0; i < 4; i++) charger.sendRaw(start);
      await answered(4);
      for (let i = 5; i <= 8; i++) {
        charger.sendRaw(start);
        await answered(i);
      }
      const results = answers
        .map((a) => JSON.parse(a) as [number, string, { transactionId?: number }])
        .filter((a) => a[0] === 3 && a[1] === "dup-1");
      expect(results.length).toBeGreaterThanOrEqual(5);
      expect(new Set(results.map((a) => a[2].transactionId)).size).toBe(1);
      const records = () =>
        db().chargerMessage.findMany({ where: { stationId: station.id, messageId: "dup-1" } });
      expect((await records()).map((r) => r.action)).toEqual(["StartTransaction"]);
      expect(await db().transaction.count({ where: { stationId: station.id } })).toBe(1);

      // The same id reused for another action is a new message: its record replaces the first.
      charger.sendRaw(JSON.stringify([2, "dup-1", "Heartbeat", {}]));
      await answered(9);
      charger.sendRaw(
        JSON.stringify([
          2,
          "dup-1",
          "StatusNotification",
          { connectorId: 1, errorCode: "NoError", status: "Charging" },
        ]),
      );
      await answered(10);
      expect((await records()).map((r) => r.action)).toEqual(["StatusNotification"]);
    } finally {
      await charger.close({ force: true });
    }
  });
});
