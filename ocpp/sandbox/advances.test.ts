import { describe, expect, it } from "vitest";
import { db } from "../../server/db";
import { aLiveGateway } from "../../testing/live-gateway";
import { aConnectedCharger, waitUntil } from "../../testing/ocpp";
import {
  aChargingSession,
  aSandbox,
  aSandboxSession,
  advance,
  allApplied,
  anEndedTransaction,
  stopSession,
  useSandboxStarts,
} from "../../testing/sandbox";
import type { ChargerFrame } from "./virtual-charger";

const frames: ChargerFrame[] = [];
const gw = aLiveGateway({ sandbox: { tickMs: 500, tap: (frame) => frames.push(frame) } });
useSandboxStarts();

const registerOf = (frame: ChargerFrame) => {
  const values = (frame.payload.meterValue ?? frame.payload.transactionData) as
    { sampledValue: { measurand: string; value: number | string }[] }[] | undefined;
  const energy = values?.[0]?.sampledValue.find(
    (v) => v.measurand === "Energy.Active.Import.Register",
  );
  return energy === undefined ? undefined : Number(energy.value);
};

describe("advances", () => {
  it("20 inserted at once are reported in seq order, one frame at a time, each marked applied; the transaction ends with their exact sum", async () => {
    const sandbox = await aSandbox();
    const station = sandbox.stations[1]!; // dc1, 2.0.1
    const session = await aSandboxSession(sandbox, station);
    const transactionId = await aChargingSession(session);
    const sizes = Array.from({ length: 20 }, (_, i) => 100 + i * 7);
    const written = await Promise.all(sizes.map((wh) => advance(session, wh)));
    expect(written.map((a) => a.seq).sort((a, b) => a - b)).toEqual(sizes.map((_, i) => i + 1));
    await allApplied(session);

    const rows = await db().sandboxAdvance.findMany({
      where: { sessionId: session.id },
      orderBy: { seq: "asc" },
    });
    expect(rows.every((r) => r.status === "applied" && r.appliedAt !== null)).toBe(true);
    // applied in seq order
    const applied = rows.map((r) => r.appliedAt!.getTime());
    expect(applied).toEqual([...applied].sort((a, b) => a - b));

    const transaction = await db().transaction.findUniqueOrThrow({ where: { id: transactionId } });
    const start = Number(transaction.meterStartWh);
    const total = rows.reduce((sum, r) => sum + r.energyWh, 0);
    expect(transaction.energyWh).toBe(total);
    // one meter report per advance, registers and times in seq order
    const reports = frames.filter(
      (f) => f.stationId === station.id && f.payload.eventType === "Updated",
    );
    let cumulative = start;
    expect(reports.map((f) => [registerOf(f), f.payload.timestamp])).toEqual(
      rows.map((r) => [(cumulative += r.energyWh), r.sampledAt.toISOString()]),
    );
    const samples = await db().meterSample.findMany({
      where: { transactionId, context: "Sample.Periodic" },
      orderBy: [{ sampledAt: "asc" }, { id: "asc" }],
    });
    cumulative = start;
    expect(samples.map((s) => Number(s.energyWh))).toEqual(
      rows.map((r) => (cumulative += r.energyWh)),
    );

    await stopSession(session);
    expect((await anEndedTransaction(transactionId)).energyWh).toBe(total);
  });

  it("a stop waits for the pending advances: they are all reported before the transaction ends", async () => {
    const sandbox = await aSandbox();
    const station = sandbox.stations[2]!; // v16
    const session = await aSandboxSession(sandbox, station);
    const transactionId = await aChargingSession(session);
    for (const wh of [500, 600, 700, 800, 900]) await advance(session, wh);
    // no wait for them to be applied: the stop goes right behind them
    await stopSession(session);
    const ended = await anEndedTransaction(transactionId);
    expect(ended.energyWh).toBe(3_500);
    expect(Number(ended.meterStopWh) - Number(ended.meterStartWh)).toBe(3_500);
    const sent = frames.filter((f) => f.stationId === station.id).map((f) => f.action);
    const stopAt = sent.indexOf("StopTransaction");
    expect(sent.filter((a) => a === "MeterValues")).toHaveLength(5);
    expect(sent.lastIndexOf("MeterValues")).toBeLessThan(stopAt);
    expect(
      await db().sandboxAdvance.count({ where: { sessionId: session.id, status: "pending" } }),
    ).toBe(0);
  });

  it("two sessions on one station's two connectors each get exactly their own energy", async () => {
    const sandbox = await aSandbox();
    const station = sandbox.stations[0]!; // ac1: 2 connectors
    const a = await aSandboxSession(sandbox, station, station.connectors[0]);
    const b = await aSandboxSession(sandbox, station, station.connectors[1]);
    const [ta, tb] = await Promise.all([aChargingSession(a), aChargingSession(b)]);
    await Promise.all([
      (async () => {
        for (const wh of [1_000, 2_000, 3_000]) await advance(a, wh);
      })(),
      (async () => {
        for (const wh of [50, 60, 70, 80]) await advance(b, wh);
      })(),
    ]);
    await Promise.all([allApplied(a), allApplied(b)]);
    await stopSession(a);
    await stopSession(b);
    const [ea, eb] = await Promise.all([anEndedTransaction(ta), anEndedTransaction(tb)]);
    expect([ea.energyWh, eb.energyWh]).toEqual([6_000, 260]);
    expect(ea.reference).toBe(a.id);
    expect(eb.reference).toBe(b.id);
  });
});

