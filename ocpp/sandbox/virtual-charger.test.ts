import { describe, expect, it } from "vitest";
import { finalizeBill } from "../../server/bills/finalize-bill";
import { db } from "../../server/db";
import { strictModeValidators } from "../protocol/validators";
import { aLiveGateway } from "../../testing/live-gateway";
import { waitUntil } from "../../testing/ocpp";
import {
  aChargingSession,
  aSandbox,
  aSandboxSession,
  advance,
  allApplied,
  anEndedTransaction,
  stopSession,
  useSandboxStarts,
  type SandboxSessionRow,
  type SandboxStationSpec,
} from "../../testing/sandbox";
import type { ChargerFrame } from "./virtual-charger";

const frames: ChargerFrame[] = [];
const gw = aLiveGateway({ sandbox: { tickMs: 500, tap: (frame) => frames.push(frame) } });
useSandboxStarts();

const framesOf = (stationId: number) => frames.filter((f) => f.stationId === stationId);

/** Every call is valid under the official schema of the protocol, as a strict validator checks. */
function expectSchemaValid(protocol: string, sent: ChargerFrame[]) {
  const validator = strictModeValidators.find((v) => v.subprotocol === protocol)!;
  for (const frame of sent) {
    expect(() => validator.validate(`urn:${frame.action}.req`, frame.payload)).not.toThrow();
    expect(() => validator.validate(`urn:${frame.action}.conf`, frame.answer)).not.toThrow();
  }
}

/** Every call the charger made is in the station's message log, with the answer it got. */
async function expectLogged(stationId: number, sent: ChargerFrame[]) {
  const logged = await db().chargerMessage.findMany({ where: { stationId } });
  for (const frame of sent.filter((f) => f.action !== "Heartbeat"))
    expect(logged.find((m) => m.messageId === frame.messageId)).toMatchObject({
      action: frame.action,
      response: frame.answer,
    });
}

async function samplesOf(transactionId: number) {
  return db().meterSample.findMany({
    where: { transactionId },
    orderBy: [{ sampledAt: "asc" }, { id: "asc" }],
  });
}

/** Start, three advances (one with a state of charge, one ten virtual hours long), stop. */
async function aFullSession(session: SandboxSessionRow) {
  const transactionId = await aChargingSession(session);
  const advances = [
    await advance(session, 1_000, { elapsedSeconds: 300 }),
    await advance(session, 2_500),
    await advance(session, 700, { elapsedSeconds: 36_000, socPercent: 55 }),
  ];
  await allApplied(session);
  const stop = await stopSession(session);
  const transaction = await anEndedTransaction(transactionId);
  // the connector's Available follows the end
  const last = () => framesOf(session.stationId).at(-1)?.payload;
  await waitUntil(() => (last()?.connectorStatus ?? last()?.status) === "Available");
  return { transactionId, advances, stop, transaction };
}

/** Station shapes with few connectors, so each frame sequence below is short and exact. */
const SMALL: SandboxStationSpec[] = [
  { suffix: "ac1", connectors: 2, protocol: "ocpp2.0.1", nominalPowerW: 22_000 },
  { suffix: "dc1", connectors: 1, protocol: "ocpp2.0.1", nominalPowerW: 50_000 },
  { suffix: "v16", connectors: 1, protocol: "ocpp1.6", nominalPowerW: 11_000 },
];

