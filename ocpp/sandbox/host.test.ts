import { describe, expect, it } from "vitest";
import { db } from "../../server/db";
import { createCommand, waitForOperation } from "../../server/operations/create-command";
import { startTestGateway, waitUntil, type TestGateway } from "../../testing/ocpp";
import {
  aChargingSession,
  aSandbox,
  aSandboxSession,
  advance,
  allApplied,
  anEndedTransaction,
  chargerRow,
  settleSession,
  stopSession,
  useSandboxStarts,
} from "../../testing/sandbox";
import type { ChargerFrame } from "./virtual-charger";

useSandboxStarts();

const stationRow = (id: number) => db().station.findUniqueOrThrow({ where: { id } });

async function withGateways<T>(
  count: number,
  options: NonNullable<Parameters<typeof startTestGateway>[0]>["sandbox"],
  run: (gateways: TestGateway[]) => Promise<T>,
) {
  const gateways: TestGateway[] = [];
  try {
    for (let i = 0; i < count; i++) gateways.push(await startTestGateway({ sandbox: options }));
    return await run(gateways);
  } finally {
    await Promise.all(gateways.map((g) => g.close().catch(() => {})));
  }
}

describe("the host", () => {
  it("leases a wanted charger to one gateway of two, and a stopping gateway gives it back at once: the other adopts it, and the session carries on", async () => {
    // ticks of a minute: only the released notice can make the other gateway adopt in time
    await withGateways(2, { tickMs: 60_000 }, async ([a, b]) => {
      const sandbox = await aSandbox();
      const station = sandbox.stations[0]!;
      const session = await aSandboxSession(sandbox, station);
      const transactionId = await aChargingSession(session);
      const first = await chargerRow(station.id);
      const [holder, other] = first.hostGatewayId === a!.gateway.id ? [a!, b!] : [b!, a!];
      expect(first.hostGatewayId).toBe(holder.gateway.id);
      expect(first.leaseUntil!.getTime()).toBeGreaterThan(Date.now());
      expect(holder.sandbox!.stationIds()).toContain(station.id);
      expect(other.sandbox!.stationIds()).not.toContain(station.id);
      await advance(session, 1_000);
      await allApplied(session);

      const stopped = Date.now();
      await holder.close();
      await waitUntil(
        async () => (await chargerRow(station.id)).hostGatewayId === other.gateway.id,
        5_000,
      );
      await waitUntil(async () => (await stationRow(station.id)).gatewayId === other.gateway.id);
      expect(Date.now() - stopped).toBeLessThan(5_000);
      await advance(session, 2_000);
      await allApplied(session);
      await stopSession(session);
      expect((await anEndedTransaction(transactionId)).energyWh).toBe(3_000);
    });
  });

  it("an advance reported but not marked (its host crashed before marking) is marked by the host that adopts the charger, not recorded twice", async () => {
    let crashed = false;
    const frames: ChargerFrame[] = [];
    const a = await startTestGateway({
      sandbox: {
        tickMs: 200,
        leaseMs: 1_000,
        afterReport: async ({ seq }) => {
          if (seq !== 2 || crashed) return;
          crashed = true;
          // the host dies between the gateway's answer and the mark: its charger never gets
          // further, and nothing is given back
          void a.sandbox!.stop({ release: false });
          await new Promise(() => {});
        },
      },
    });
    let b: TestGateway | undefined;
    try {
      const sandbox = await aSandbox();
      const station = sandbox.stations[1]!;
      const session = await aSandboxSession(sandbox, station);
      const transactionId = await aChargingSession(session);
      await advance(session, 1_000);
      await advance(session, 2_000);
      await waitUntil(() => crashed);
      await waitUntil(async () => (await stationRow(station.id)).gatewayId === null);
      const advances = await db().sandboxAdvance.findMany({
        where: { sessionId: session.id },
        orderBy: { seq: "asc" },
      });
      expect(advances.map((x) => x.status)).toEqual(["applied", "pending"]);
      // the gateway has it all the same
      const recorded = await db().transaction.findUniqueOrThrow({ where: { id: transactionId } });
      expect(recorded.energyWh).toBe(3_000);
      await advance(session, 4_000);

      b = await startTestGateway({
        sandbox: { tickMs: 200, tap: (frame: ChargerFrame) => frames.push(frame) },
      });
      await allApplied(session, 15_000);
      expect((await chargerRow(station.id)).hostGatewayId).toBe(b.gateway.id);
      const updates = frames.filter(
        (f) => f.stationId === station.id && f.payload.eventType === "Updated",
      );
      // only the third advance was sent by the new host
      expect(updates).toHaveLength(1);
      expect(updates[0]!.payload.seqNo).toBe(3);
      await stopSession(session);
      const ended = await anEndedTransaction(transactionId);
      expect(ended.energyWh).toBe(7_000);
      const samples = await db().meterSample.findMany({
        where: { transactionId, context: "Sample.Periodic" },
        orderBy: { id: "asc" },
      });
      const start = Number(ended.meterStartWh);
      expect(samples.map((s) => Number(s.energyWh))).toEqual([
        start + 1_000,
        start + 3_000,
        start + 7_000,
      ]);
    } finally {
      await b?.close();
      await a.close();
    }
  });

  it("keeps an idle charger connected for the idle period after its last session, then disconnects it and gives its lease back", async () => {
    await withGateways(1, { tickMs: 200, idleMs: 1_500 }, async ([g]) => {
      const sandbox = await aSandbox();
      const station = sandbox.stations[2]!;
      const session = await aSandboxSession(sandbox, station);
      const transactionId = await aChargingSession(session);
      await advance(session, 500);
      await stopSession(session);
      await anEndedTransaction(transactionId);
      await settleSession(session);
      const settled = Date.now();
      await new Promise((r) => setTimeout(r, 700));
      expect(g!.sandbox!.connectedStationIds()).toContain(station.id);
      expect((await stationRow(station.id)).gatewayId).toBe(g!.gateway.id);
      await waitUntil(async () => (await stationRow(station.id)).gatewayId === null, 5_000);
      expect(Date.now() - settled).toBeGreaterThanOrEqual(1_400);
      expect(g!.sandbox!.stationIds()).not.toContain(station.id);
      expect(await chargerRow(station.id)).toMatchObject({ hostGatewayId: null, leaseUntil: null });
    });
  });

  it("answers the gateway's commands as a well-behaved charger: availability, unlock, reset", async () => {
    const frames: ChargerFrame[] = [];
    await withGateways(1, { tickMs: 200, tap: (f) => frames.push(f) }, async () => {
      const sandbox = await aSandbox();
      const station = sandbox.stations[0]!; // 2.0.1, 2 connectors
      const session = await aSandboxSession(sandbox, station);
      await aChargingSession(session);
      const command = async (body: Parameters<typeof createCommand>[0]["command"]) => {
        const created = await createCommand({
          tenantId: sandbox.tenantId,
          stationId: station.id,
          apiKeyId: null,
          command: body,
        });
        return waitForOperation({ db: db(), operationId: created.id, timeoutMs: 5_000 });
      };
      const [busy, free] = station.connectors;
      expect(await command({ action: "unlock", connector_id: busy!.id })).toMatchObject({
        status: "rejected",
      });
      expect(await command({ action: "unlock", connector_id: free!.id })).toMatchObject({
        status: "succeeded",
      });
      expect(
        await command({ action: "availability", connector_id: free!.id, mode: "inoperative" }),
      ).toMatchObject({ status: "succeeded", result: { response: { status: "Accepted" } } });
      await waitUntil(
        async () =>
          (await db().connector.findUniqueOrThrow({ where: { id: free!.id } })).ocppStatus ===
          "Unavailable",
      );
      // while charging: scheduled, and the connector goes once its transaction ends
      expect(
        await command({ action: "availability", connector_id: busy!.id, mode: "inoperative" }),
      ).toMatchObject({ status: "succeeded", result: { response: { status: "Scheduled" } } });
      // a reset while charging waits for the transaction (OnIdle)
      expect(await command({ action: "reset", mode: "soft" })).toMatchObject({
        status: "succeeded",
        result: { response: { status: "Scheduled" } },
      });
      const boots = () =>
        frames.filter((f) => f.stationId === station.id && f.action === "BootNotification").length;
      expect(boots()).toBe(1);
      await advance(session, 1_000);
      await stopSession(session);
      await waitUntil(() => boots() === 2);
      await waitUntil(
        async () =>
          (await db().connector.findUniqueOrThrow({ where: { id: busy!.id } })).ocppStatus ===
          "Unavailable",
      );
      expect(
        await command({ action: "availability", connector_id: busy!.id, mode: "operative" }),
      ).toMatchObject({ status: "succeeded" });
      await waitUntil(
        async () =>
          (await db().connector.findUniqueOrThrow({ where: { id: busy!.id } })).ocppStatus ===
          "Available",
      );
    });
  });
});
