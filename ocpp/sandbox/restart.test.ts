import { describe, expect, it } from "vitest";
import { db } from "../../server/db";
import { spawnGateway } from "../../testing/gateway-process";
import { startTestGateway, waitUntil, type TestGateway } from "../../testing/ocpp";
import {
  aChargingSession,
  aSandbox,
  aSandboxSession,
  advance,
  allApplied,
  anEndedTransaction,
  chargerRow,
  startSessionsWhenReady,
  stopSession,
  useSandboxStarts,
} from "../../testing/sandbox";

useSandboxStarts();

const stationRow = (id: number) => db().station.findUniqueOrThrow({ where: { id } });

describe("a gateway restart in the middle of a sandbox session", () => {
  it("the ocpp process is killed (SIGKILL): another gateway adopts the charger once the lease lapses, it reconnects and carries on, and the transaction ends with the exact total", async () => {
    const a = await spawnGateway();
    let b: TestGateway | undefined;
    try {
      const sandbox = await aSandbox();
      const station = sandbox.stations[0]!; // 2.0.1
      const session = await aSandboxSession(sandbox, station);
      // the process adopts the wanted charger and connects it to its own port
      await waitUntil(async () => (await stationRow(station.id)).gatewayId === a.gatewayId, 15_000);
      expect((await chargerRow(station.id)).hostGatewayId).toBe(a.gatewayId);
      // the child process has no API side registering the ready hook: start the bill as it would
      await startSessionsWhenReady.onChargerReady(db(), {
        stationId: station.id,
        tenantId: sandbox.tenantId,
      });
      const transactionId = await aChargingSession(session);
      await advance(session, 1_000);
      await advance(session, 1_500);
      await allApplied(session);

      await a.kill("SIGKILL");
      const killed = Date.now();
      // the API side goes on taking advances while no charger is there
      await advance(session, 2_000);
      await advance(session, 2_500, { socPercent: 40 });
      b = await startTestGateway({ sandbox: { tickMs: 500 } });
      await allApplied(session, 40_000);
      const resumed = Date.now() - killed;
      expect((await chargerRow(station.id)).hostGatewayId).toBe(b.gateway.id);
      expect((await stationRow(station.id)).gatewayId).toBe(b.gateway.id);
      // within the lease (15 s), the tick and a reconnect
      expect(resumed).toBeLessThan(25_000);

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
        start + 2_500,
        start + 4_500,
        start + 7_000,
      ]);
      const bill = await db().bill.findUniqueOrThrow({ where: { id: session.billId } });
      expect(bill).toMatchObject({ transactionId, status: "ended" });
    } finally {
      await b?.close();
      await a.kill("SIGKILL");
    }
  }, 90_000);
});
