import type { RPCClient } from "ocpp-rpc";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { db } from "../server/db";
import { aStationWithPassword, aTenantWithKey } from "../server/testing/builders";
import { aCharger, startTestGateway, waitUntil } from "./testing";

let gw: Awaited<ReturnType<typeof startTestGateway>>;
beforeAll(async () => {
  gw = await startTestGateway();
});
afterAll(async () => {
  await gw.close();
});

const PASSWORD = "reconnect-fleet-pass-1";
const STATIONS = 40;
const CONNECTIONS = 5;
type Protocol = "ocpp1.6" | "ocpp2.0.1";

/** The events a connection is checked by; storing the password logged others before. */
const CONNECTION_EVENTS = new Set([
  "station.connected",
  "station.booted",
  "connector.status_changed",
  "station.disconnected",
]);

const boot = (protocol: Protocol, n: number) =>
  protocol === "ocpp1.6"
    ? { chargePointVendor: "Fleet", chargePointModel: `M${n}` }
    : { reason: "PowerUp", chargingStation: { vendorName: "Fleet", model: `M${n}` } };

const status = (protocol: Protocol, ocppStatus: "Available" | "Unavailable") =>
  protocol === "ocpp1.6"
    ? { connectorId: 1, errorCode: "NoError", status: ocppStatus }
    : {
        evseId: 1,
        connectorId: 1,
        connectorStatus: ocppStatus,
        timestamp: new Date().toISOString(),
      };

/**
 * How a charger leaves a connection for its next one, all without waiting: it closes it politely,
 * drops it, or simply opens the next one while it is still open (the gateway then closes it).
 */
const LEAVES = ["close", "drop", "keep"] as const;

type Did = { connections: number; open: RPCClient | null };

/**
 * One charger's run: `CONNECTIONS` connections one after another, each sending BootNotification
 * and two StatusNotifications (Unavailable, then Available: each changes the connector, so each is
 * an event), each answered before the charger moves on. Some leave their last connection open.
 * What the charger did is what its station's log must show.
 */
async function run(name: string, index: number, protocol: Protocol): Promise<Did> {
  const did: Did = { connections: 0, open: null };
  let previous: RPCClient | null = null;
  for (let k = 0; k < CONNECTIONS; k++) {
    if (previous) {
      const leave = LEAVES[(index + k) % LEAVES.length]!;
      if (leave === "close") void previous.close().catch(() => {});
      else if (leave === "drop") void previous.close({ force: true }).catch(() => {});
    }
    const charger = aCharger({ url: gw.url, identity: name, password: PASSWORD, protocol });
    await charger.connect();
    await charger.call("BootNotification", boot(protocol, index * 10 + k));
    await charger.call("StatusNotification", status(protocol, "Unavailable"));
    await charger.call("StatusNotification", status(protocol, "Available"));
    did.connections += 1;
    previous = charger;
  }
  if (Math.floor(index / 4) % 2 === 0) did.open = previous;
  else await previous!.close({ force: true });
  return did;
}

describe("a fleet reconnecting at once, over and over", () => {
  it("keeps every station's connection records whole and in the order the gateway saw them", async () => {
    const tenants = [await aTenantWithKey(), await aTenantWithKey()];
    const stations: { id: number; name: string; index: number; protocol: Protocol }[] = [];
    for (let i = 0; i < STATIONS; i++) {
      const station = await aStationWithPassword(tenants[i % 2]!, PASSWORD);
      const protocol: Protocol = Math.floor(i / 2) % 2 === 0 ? "ocpp1.6" : "ocpp2.0.1";
      stations.push({ ...station, index: i, protocol });
    }
    const did = await Promise.all(stations.map((s) => run(s.name, s.index, s.protocol)));

    // Settled: every station online exactly when its charger holds a socket.
    const settled = async () => {
      const rows = await db().station.findMany({
        where: { id: { in: stations.map((s) => s.id) } },
      });
      return rows.every((r) => {
        const i = stations.findIndex((s) => s.id === r.id);
        return (r.gatewayId !== null) === (did[i]!.open !== null);
      });
    };
    await waitUntil(settled, 30_000).catch(() => undefined);
    // Whatever a late close of a replaced socket would still write, it writes now.
    await new Promise((r) => setTimeout(r, 1_500));

    const failures: string[] = [];
    for (const [i, s] of stations.entries()) {
      const events = (
        await db().event.findMany({
          where: { stationId: s.id },
          orderBy: { stationSequence: "asc" },
        })
      ).filter((e) => CONNECTION_EVENTS.has(e.type));
      const first = events.findIndex((e) => e.type === "station.connected");
      const mine = events.slice(first);
      const expected: string[] = [];
      expect(did[i]!.connections).toBe(CONNECTIONS);
      for (let k = 0; k < CONNECTIONS; k++) {
        expected.push(
          "station.connected",
          "station.booted",
          "connector.status_changed:Unavailable",
          "connector.status_changed:Available",
        );
        if (k < CONNECTIONS - 1 || !did[i]!.open) expected.push("station.disconnected");
      }
      const got = mine.map((e) =>
        e.type === "connector.status_changed"
          ? `${e.type}:${(e.data as { status: string }).status}`
          : e.type,
      );
      if (JSON.stringify(got) !== JSON.stringify(expected))
        failures.push(`${s.name} (${s.protocol}): ${got.join(", ")}`);
      // The station's own numbering has no gap.
      const all = await db().event.findMany({
        where: { stationId: s.id },
        orderBy: { stationSequence: "asc" },
      });
      expect(all.map((e) => e.stationSequence)).toEqual(all.map((_, j) => j + 1));
      // Each boot names its own connection's protocol.
      for (const e of mine.filter((e) => e.type === "station.booted"))
        expect((e.data as { protocol: string }).protocol).toBe(s.protocol);
      const row = await db().station.findUniqueOrThrow({ where: { id: s.id } });
      const open = did[i]!.open !== null;
      if ((row.gatewayId !== null) !== open)
        failures.push(`${s.name}: online ${row.gatewayId !== null}, socket open ${open}`);
    }
    expect(failures).toEqual([]);
    // Each tenant's sequence is gap-free.
    for (const t of tenants) {
      const all = await db().event.findMany({
        where: { tenantId: t.tenantId },
        orderBy: { sequence: "asc" },
      });
      expect(all.map((e) => e.sequence)).toEqual(all.map((_, j) => j + 1));
    }
    for (const d of did) if (d.open) await d.open.close({ force: true });
  }, 120_000);
});
