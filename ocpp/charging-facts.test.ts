import { beforeEach, describe, expect, it, vi } from "vitest";
import { db } from "../server/db";
import { aStationWithPassword, aTenantWithKey } from "../testing/builders";
import type * as Ended from "../server/charger-reports/transaction-ended";
import type * as Started from "../server/charger-reports/transaction-started";
import type * as Updated from "../server/charger-reports/transaction-updated";
import { transactionEnded } from "../server/charger-reports/transaction-ended";
import { transactionStarted } from "../server/charger-reports/transaction-started";
import { transactionUpdated } from "../server/charger-reports/transaction-updated";
import { aConnectedCharger, waitUntil } from "../testing/ocpp";
import { aLiveGateway } from "../testing/live-gateway";

// The real services, watched: every call still runs them (one spy per fact).
vi.mock("../server/charger-reports/transaction-started", async (original) => {
  const real = await original<typeof Started>();
  return { ...real, transactionStarted: vi.fn(real.transactionStarted) };
});
vi.mock("../server/charger-reports/transaction-updated", async (original) => {
  const real = await original<typeof Updated>();
  return { ...real, transactionUpdated: vi.fn(real.transactionUpdated) };
});
vi.mock("../server/charger-reports/transaction-ended", async (original) => {
  const real = await original<typeof Ended>();
  return { ...real, transactionEnded: vi.fn(real.transactionEnded) };
});

const gw = aLiveGateway();
beforeEach(() => vi.clearAllMocks());

const PASSWORD = "one-fact-one-function";

async function aWatchedCharger(protocol: "ocpp1.6" | "ocpp2.0.1") {
  const t = await aTenantWithKey();
  const station = await aStationWithPassword(t, PASSWORD);
  const charger = await aConnectedCharger(gw, station, PASSWORD, protocol);
  await waitUntil(
    async () => (await db().station.findUnique({ where: { id: station.id } }))!.gatewayId !== null,
  );
  const transactions = () => db().transaction.findMany({ where: { stationId: station.id } });
  return { station, charger, transactions };
}

const at = (s: number) => new Date(Date.UTC(2026, 0, 1, 12, 0, s)).toISOString();
const energy = (s: number, wh: number, value: (wh: number) => string | number) => [
  {
    timestamp: at(s),
    sampledValue: [{ value: value(wh), measurand: "Energy.Active.Import.Register" }],
  },
];
/** What each fact's function was called for, by station. */
const calls = (fn: unknown, stationId: number) =>
  vi
    .mocked(fn as (...args: unknown[]) => unknown)
    .mock.calls.filter((args) => (args[1] as { stationId: number }).stationId === stationId);

describe("one function per charging fact, for 1.6 and 2.x alike", () => {
  it("a 1.6 StartTransaction, MeterValues and StopTransaction reach transactionStarted, transactionUpdated and transactionEnded", async () => {
    const c = await aWatchedCharger("ocpp1.6");
    try {
      const started = (await c.charger.call("StartTransaction", {
        connectorId: 1,
        idTag: "DRIVER-16",
        meterStart: 1000,
        timestamp: at(0),
      })) as { transactionId: number };
      expect(calls(transactionStarted, c.station.id)).toHaveLength(1);
      await c.charger.call("MeterValues", {
        connectorId: 1,
        transactionId: started.transactionId,
        meterValue: energy(10, 1500, String),
      });
      expect(calls(transactionUpdated, c.station.id)).toHaveLength(1);
      await c.charger.call("StopTransaction", {
        transactionId: started.transactionId,
        meterStop: 3000,
        timestamp: at(60),
        reason: "EVDisconnected",
      });
      const ended = calls(transactionEnded, c.station.id);
      expect(ended).toHaveLength(1);
      expect(ended[0]![2]).toMatchObject({
        transaction: { reference: String(started.transactionId) },
        meterStopWh: 3000,
        reason: "EVDisconnected",
      });
      expect(await c.transactions()).toMatchObject([
        { id: started.transactionId, energyWh: 2000, stopReason: "EVDisconnected" },
      ]);
    } finally {
      await c.charger.close({ force: true });
    }
  });

  it("2.x TransactionEvents (Started, Updated, Ended) and MeterValues reach the same three functions", async () => {
    const c = await aWatchedCharger("ocpp2.0.1");
    const event = (eventType: string, seqNo: number, s: number, extra: object = {}) =>
      c.charger.call("TransactionEvent", {
        eventType,
        timestamp: at(s),
        triggerReason: "Trigger",
        seqNo,
        transactionInfo: { transactionId: "tx-2x" },
        ...extra,
      });
    try {
      await event("Started", 0, 0, {
        evse: { id: 1, connectorId: 1 },
        idToken: { idToken: "DRIVER-2X", type: "Central" },
        meterValue: energy(0, 1000, Number),
      });
      expect(calls(transactionStarted, c.station.id)).toHaveLength(1);
      await event("Updated", 1, 10, { meterValue: energy(10, 1500, Number) });
      await c.charger.call("MeterValues", { evseId: 1, meterValue: energy(20, 2000, Number) });
      // Started's own readings, Updated's, and MeterValues' (found by EVSE)
      expect(calls(transactionUpdated, c.station.id)).toHaveLength(3);
      await event("Ended", 2, 60, {
        transactionInfo: { transactionId: "tx-2x", stoppedReason: "EVDisconnected" },
        meterValue: energy(60, 3000, Number),
      });
      const ended = calls(transactionEnded, c.station.id);
      expect(ended).toHaveLength(1);
      expect(ended[0]![2]).toMatchObject({
        transaction: { reference: "tx-2x" },
        reason: "EVDisconnected",
      });
      expect(await c.transactions()).toMatchObject([
        { reference: "tx-2x", energyWh: 2000, meterStopWh: 3000n, stopReason: "EVDisconnected" },
      ]);
      // The start is one fact: the same transaction started once, whatever came after.
      expect(calls(transactionStarted, c.station.id)).toHaveLength(1);
    } finally {
      await c.charger.close({ force: true });
    }
  });

  it("a 2.x transaction first seen in its Ended event is started, then ended, through the same functions", async () => {
    const c = await aWatchedCharger("ocpp2.0.1");
    try {
      await c.charger.call("TransactionEvent", {
        eventType: "Ended",
        timestamp: at(90),
        triggerReason: "EVCommunicationLost",
        seqNo: 5,
        transactionInfo: { transactionId: "tx-late", stoppedReason: "EVDisconnected" },
        evse: { id: 1, connectorId: 1 },
      });
      expect(calls(transactionStarted, c.station.id)).toHaveLength(1);
      expect(calls(transactionEnded, c.station.id)).toHaveLength(1);
      expect(await c.transactions()).toMatchObject([
        { reference: "tx-late", startedAt: null, endedAt: new Date(at(90)) },
      ]);
    } finally {
      await c.charger.close({ force: true });
    }
  });
});
