import { once } from "node:events";
import type { RPCClient } from "ocpp-rpc";
import { afterAll, describe, expect, it } from "vitest";
import { db, type Db } from "../server/db";
import { aStationWithPassword, aTenantWithKey } from "../testing/builders";
import { aConnectedCharger, aCharger, waitUntil } from "../testing/ocpp";
import { aLiveGateway } from "../testing/live-gateway";

const PASSWORD = "generations-pass-01";
const OPEN = 1; // ocpp-rpc's RPCClient state

/** The gateway's own client, which can hold its first connect's transaction before its locks. */
function holdingClient() {
  let release!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  const hold = { armed: false, holding: false, release };
  const client = db().$extends({
    query: {
      async $allOperations({ args, query }) {
        const sql = (args as { sql?: unknown } | undefined)?.sql;
        if (hold.armed && typeof sql === "string" && sql.includes("ORDER BY id FOR UPDATE")) {
          hold.armed = false;
          hold.holding = true;
          await released;
        }
        return query(args);
      },
    },
  }) as unknown as Db;
  return { client, hold };
}

const held = holdingClient();
const gw = aLiveGateway({ db: held.client });
const other = aLiveGateway();
// after hooks run last-registered first: the held statements are let go before the gateways close
afterAll(() => {
  held.hold.release();
});

const CONNECTION_EVENTS = [
  "station.connected",
  "station.booted",
  "connector.status_changed",
  "station.disconnected",
];

const stationEvents = async (stationId: number) =>
  (
    await db().event.findMany({
      where: { stationId },
      orderBy: { stationSequence: "asc" },
    })
  )
    .filter((e) => CONNECTION_EVENTS.includes(e.type))
    .map((e) => e.type);

const closedBy = (charger: RPCClient) => once(charger as never, "close");

describe("connection generations", () => {
  it("an older connection whose connect is written late neither replaces nor takes offline the newer one", async () => {
    const t = await aTenantWithKey();
    const station = await aStationWithPassword(t, PASSWORD);
    const charger = (protocol: "ocpp1.6" | "ocpp2.0.1") =>
      aCharger({ url: gw.url, identity: station.name, password: PASSWORD, protocol });
    const older = charger("ocpp1.6");
    const newer = charger("ocpp2.0.1");
    const olderClosed = closedBy(older);
    const newerClosed = closedBy(newer);

    held.hold.armed = true;
    await older.connect();
    await waitUntil(() => held.hold.holding);
    // The charger comes back on a new socket while its first connect is still being written.
    await newer.connect();
    await new Promise((r) => setTimeout(r, 300));
    held.hold.release();

    // Both connects are written, then the gateway closes one socket: the older one.
    const connects = async () =>
      (await stationEvents(station.id)).filter((type) => type === "station.connected").length;
    await waitUntil(async () => (await connects()) === 2);
    const closed = await Promise.race([
      olderClosed.then(() => "older"),
      newerClosed.then(() => "newer"),
      new Promise((r) => setTimeout(() => r("neither"), 3_000)),
    ]);
    expect(closed).toBe("older");
    const row = () => db().station.findUniqueOrThrow({ where: { id: station.id } });
    await expect(
      newer.call("BootNotification", {
        reason: "PowerUp",
        chargingStation: { vendorName: "Gen", model: "New" },
      }),
    ).resolves.toMatchObject({ status: "Accepted" });
    await new Promise((r) => setTimeout(r, 500)); // whatever the older close still writes
    expect(newer.state).toBe(OPEN);
    expect(await row()).toMatchObject({
      gatewayId: gw.gateway.id,
      protocol: "ocpp2.0.1",
      connectionGeneration: 2,
    });
    expect(await stationEvents(station.id)).toEqual([
      "station.connected",
      "station.disconnected",
      "station.connected",
      "station.booted",
    ]);
    await newer.close({ force: true });
    await waitUntil(async () => (await row()).gatewayId === null);
    expect((await stationEvents(station.id)).at(-1)).toBe("station.disconnected");
  });

  it("a connection replaced on another gateway records nothing more and is closed", async () => {
    const t = await aTenantWithKey();
    const station = await aStationWithPassword(t, PASSWORD);
    const first = await aConnectedCharger(gw, station, PASSWORD, "ocpp1.6");
    await first.call("BootNotification", { chargePointVendor: "Gen", chargePointModel: "Old" });
    const row = () => db().station.findUniqueOrThrow({ where: { id: station.id } });
    await waitUntil(async () => (await row()).gatewayId === gw.gateway.id);
    const firstClosed = closedBy(first);

    // The charger reappears on another gateway; the first gateway has not seen its socket close.
    const second = await aConnectedCharger(other, station, PASSWORD, "ocpp2.0.1");
    await waitUntil(async () => (await row()).gatewayId === other.gateway.id);

    // The replaced socket's report is refused, recorded nowhere, and its socket closed.
    await expect(
      first.call("StatusNotification", { connectorId: 1, errorCode: "NoError", status: "Faulted" }),
    ).rejects.toMatchObject({ rpcErrorCode: "InternalError" });
    await firstClosed;
    await second.call("StatusNotification", {
      evseId: 1,
      connectorId: 1,
      connectorStatus: "Available",
      timestamp: new Date().toISOString(),
    });
    await new Promise((r) => setTimeout(r, 500)); // the first socket's close, written or not
    expect(await row()).toMatchObject({ gatewayId: other.gateway.id, protocol: "ocpp2.0.1" });
    expect(await stationEvents(station.id)).toEqual([
      "station.connected",
      "station.booted",
      "station.disconnected",
      "station.connected",
      "connector.status_changed",
    ]);
    const connector = await db().connector.findFirstOrThrow({ where: { stationId: station.id } });
    expect(connector.status).toBe("Available");
    expect(await db().fault.count({ where: { stationId: station.id } })).toBe(0);
    await second.close({ force: true });
  });
});
