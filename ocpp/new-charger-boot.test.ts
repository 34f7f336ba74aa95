import { describe, expect, it } from "vitest";
import { db } from "../server/db";
import { aStationWithPassword, aTenantWithKey } from "../testing/builders";
import { aConnectedCharger, waitUntil } from "../testing/ocpp";
import { aLiveGateway } from "../testing/live-gateway";
import { connectsInLine } from "../testing/connects-in-line";

const gw = aLiveGateway();
const PASSWORD = "new-charger-boot-1";

/** Which transaction wrote the row (its `xmin`), and the station's events in order. */
async function written(stationId: number, action = "BootNotification") {
  const [connected] = await db().$queryRaw<{ xmin: string }[]>`
    SELECT xmin::text FROM events WHERE station_id = ${stationId} AND type = 'station.connected'`;
  const [boot] = await db().$queryRaw<{ xmin: string }[]>`
    SELECT xmin::text FROM charger_messages
     WHERE station_id = ${stationId} AND action = ${action}`;
  const events = await db().event.findMany({
    where: { stationId, type: { in: ["station.connected", "station.booted"] } },
    orderBy: { sequence: "asc" },
  });
  return { connected: connected?.xmin, boot: boot?.xmin, events };
}

describe("a new charger's connect and its first call (issue 29, point 5)", () => {
  it("a BootNotification that comes while its connect waits is recorded in the connect's transaction, after it", async () => {
    const t = await aTenantWithKey();
    const c = await aStationWithPassword(t, PASSWORD);
    // c's connect waits in the recorder's line behind two other stations' (connects-in-line.ts)
    const { ahead, chargers, answers } = await connectsInLine(gw, {
      tenant: t,
      password: PASSWORD,
      waiting: [{ station: c, protocol: "ocpp1.6" }],
      firstCalls: ([chargerC]) =>
        chargerC!.call("BootNotification", {
          chargePointVendor: "Ride",
          chargePointModel: "Along",
        }) as Promise<{ status: string; currentTime: string }>,
    });
    const chargerC = chargers[0]!;
    expect(answers.status).toBe("Accepted");

    const row = await db().station.findUniqueOrThrow({ where: { id: c.id } });
    expect(row).toMatchObject({ bootVendor: "Ride", bootModel: "Along" });
    expect(row.gatewayId).not.toBeNull();
    const w = await written(c.id);
    // One transaction wrote the connect and the boot ...
    expect(w.connected).toBeDefined();
    expect(w.boot).toBe(w.connected);
    // ... and the station's log reads connected, then booted, numbered on without a gap.
    expect(w.events.map((e) => e.type)).toEqual(["station.connected", "station.booted"]);
    expect(w.events[1]!.stationSequence).toBe(w.events[0]!.stationSequence! + 1);
    expect(w.events[1]!.sequence).toBeGreaterThan(w.events[0]!.sequence);

    // The next call goes the ordinary way, after it.
    await chargerC.call("StatusNotification", {
      connectorId: 1,
      errorCode: "NoError",
      status: "Available",
      timestamp: new Date().toISOString(),
    });
    await waitUntil(async () => {
      const connector = await db().connector.findFirst({ where: { stationId: c.id } });
      return connector?.ocppStatus === "Available";
    });
    // The two ahead, whose connects were already being written, were recorded as before.
    for (const s of ahead.stations)
      await waitUntil(
        async () =>
          (await db().station.findUniqueOrThrow({ where: { id: s.id } })).gatewayId !== null,
      );
    await Promise.all(
      [...ahead.chargers, chargerC].map((x) => x.close({ force: true }).catch(() => {})),
    );
  });

  it("on an idle gateway too: the connect waits a moment for the Boot sent as the socket opens, and takes it along", async () => {
    const t = await aTenantWithKey();
    const stations = [];
    for (let i = 0; i < 3; i++) stations.push(await aStationWithPassword(t, PASSWORD));
    let rode = 0;
    for (const s of stations) {
      // Nothing else is being written: the recorder would write this connect at once, alone.
      const charger = await aConnectedCharger(gw, s, PASSWORD, "ocpp1.6");
      const answer = (await charger.call("BootNotification", {
        chargePointVendor: "Idle",
        chargePointModel: "Ride",
      })) as { status: string };
      expect(answer.status).toBe("Accepted");
      const w = await written(s.id);
      expect(w.connected).toBeDefined();
      expect(w.events.map((e) => e.type)).toEqual(["station.connected", "station.booted"]);
      if (w.boot === w.connected) rode++;
      await charger.close({ force: true });
    }
    // One commit for connect and Boot (before, on an idle gateway: none of the three; a loaded
    // machine may stall a charger past the wait now and then).
    expect(rode).toBeGreaterThanOrEqual(2);
  });

  it("a first StatusNotification rides too; a 2.0.1 charger's first call waits for its connect", async () => {
    const t = await aTenantWithKey();
    const [c, d] = [
      await aStationWithPassword(t, PASSWORD),
      await aStationWithPassword(t, PASSWORD),
    ];
    const { ahead, chargers } = await connectsInLine(gw, {
      tenant: t,
      password: PASSWORD,
      waiting: [
        { station: c, protocol: "ocpp1.6" },
        { station: d, protocol: "ocpp2.0.1" },
      ],
      firstCalls: ([chargerC, chargerD]) =>
        Promise.all([
          chargerC!.call("StatusNotification", {
            connectorId: 1,
            errorCode: "NoError",
            status: "Available",
            timestamp: new Date().toISOString(),
          }),
          chargerD!.call("BootNotification", {
            reason: "PowerUp",
            chargingStation: { vendorName: "Ride", model: "Waits" },
          }),
        ]),
    });

    const connector = await db().connector.findFirstOrThrow({ where: { stationId: c.id } });
    expect(connector.ocppStatus).toBe("Available");
    const ridden = await written(c.id, "StatusNotification");
    expect(ridden.connected).toBeDefined();
    expect(ridden.boot).toBe(ridden.connected);
    // The 2.x charger's connect and boot: two transactions, the boot after the connect.
    const waited = await written(d.id);
    expect(waited.connected).toBeDefined();
    expect(waited.boot).toBeDefined();
    expect(waited.boot).not.toBe(waited.connected);
    expect(waited.events.map((e) => e.type)).toEqual(["station.connected", "station.booted"]);
    await Promise.all(
      [...ahead.chargers, ...chargers].map((x) => x.close({ force: true }).catch(() => {})),
    );
  });
});
