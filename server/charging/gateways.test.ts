import { describe, expect, it } from "vitest";
import { db, type Db } from "../db";
import { newId } from "../lib/ids";
import { call, idem } from "../../testing/api";
import { registerStation } from "../stations/register-station";
import { aLocation, aStation, aTenantWithKey, uniqueStationName } from "../../testing/builders";
import { rejectUnreachableOperations } from "../operations/reject-unreachable-operations";
import { settleOrphanedOperations } from "../operations/settle-orphaned-operations";
import { releaseDeadGateways } from "./connections";
import {
  GATEWAY_STALE_MS,
  isGatewayAlive,
  liveGatewayIds,
  owningGateway,
  registerGateway,
  recordGatewayStopped,
} from "./gateways";

const ago = (ms: number) => new Date(Date.now() - ms);

/** Gateways in each state the rule distinguishes; `setHeartbeats` dates their rows from now. */
async function gatewaysInEveryState() {
  const heartbeatAgoMs = {
    beating: 0,
    lateButAlive: GATEWAY_STALE_MS - 5_000,
    staleHeartbeat: GATEWAY_STALE_MS + 5_000,
    stopped: 0,
  };
  const ids = {} as Record<keyof typeof heartbeatAgoMs, string>;
  for (const state of Object.keys(heartbeatAgoMs) as (keyof typeof heartbeatAgoMs)[]) {
    ids[state] = newId("gw");
    await registerGateway(db(), ids[state]);
  }
  await recordGatewayStopped(db(), ids.stopped);
  const setHeartbeats = async () => {
    for (const [state, agoMs] of Object.entries(heartbeatAgoMs))
      await db().gateway.update({
        where: { id: ids[state as keyof typeof ids] },
        data: { heartbeatAt: ago(agoMs) },
      });
  };
  return { ids, setHeartbeats };
}

/** A station held by `gatewayId`, with an operation it never claimed and one it claimed. */
async function aStationHeldBy(gatewayId: string) {
  const t = await aTenantWithKey();
  const station = await aStation(t.tenantId, t.key, { connector_count: 1 });
  const longAgo = ago(60_000);
  await db().station.update({
    where: { id: station.id },
    data: { gatewayId, protocol: "ocpp1.6", connectedAt: longAgo },
  });
  const operation = (claimed: boolean) =>
    db().operation.create({
      data: {
        id: newId("op"),
        tenantId: t.tenantId,
        stationId: station.id,
        scope: "station.command",
        action: "reset",
        status: "dispatching",
        request: { action: "reset", mode: "soft" },
        createdAt: ago(5_000),
        ...(claimed ? { claimedBy: gatewayId, claimedAt: ago(1_000) } : {}),
      },
    });
  const unclaimed = await operation(false);
  const claimed = await operation(true);
  const status = async (id: string) =>
    (await db().operation.findUniqueOrThrow({ where: { id } })).status;
  return {
    ...t,
    station,
    unclaimed: () => status(unclaimed.id),
    claimed: () => status(claimed.id),
    heldBy: async () =>
      (await db().station.findUniqueOrThrow({ where: { id: station.id } })).gatewayId,
    command: () =>
      call("POST", `/v1/tenants/${t.tenantId}/stations/${station.id}/commands`, {
        key: t.key,
        body: { action: "reset", mode: "soft" },
        idempotencyKey: idem(),
      }),
  };
}