describe("a virtual charger", () => {
  it("speaks OCPP 2.0.1 over the production handshake: boot, status, the bill's start, each advance as a meter report, the stop after them", async () => {
    const sandbox = await aSandbox(SMALL);
    const station = sandbox.stations[0]!; // ac1: 2 connectors, 2.0.1, 22 kW
    const session = await aSandboxSession(sandbox, station);
    const { transactionId, advances, transaction } = await aFullSession(session);

    // connected to this gateway as the station, with its own password
    const row = await db().station.findUniqueOrThrow({ where: { id: station.id } });
    expect(row).toMatchObject({ gatewayId: gw.gateway.id, protocol: "ocpp2.0.1" });
    expect(row.bootVendor).toBe("ChargeCloud");
    expect(row.bootModel).toBe("Virtual AC 22 kW");

    const sent = framesOf(station.id);
    expect(sent.map((f) => f.action)).toEqual([
      "BootNotification",
      "StatusNotification",
      "StatusNotification",
      "TransactionEvent",
      "StatusNotification",
      "TransactionEvent",
      "TransactionEvent",
      "TransactionEvent",
      "TransactionEvent",
      "StatusNotification",
    ]);
    expectSchemaValid("ocpp2.0.1", sent);
    await expectLogged(station.id, sent);
    const events = sent.filter((f) => f.action === "TransactionEvent").map((f) => f.payload);
    const token = (await db().bill.findUniqueOrThrow({ where: { id: session.billId } }))
      .chargingToken;
    expect(events[0]).toMatchObject({
      eventType: "Started",
      triggerReason: "RemoteStart",
      seqNo: 0,
      transactionInfo: { transactionId: session.id, chargingState: "Charging" },
      evse: { id: 1, connectorId: 1 },
      idToken: { idToken: token, type: "Central" },
    });
    expect(events.map((e) => [e.eventType, e.seqNo])).toEqual([
      ["Started", 0],
      ["Updated", 1],
      ["Updated", 2],
      ["Updated", 3],
      ["Ended", 4],
    ]);
    expect(events[4]).toMatchObject({
      triggerReason: "RemoteStop",
      transactionInfo: { transactionId: session.id, stoppedReason: "Remote" },
    });

    // the transaction: exactly the advances' energy, one sample per advance at its virtual time
    const start = Number(transaction.meterStartWh);
    expect(transaction).toMatchObject({
      reference: session.id,
      energyWh: 4_200,
      meterStopWh: BigInt(start + 4_200),
      stopReason: "Remote",
    });
    const samples = await samplesOf(transactionId);
    expect(
      samples.map((s) => [
        s.context,
        Number(s.energyWh),
        s.sampledAt.toISOString(),
        s.powerKw,
        s.socPercent,
      ]),
    ).toEqual([
      ["Transaction.Begin", start, transaction.startedAt!.toISOString(), null, null],
      ["Sample.Periodic", start + 1_000, advances[0]!.sampledAt.toISOString(), "12.000", null],
      // 2,500 Wh at 22 kW: 410 s, so 21.951 kW
      ["Sample.Periodic", start + 3_500, advances[1]!.sampledAt.toISOString(), "21.951", null],
      ["Sample.Periodic", start + 4_200, advances[2]!.sampledAt.toISOString(), "0.070", "55.000"],
      ["Transaction.End", start + 4_200, transaction.endedAt!.toISOString(), null, null],
    ]);
    expect(advances[1]!.elapsedSeconds).toBe(410);
    // virtual time: ten hours and more ahead of the real clock, accepted as the charger's
    expect(transaction.endedAt!.getTime() - Date.now()).toBeGreaterThan(36_000_000);
    expect(transaction.endedAt!.getTime() - transaction.startedAt!.getTime()).toBeGreaterThan(
      (300 + 410 + 36_000) * 1000,
    );

    // priced by the engine over the virtual times: 4.2 kWh at 35 c, and the charging time at 60 c/h
    const final = await finalizeBill({
      tenantId: sandbox.tenantId,
      billId: session.billId,
      input: { transaction_id: transactionId },
    });
    const hours = (transaction.endedAt!.getTime() - transaction.startedAt!.getTime()) / 3_600_000;
    expect(final.status).toBe("final");
    expect(final.energy_wh).toBe(4_200);
    expect(final.total_minor).toBeGreaterThanOrEqual(147 + Math.floor(60 * 10.19));
    expect(final.total_minor).toBeLessThanOrEqual(147 + Math.ceil(60 * hours) + 1);

    const connector = await db().connector.findUniqueOrThrow({
      where: { id: session.connectorId },
    });
    expect(connector.ocppStatus).toBe("Available");
  });

  it("speaks OCPP 1.6 alike: RemoteStartTransaction → StartTransaction, MeterValues, RemoteStopTransaction → StopTransaction", async () => {
    const sandbox = await aSandbox(SMALL);
    const station = sandbox.stations[2]!; // v16: 1 connector, 1.6, 11 kW
    const session = await aSandboxSession(sandbox, station);
    const { transactionId, advances, transaction } = await aFullSession(session);
    const row = await db().station.findUniqueOrThrow({ where: { id: station.id } });
    expect(row).toMatchObject({ gatewayId: gw.gateway.id, protocol: "ocpp1.6" });

    const sent = framesOf(station.id);
    expect(sent.map((f) => f.action)).toEqual([
      "BootNotification",
      "StatusNotification",
      "StartTransaction",
      "StatusNotification",
      "MeterValues",
      "MeterValues",
      "MeterValues",
      "StopTransaction",
      "StatusNotification",
    ]);
    expectSchemaValid("ocpp1.6", sent);
    await expectLogged(station.id, sent);
    const token = (await db().bill.findUniqueOrThrow({ where: { id: session.billId } }))
      .chargingToken;
    const start = Number(transaction.meterStartWh);
    expect(sent[2]!.payload).toMatchObject({ connectorId: 1, idTag: token, meterStart: start });
    expect(sent[2]!.answer).toEqual({
      transactionId,
      idTagInfo: { status: "Accepted" },
    });
    expect(sent[4]!.payload).toMatchObject({ connectorId: 1, transactionId });
    expect(sent[7]!.payload).toMatchObject({
      transactionId,
      meterStop: start + 4_200,
      reason: "Remote",
    });
    expect(sent[8]!.payload).toMatchObject({ connectorId: 1, status: "Available" });

    expect(transaction).toMatchObject({ energyWh: 4_200, meterStopWh: BigInt(start + 4_200) });
    const samples = await samplesOf(transactionId);
    expect(samples.map((s) => [Number(s.energyWh), s.sampledAt.toISOString()])).toEqual([
      [start + 1_000, advances[0]!.sampledAt.toISOString()],
      [start + 3_500, advances[1]!.sampledAt.toISOString()],
      [start + 4_200, advances[2]!.sampledAt.toISOString()],
      [start + 4_200, transaction.endedAt!.toISOString()],
    ]);
    const final = await finalizeBill({
      tenantId: sandbox.tenantId,
      billId: session.billId,
      input: { transaction_id: transactionId },
    });
    expect(final.energy_wh).toBe(4_200);
  });

  it("does not connect with a password other than the station's: the handshake is the production one", async () => {
    const sandbox = await aSandbox([
      { suffix: "ac1", connectors: 1, protocol: "ocpp2.0.1", nominalPowerW: 22_000 },
    ]);
    const station = sandbox.stations[0]!;
    const { seal } = await import("../../server/lib/secret-box");
    await db().sandboxCharger.update({
      where: { stationId: station.id },
      data: { passwordSealed: seal("not-the-station-password-at-all") },
    });
    await aSandboxSession(sandbox, station);
    await waitUntil(() => gw.sandbox!.stationIds().includes(station.id));
    await new Promise((r) => setTimeout(r, 1_500));
    expect(gw.sandbox!.connectedStationIds()).not.toContain(station.id);
    const row = await db().station.findUniqueOrThrow({ where: { id: station.id } });
    expect(row.gatewayId).toBeNull();
  });
});
