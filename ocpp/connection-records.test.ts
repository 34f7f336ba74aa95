import { describe, expect, it } from "vitest";
import { db } from "../server/db";
import { hashPassword } from "../server/lib/passwords";
import { registerStation } from "../server/stations/register-station";
import { aLocation, aTenantWithKey, uniqueStationName } from "../testing/builders";
import { aCharger, startTestGateway, waitUntil } from "../testing/ocpp";
import { aLiveGateway } from "../testing/live-gateway";

/** `last_seen` written at most every 300 ms (the product: 30 s), so a test can see a heartbeat's */
const LAST_SEEN_INTERVAL_MS = 300;
const gw = aLiveGateway({ lastSeen: { minIntervalMs: LAST_SEEN_INTERVAL_MS, flushMs: 100 } });

const PASSWORD = "records-password-1";

async function stations(count: number) {
  const t = await aTenantWithKey();
  const location = await aLocation(t.tenantId, t.key);
  const made = [];
  for (let i = 0; i < count; i++)
    made.push(
      await registerStation({
        tenantId: t.tenantId,
        input: { name: uniqueStationName(), location_id: location.id, connector_count: 1 },
      }),
    );
  await db().station.updateMany({
    where: { tenantId: t.tenantId },
    data: { passwordHash: await hashPassword(PASSWORD) },
  });
  return { ...t, stations: made };
}

const charger = (identity: string) =>
  aCharger({ url: gw.url, identity, password: PASSWORD, protocol: "ocpp1.6" });

describe("connection records at scale", () => {
  it("a heartbeat marks its station seen", async () => {
    const t = await stations(1);
    const s = t.stations[0]!;
    const c = charger(s.name);
    await c.connect();
    const row = () => db().station.findUniqueOrThrow({ where: { id: s.id } });
    await waitUntil(async () => (await row()).gatewayId === gw.gateway.id);
    // The connect wrote it; a message within the interval after it writes nothing more.
    const connected = (await row()).lastSeenAt!.getTime();
    await new Promise((r) => setTimeout(r, LAST_SEEN_INTERVAL_MS + 20));
    const before = Date.now();
    await expect(c.call("Heartbeat", {})).resolves.toHaveProperty("currentTime");
    await waitUntil(async () => (await row()).lastSeenAt!.getTime() >= before);
    expect((await row()).lastSeenAt!.getTime()).toBeGreaterThan(connected);
    await c.close({ force: true });
  });

  it("every station of a burst of disconnects is recorded offline, with its event", async () => {
    const count = 200;
    const t = await stations(count);
    const chargers = t.stations.map((s) => charger(s.name));
    for (let i = 0; i < count; i += 25)
      await Promise.all(chargers.slice(i, i + 25).map((c) => c.connect()));
    const held = () =>
      db().station.count({ where: { tenantId: t.tenantId, gatewayId: { not: null } } });
    await waitUntil(async () => (await held()) === count, 30_000);

    // All sockets drop at once, as in a network blip.
    await Promise.all(chargers.map((c) => c.close({ force: true })));
    await waitUntil(async () => (await held()) === 0, 60_000);
    const events = await db().event.count({
      where: { tenantId: t.tenantId, type: "station.disconnected" },
    });
    expect(events).toBe(count);
  }, 120_000);

  it("a gateway that closes records every station it held offline, with one disconnected event each", async () => {
    const own = await startTestGateway();
    const connected = [await stations(150), await stations(50)];
    const chargers = connected
      .flatMap((t) => t.stations)
      .map((s) =>
        aCharger({ url: own.url, identity: s.name, password: PASSWORD, protocol: "ocpp1.6" }),
      );
    for (let i = 0; i < chargers.length; i += 25)
      await Promise.all(chargers.slice(i, i + 25).map((c) => c.connect()));
    const heldBy = (tenantId: number) =>
      db().station.findMany({ where: { tenantId, gatewayId: own.gateway.id } });
    await waitUntil(async () => (await heldBy(connected[0]!.tenantId)).length === 150, 30_000);
    await waitUntil(async () => (await heldBy(connected[1]!.tenantId)).length === 50, 30_000);
    // What a disconnect whose recording failed leaves: stations held by the gateway, no socket.
    const leftover = await stations(120);
    const lastSeenAt = new Date(Date.now() - 60_000);
    await db().station.updateMany({
      where: { tenantId: leftover.tenantId },
      data: { gatewayId: own.gateway.id, protocol: "ocpp1.6", connectedAt: lastSeenAt, lastSeenAt },
    });
    const tenants = [...connected, leftover];
    const before = new Map<number, Date | null>();
    for (const t of tenants)
      for (const s of await heldBy(t.tenantId)) before.set(s.id, s.lastSeenAt);
    expect(before.size).toBe(320);

    await own.close();

    for (const t of tenants) {
      expect(await heldBy(t.tenantId)).toEqual([]);
      const events = await db().event.findMany({
        where: { tenantId: t.tenantId, type: { startsWith: "station." } },
        orderBy: { sequence: "asc" },
      });
      const sequences = events.map((e) => e.sequence);
      expect(sequences).toEqual(sequences.map((_, i) => sequences[0]! + i));
      for (const s of t.stations) {
        const last_seen = before.get(s.id)!.toISOString();
        const disconnected = [
          "station.disconnected",
          { station_id: s.id, online: false, last_seen },
        ];
        const mine = events.filter((e) => e.stationId === s.id).map((e) => [e.type, e.data]);
        expect(mine).toEqual(
          t === leftover
            ? [disconnected]
            : [["station.connected", { station_id: s.id, online: true, last_seen }], disconnected],
        );
      }
    }
  }, 120_000);
});