describe("whether a gateway is alive", () => {
  it("is one rule: stale by heartbeat or stopped is dead for owningGateway, the API, the sweeps and releaseDeadGateways alike", async () => {
    const { ids: gateways, setHeartbeats } = await gatewaysInEveryState();
    const expected = {
      beating: true,
      lateButAlive: true,
      staleHeartbeat: false,
      stopped: false,
    } as const;
    const stations = Object.fromEntries(
      await Promise.all(
        Object.entries(gateways).map(async ([state, id]) => [state, await aStationHeldBy(id)]),
      ),
    ) as Record<keyof typeof gateways, Awaited<ReturnType<typeof aStationHeldBy>>>;
    await setHeartbeats();
    const live = await liveGatewayIds(db());

    for (const [state, id] of Object.entries(gateways) as [keyof typeof gateways, string][]) {
      const alive = expected[state];
      expect({ state, alive: await isGatewayAlive(db(), id) }).toEqual({ state, alive });
      expect({ state, alive: live.has(id) }).toEqual({ state, alive });
      const s = stations[state];
      expect({ state, owner: await owningGateway(db(), s.station.id) }).toEqual({
        state,
        owner: alive ? id : null,
      });
      const command = await s.command();
      expect({ state, offline: command.body.result?.error?.code === "station_offline" }).toEqual({
        state,
        offline: !alive,
      });
    }

    await setHeartbeats();
    await rejectUnreachableOperations({ db: db() });
    await settleOrphanedOperations({ db: db(), callTimeoutMs: 30_000 });
    await releaseDeadGateways({ db: db() });

    for (const [state, id] of Object.entries(gateways) as [keyof typeof gateways, string][]) {
      const s = stations[state];
      const alive = expected[state];
      expect({
        state,
        unclaimed: await s.unclaimed(),
        claimed: await s.claimed(),
        heldBy: await s.heldBy(),
      }).toEqual({
        state,
        unclaimed: alive ? "dispatching" : "rejected",
        claimed: alive ? "dispatching" : "unknown",
        heldBy: alive ? id : null,
      });
    }
  });
});

describe("releaseDeadGateways", () => {
  /** `count` stations of a new tenant, held by `gatewayId` since `connectedAt` */
  async function stationsHeldBy(gatewayId: string, count: number, connectedAt: Date) {
    const t = await aTenantWithKey();
    const location = await aLocation(t.tenantId, t.key);
    for (let i = 0; i < count; i++)
      await registerStation({
        tenantId: t.tenantId,
        input: { name: uniqueStationName(), location_id: location.id, connector_count: 1 },
      });
    await db().station.updateMany({
      where: { tenantId: t.tenantId },
      data: { gatewayId, protocol: "ocpp1.6", connectedAt, lastSeenAt: connectedAt },
    });
    return {
      tenantId: t.tenantId,
      stations: await db().station.findMany({
        where: { tenantId: t.tenantId },
        orderBy: { id: "asc" },
      }),
    };
  }

  it("releases a dead gateway's stations in a few transactions, one event each, and leaves a station another gateway took meanwhile online", async () => {
    // Stations earlier tests of this file left with gateways that have since gone stale would be
    // released here too (under load a test can outlast GATEWAY_STALE_MS): release them first.
    await db().$executeRaw`UPDATE gateways SET stopped_at = now() WHERE stopped_at IS NULL`;
    await releaseDeadGateways({ db: db() });
    const dead = newId("gw");
    const live = newId("gw");
    await registerGateway(db(), dead);
    await registerGateway(db(), live);
    await recordGatewayStopped(db(), dead);
    const connectedAt = ago(60_000);
    const tenants = [
      await stationsHeldBy(dead, 230, connectedAt),
      await stationsHeldBy(dead, 40, connectedAt),
    ];
    const taken = tenants[1]!.stations[0]!;
    const takenAt = new Date();
    // Counts transactions, and has the live gateway take one station once the release has read
    // which stations to release, as a charger reconnecting at that moment would.
    let transactions = 0;
    const watched = db().$extends({
      client: {
        $transaction(...args: Parameters<Db["$transaction"]>) {
          transactions += 1;
          return db().$transaction(...args);
        },
      },
      query: {
        station: {
          async findMany({ args, query }) {
            const found = await query(args);
            await db().station.update({
              where: { id: taken.id },
              data: { gatewayId: live, connectedAt: takenAt },
            });
            return found;
          },
        },
      },
    }) as unknown as Db;

    expect(await releaseDeadGateways({ db: watched })).toBe(270);

    expect(transactions).toBe(4); // 230 = 100 + 100 + 30 of one tenant, 40 of the other
    const still = await db().station.findMany({
      where: { gatewayId: { not: null }, tenantId: { in: tenants.map((t) => t.tenantId) } },
    });
    expect(still.map((s) => [s.id, s.gatewayId])).toEqual([[taken.id, live]]);
    for (const t of tenants) {
      const events = await db().event.findMany({
        where: { tenantId: t.tenantId, type: { startsWith: "station." } },
        orderBy: { sequence: "asc" },
      });
      const expected = t.stations
        .filter((s) => s.id !== taken.id)
        .map((s) => [
          s.id,
          "station.disconnected",
          { station_id: s.id, online: false, last_seen: connectedAt.toISOString() },
        ]);
      expect(events.map((e) => [e.stationId, e.type, e.data])).toEqual(expected);
    }
  });
});