describe("the gateway and a repeated meter report", () => {
  it("records the same register and time twice as no change: totals and events stay, so resending an advance is safe", async () => {
    const sandbox = await aSandbox([
      { suffix: "ac1", connectors: 1, protocol: "ocpp2.0.1", nominalPowerW: 22_000 },
    ]);
    const station = sandbox.stations[0]!;
    // a plain strict charger as the station (no session: the host leaves it alone)
    const charger = await aConnectedCharger(gw, station, station.password, "ocpp2.0.1");
    try {
      await waitUntil(
        async () =>
          (await db().station.findUniqueOrThrow({ where: { id: station.id } })).gatewayId !== null,
      );
      const at = (s: number) => new Date(Date.now() + 3_600_000 + s * 1000).toISOString();
      const meter = (s: number, wh: number, context: string) => [
        {
          timestamp: at(s),
          sampledValue: [
            {
              value: wh,
              context,
              measurand: "Energy.Active.Import.Register",
              unitOfMeasure: { unit: "Wh" },
            },
          ],
        },
      ];
      const event = (eventType: string, seqNo: number, s: number, wh: number) => ({
        eventType,
        timestamp: at(s),
        triggerReason: eventType === "Started" ? "RemoteStart" : "MeterValuePeriodic",
        seqNo,
        transactionInfo: { transactionId: "resend-1" },
        ...(eventType === "Started" ? { evse: { id: 1, connectorId: 1 } } : {}),
        meterValue: meter(s, wh, eventType === "Started" ? "Transaction.Begin" : "Sample.Periodic"),
      });
      await charger.call("TransactionEvent", event("Started", 0, 0, 10_000));
      const update = event("Updated", 1, 60, 11_500);
      await charger.call("TransactionEvent", update);
      const transaction = await db().transaction.findFirstOrThrow({
        where: { stationId: station.id, reference: "resend-1" },
      });
      const before = {
        transaction: await db().transaction.findUniqueOrThrow({ where: { id: transaction.id } }),
        events: await db().event.count({ where: { tenantId: sandbox.tenantId } }),
      };
      // the same report again, as a charger taking over would send it (a new message id)
      await charger.call("TransactionEvent", update);
      const after = await db().transaction.findUniqueOrThrow({ where: { id: transaction.id } });
      expect(after.energyWh).toBe(1_500);
      expect(after).toMatchObject({
        energyWh: before.transaction.energyWh,
        meterStartWh: before.transaction.meterStartWh,
        lastSampleLoggedAt: before.transaction.lastSampleLoggedAt,
      });
      expect(await db().event.count({ where: { tenantId: sandbox.tenantId } })).toBe(before.events);
      // what a resend leaves: a second sample row of the same time and register, which prices
      // as nothing (the engine prices register differences)
      const samples = await db().meterSample.findMany({
        where: { transactionId: transaction.id },
        orderBy: { id: "asc" },
      });
      expect(samples.map((s) => Number(s.energyWh))).toEqual([10_000, 11_500, 11_500]);
    } finally {
      await charger.close({ force: true });
    }
  });
});
