import { describe, expect, it } from "vitest";
import { db } from "../server/db";
import { newId } from "../server/lib/ids";
import { aStationWithPassword, aTenantWithKey } from "../testing/builders";
import { aConnectedCharger, waitUntil } from "../testing/ocpp";
import { aLiveGateway } from "../testing/live-gateway";

const gw = aLiveGateway();

describe("an operation whose NOTIFY the gateway missed", () => {
  it("is sent by the gateway's own re-dispatch job, which the sweep puts on the gateway's queue", async () => {
    const t = await aTenantWithKey();
    const station = await aStationWithPassword(t, "missed-notify-password-1");
    const resets: unknown[] = [];
    const charger = await aConnectedCharger(
      gw,
      station,
      "missed-notify-password-1",
      "ocpp1.6",
      (charger) => {
        charger.handle("Reset", ({ params }) => {
          resets.push(params);
          return Promise.resolve({ status: "Accepted" });
        });
      },
    );
    await waitUntil(
      async () =>
        (await db().station.findUniqueOrThrow({ where: { id: station.id } })).gatewayId ===
        gw.gateway.id,
    );
    // Written without the NOTIFY that createOperation sends: as if the gateway's LISTEN was down.
    const op = await db().operation.create({
      data: {
        id: newId("op"),
        tenantId: t.tenantId,
        stationId: station.id,
        scope: "station.command",
        action: "reset",
        status: "dispatching",
        request: { action: "reset", mode: "soft" },
      },
    });
    await waitUntil(
      async () =>
        (await db().operation.findUniqueOrThrow({ where: { id: op.id } })).status !== "dispatching",
    );
    expect(await db().operation.findUniqueOrThrow({ where: { id: op.id } })).toMatchObject({
      status: "succeeded",
      claimedBy: gw.gateway.id,
    });
    expect(resets).toEqual([{ type: "Soft" }]);
    // Sent by the job on this gateway's queue, which only this gateway's runner serves.
    const redispatches = () => db().job.findMany({ where: { name: "operations.redispatch" } });
    await waitUntil(async () => (await redispatches()).some((j) => j.status === "succeeded"));
    const jobs = await redispatches();
    expect(new Set(jobs.map((j) => j.queue))).toEqual(new Set([`gateway:${gw.gateway.id}`]));
    await charger.close({ force: true });
  });
});
