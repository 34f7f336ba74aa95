import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { db } from "../server/db";
import { startJobRunner, type JobRunner } from "../server/jobs/runner";
import { newId } from "../server/lib/ids";
import { releaseDeadGatewaysJob } from "../server/maintenance/maintenance-jobs";
import { call, idem } from "../testing/api";
import { aStationWithPassword, aTenantWithKey } from "../testing/builders";
import { aConnectedCharger, waitUntil } from "../testing/ocpp";
import { aLiveGateway } from "../testing/live-gateway";

/** Two gateways and two job runners on one database stand in for two `ocpp` processes. */
const a = aLiveGateway();
const b = aLiveGateway();
let runners: JobRunner[];
beforeAll(async () => {
  runners = await Promise.all(
    [a, b].map(() =>
      startJobRunner({
        db: db(),
        databaseUrl: process.env.DATABASE_URL!,
        definitions: [releaseDeadGatewaysJob],
      }),
    ),
  );
});
afterAll(async () => {
  await Promise.all(runners.map((r) => r.stop()));
});

const PASSWORD = "scale-out-password-1";

async function setup() {
  const t = await aTenantWithKey();
  const station = await aStationWithPassword(t, PASSWORD);
  const read = async () =>
    (await call("GET", `/v1/tenants/${t.tenantId}/stations/${station.id}`, { key: t.key })).body;
  const command = (body: unknown) =>
    call("POST", `/v1/tenants/${t.tenantId}/stations/${station.id}/commands`, {
      key: t.key,
      body,
      idempotencyKey: idem(),
    });
  return { ...t, station, read, command };
}

describe("several ocpp processes", () => {
  it("a command reaches whichever process holds the socket, and follows a reconnect to another", async () => {
    const s = await setup();
    const resets: string[] = [];
    const viaB = await aConnectedCharger(b, s.station, PASSWORD, "ocpp2.0.1", (viaB) => {
      viaB.handle("Reset", () => {
        resets.push("b");
        return Promise.resolve({ status: "Accepted" });
      });
    });
    await waitUntil(async () => (await s.read()).online);
    expect((await db().station.findUnique({ where: { id: s.station.id } }))!.gatewayId).toBe(
      b.gateway.id,
    );
    const first = await s.command({ action: "reset", mode: "soft" });
    expect(first.body.status).toBe("succeeded");
    expect(resets).toEqual(["b"]);

    // The station reconnects to the other process: ownership moves with it.
    const viaA = await aConnectedCharger(a, s.station, PASSWORD, "ocpp2.0.1", (viaA) => {
      viaA.handle("Reset", () => {
        resets.push("a");
        return Promise.resolve({ status: "Accepted" });
      });
    });
    await viaB.close({ force: true });
    await waitUntil(
      async () =>
        (await db().station.findUnique({ where: { id: s.station.id } }))!.gatewayId ===
        a.gateway.id,
    );
    const second = await s.command({ action: "reset", mode: "soft" });
    expect(second.body.status).toBe("succeeded");
    expect(resets).toEqual(["b", "a"]);
    expect((await s.read()).online).toBe(true); // B's late close did not mark A's connection offline
    await viaA.close({ force: true });
  });

  it("a process that dies leaves its in-flight operations unknown (never resent) and its stations offline", async () => {
    const s = await setup();
    const dead = newId("gw");
    const longAgo = new Date(Date.now() - 60_000);
    await db().gateway.create({ data: { id: dead, startedAt: longAgo, heartbeatAt: longAgo } });
    await db().station.update({
      where: { id: s.station.id },
      data: { gatewayId: dead, protocol: "ocpp1.6", connectedAt: longAgo },
    });
    const op = await db().operation.create({
      data: {
        id: newId("op"),
        tenantId: s.tenantId,
        stationId: s.station.id,
        scope: "station.command",
        action: "reset",
        status: "dispatching",
        request: { action: "reset", mode: "soft" },
        claimedBy: dead,
        claimedAt: longAgo,
      },
    });
    await waitUntil(
      async () =>
        (await db().operation.findUnique({ where: { id: op.id } }))!.status !== "dispatching",
    );
    const settled = await call("GET", `/v1/tenants/${s.tenantId}/operations/${op.id}`, {
      key: s.key,
    });
    expect(settled.body).toMatchObject({
      status: "unknown",
      result: { error: { code: "dispatch_unconfirmed" } },
    });
    await waitUntil(async () => (await s.read()).online === false);
    const disconnected = await db().event.findMany({
      where: { tenantId: s.tenantId, type: "station.disconnected" },
    });
    expect(disconnected).toHaveLength(1);
    // and a command now is refused at once
    const offline = await s.command({ action: "reset", mode: "soft" });
    expect(offline.body).toMatchObject({
      status: "rejected",
      result: { error: { code: "station_offline" } },
    });
  });
});
