import type { RPCClient } from "ocpp-rpc";
import { describe, expect, it } from "vitest";
import { db } from "../server/db";
import { aStationWithPassword, aTenantWithKey } from "../testing/builders";
import { aCharger, waitUntil } from "../testing/ocpp";
import { aLiveGateway } from "../testing/live-gateway";

const gw = aLiveGateway();

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
 * drops it, or opens the next one while it is still open and sends one more report on the old one
 * as the new one opens (the gateway then closes the old one, after answering or refusing it).
 */
const LEAVES = ["close", "drop", "keep"] as const;

type Status = "Available" | "Unavailable";
/** What one connection was answered: its boot, then each status report and whether it was. */
type Connection = { statuses: { status: Status; answered: boolean }[] };
type Did = { connections: Connection[]; open: RPCClient | null };

/**
 * One charger's run: `CONNECTIONS` connections one after another, each sending BootNotification
 * and two StatusNotifications (Unavailable, then Available), answered before the charger moves
 * on, but for the last report of a connection it keeps open (see `LEAVES`), whose answer may be a
 * refusal. Some leave their last connection open.
 */
async function run(name: string, index: number, protocol: Protocol): Promise<Did> {
  const did: Did = { connections: [], open: null };
  let previous: { charger: RPCClient; connection: Connection } | null = null;
  for (let k = 0; k < CONNECTIONS; k++) {
    const leave = LEAVES[(index + k) % LEAVES.length]!;
    if (previous && leave === "close") void previous.charger.close().catch(() => {});
    if (previous && leave === "drop") void previous.charger.close({ force: true }).catch(() => {});
    const charger = aCharger({ url: gw.url, identity: name, password: PASSWORD, protocol });
    await charger.connect();
    if (previous && leave === "keep") {
      // The old socket's report races the new socket's connect record.
      const answered = await previous.charger
        .call("StatusNotification", status(protocol, "Available"))
        .then(
          () => true,
          () => false,
        );
      previous.connection.statuses.push({ status: "Available", answered });
    }
    const connection: Connection = { statuses: [] };
    did.connections.push(connection);
    await charger.call("BootNotification", boot(protocol, index * 10 + k));
    await charger.call("StatusNotification", status(protocol, "Unavailable"));
    connection.statuses.push({ status: "Unavailable", answered: true });
    const next = k + 1 < CONNECTIONS ? LEAVES[(index + k + 1) % LEAVES.length]! : null;
    if (next !== "keep") {
      await charger.call("StatusNotification", status(protocol, "Available"));
      connection.statuses.push({ status: "Available", answered: true });
    }
    previous = { charger, connection };
  }
  if (Math.floor(index / 4) % 2 === 0) did.open = previous!.charger;
  else await previous!.charger.close({ force: true });
  return did;
}

/**
 * The log a charger's run must leave, connection by connection: connected, booted, a status
 * change for each answered report that changed the connector, disconnected (but for a connection
 * still open); a refused report records nothing.
 */
function expectedLog(did: Did) {
  const log: string[] = [];
  let connector: Status | null = null;
  for (const [k, connection] of did.connections.entries()) {
    log.push("station.connected", "station.booted");
    for (const { status, answered } of connection.statuses)
      if (answered && status !== connector) {
        log.push(`connector.status_changed:${status}`);
        connector = status;
      }
    if (k < did.connections.length - 1 || !did.open) log.push("station.disconnected");
  }
  return log;
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
      expect(did[i]!.connections).toHaveLength(CONNECTIONS);
      const expected = expectedLog(did[i]!);
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
