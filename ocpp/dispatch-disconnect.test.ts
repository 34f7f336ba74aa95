import { describe, expect, it } from "vitest";
import { db } from "../server/db";
import { newId } from "../server/lib/ids";
import { call, idem } from "../testing/api";
import { aStationWithPassword, aTenantWithKey } from "../testing/builders";
import { aConnectedCharger, waitUntil } from "../testing/ocpp";
import { aLiveGateway } from "../testing/live-gateway";

const gw = aLiveGateway({ callTimeoutMs: 1500 });

const PASSWORD = "closes-on-command-1";

async function aRegisteredStation() {
  const t = await aTenantWithKey();
  const station = await aStationWithPassword(t, PASSWORD);
  const read = async () =>
    (await call("GET", `/v1/tenants/${t.tenantId}/stations/${station.id}`, { key: t.key })).body;
  const operation = async (id: string) =>
    (await call("GET", `/v1/tenants/${t.tenantId}/operations/${id}`, { key: t.key })).body;
  const count = (type: string) => db().event.count({ where: { tenantId: t.tenantId, type } });
  return { ...t, station, read, operation, count };
}

describe("a charger that closes its socket on a command", () => {
  it("every time: the operation ends unknown, the disconnect is recorded, the station reads offline", async () => {
    const s = await aRegisteredStation();
    const ROUNDS = 20;
    for (let round = 1; round <= ROUNDS; round++) {
      let received = 0;
      await aConnectedCharger(gw, s.station, PASSWORD, "ocpp1.6", (charger) => {
        charger.handle("Reset", () => {
          received++;
          void charger.close({ force: true }); // no answer: the socket just goes
          return new Promise<Record<string, unknown>>(() => {});
        });
      });
      await waitUntil(async () => (await s.read()).online === true);
      const closedAfter = new Date();

      const command = await call(
        "POST",
        `/v1/tenants/${s.tenantId}/stations/${s.station.id}/commands`,
        {
          key: s.key,
          body: { action: "reset", mode: "soft" },
          idempotencyKey: idem(),
        },
      );
      expect(command.status).toBe(202);
      // Recorded by the sender as the call fails, well before any sweep would step in.
      await waitUntil(
        async () => (await s.operation(command.body.id)).status !== "dispatching",
        4000,
      );
      expect({ round, operation: await s.operation(command.body.id) }).toMatchObject({
        round,
        operation: { status: "unknown", result: { error: { code: "dispatch_unconfirmed" } } },
      });
      expect(received).toBe(1);
      await waitUntil(async () => (await s.count("station.disconnected")) === round, 4000);
      expect({ round, online: (await s.read()).online }).toEqual({ round, online: false });
      const row = await db().station.findUniqueOrThrow({ where: { id: s.station.id } });
      expect(row.gatewayId).toBeNull();
      // The orphan sweep's grace counts from this change.
      expect(row.updatedAt.getTime()).toBeGreaterThanOrEqual(closedAfter.getTime());
    }
    expect(await s.count("station.connected")).toBe(ROUNDS);
    expect(await s.count("operation.completed")).toBe(ROUNDS + 1); // and the password change
  });

  it("the sweep settles a command a live gateway claimed whose outcome was never recorded", async () => {
    const s = await aRegisteredStation();
    const longAgo = new Date(Date.now() - 60_000);
    // The station was held by this (live) gateway and has gone offline; the send's outcome was lost.
    await db().station.update({
      where: { id: s.station.id },
      data: { gatewayId: null, protocol: "ocpp1.6", connectedAt: longAgo },
    });
    await db().$executeRaw`UPDATE stations SET updated_at = ${longAgo} WHERE id = ${s.station.id}`;
    const op = await db().operation.create({
      data: {
        id: newId("op"),
        tenantId: s.tenantId,
        stationId: s.station.id,
        scope: "station.command",
        action: "reset",
        status: "dispatching",
        request: { action: "reset", mode: "soft" },
        claimedBy: gw.gateway.id,
        claimedAt: new Date(Date.now() - 8_000),
      },
    });
    await waitUntil(async () => (await s.operation(op.id)).status !== "dispatching", 5000);
    expect(await s.operation(op.id)).toMatchObject({
      status: "unknown",
      result: { error: { code: "dispatch_unconfirmed", details: { reason: "connection_closed" } } },
    });
    const row = await db().operation.findUniqueOrThrow({ where: { id: op.id } });
    expect(row.secret).toBeNull(); // settled, nothing kept to send
    expect(row.claimedBy).toBe(gw.gateway.id);
  });
});
