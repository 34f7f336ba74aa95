import { describe, expect, it } from "vitest";
import { db } from "../server/db";
import { aStationWithPassword, aTenantWithKey } from "../testing/builders";
import { aConnectedCharger, waitUntil } from "../testing/ocpp";
import { aLiveGateway } from "../testing/live-gateway";

const gw = aLiveGateway();

const started = (transactionId: string) => ({
  eventType: "Started",
  timestamp: new Date().toISOString(),
  triggerReason: "CablePluggedIn",
  seqNo: 0,
  transactionInfo: { transactionId },
  evse: { id: 1, connectorId: 1 },
});

describe("a 2.x charger reconnecting with transactions the service has open", () => {
  it("is asked GetTransactionStatus for each before its queued messages are answered", async () => {
    const t = await aTenantWithKey();
    const station = await aStationWithPassword(t, "tx-status-password-1");
    const first = await aConnectedCharger(gw, station, "tx-status-password-1", "ocpp2.0.1");
    await first.call("TransactionEvent", started("tx-open-1"));
    await first.close({ force: true });
    await waitUntil(
      async () =>
        (await db().station.findUniqueOrThrow({ where: { id: station.id } })).gatewayId === null,
    );

    const order: string[] = [];
    const asked: unknown[] = [];
    const again = await aConnectedCharger(
      gw,
      station,
      "tx-status-password-1",
      "ocpp2.0.1",
      (charger) => {
        charger.handle("GetTransactionStatus", ({ params }: { params?: unknown }) => {
          asked.push(params);
          order.push("GetTransactionStatus");
          return Promise.resolve({ ongoingIndicator: true, messagesInQueue: true });
        });
      },
    );
    try {
      // the message it queued while away, sent as soon as it is back
      await again.call("TransactionEvent", {
        ...started("tx-open-1"),
        eventType: "Updated",
        triggerReason: "MeterValuePeriodic",
        seqNo: 1,
        offline: true,
      });
      order.push("queued message answered");
      expect(asked).toEqual([{ transactionId: "tx-open-1" }]);
      expect(order).toEqual(["GetTransactionStatus", "queued message answered"]);
      const operation = await db().operation.findFirstOrThrow({
        where: { stationId: station.id, scope: "station.transaction_status" },
      });
      expect(operation).toMatchObject({
        status: "succeeded",
        result: { ongoing: true, messages_in_queue: true },
      });
    } finally {
      await again.close({ force: true });
    }
  });

  it("asks nothing when the service has no transaction of the station open", async () => {
    const t = await aTenantWithKey();
    const station = await aStationWithPassword(t, "tx-status-password-2");
    const asked: unknown[] = [];
    const charger = await aConnectedCharger(gw, station, "tx-status-password-2", "ocpp2.0.1", (c) =>
      c.handle("GetTransactionStatus", ({ params }: { params?: unknown }) => {
        asked.push(params);
        return Promise.resolve({ messagesInQueue: false });
      }),
    );
    await charger.call("Heartbeat", {});
    await charger.close({ force: true });
    expect(asked).toEqual([]);
    expect(
      await db().operation.count({
        where: { stationId: station.id, scope: "station.transaction_status" },
      }),
    ).toBe(0);
  });
});
