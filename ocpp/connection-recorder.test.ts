import { describe, expect, it } from "vitest";
import { registerGateway } from "../server/charging/gateways";
import { db, type Db } from "../server/db";
import { newId } from "../server/lib/ids";
import { registerStation } from "../server/stations/register-station";
import { aLocation, aTenantWithKey, uniqueStationName } from "../testing/builders";
import { createConnectionRecorder } from "./connection-recorder";

async function tenantWithStations(count: number) {
  const t = await aTenantWithKey();
  const location = await aLocation(t.tenantId, t.key);
  const stations = [];
  for (let i = 0; i < count; i++) {
    const s = await registerStation({
      tenantId: t.tenantId,
      input: { name: uniqueStationName(), location_id: location.id, connector_count: 1 },
    });
    stations.push({ id: s.id, tenantId: t.tenantId });
  }
  return stations;
}

const eventsOf = (tenantId: number) =>
  db().event.findMany({ where: { tenantId }, orderBy: { sequence: "asc" } });

describe("createConnectionRecorder", () => {
  it("records a burst of two tenants' connects and disconnects in batches, keeping each log's order", async () => {
    const gatewayId = newId("gw");
    await registerGateway(db(), gatewayId);
    const recorder = createConnectionRecorder({ db: db(), gatewayId, batchSize: 4 });
    const a = await tenantWithStations(6);
    const b = await tenantWithStations(3);
    const both = [...a, ...b];
    const since = await Promise.all(both.map((s) => recorder.connected(s, "ocpp1.6")));
    const online = await db().station.findMany({ where: { id: { in: both.map((s) => s.id) } } });
    expect(online.every((s) => s.gatewayId === gatewayId)).toBe(true);
    expect(online.find((s) => s.id === a[0]!.id)!.connectedAt).toEqual(since[0]!.at);
    expect(since.map((c) => c!.generation)).toEqual(both.map(() => 1));

    await Promise.all(both.map((s, i) => recorder.disconnected(s, since[i]!.generation)));
    expect(recorder.pending()).toBe(0);
    const offline = await db().station.findMany({ where: { id: { in: both.map((s) => s.id) } } });
    expect(offline.every((s) => s.gatewayId === null)).toBe(true);
    for (const tenant of [a, b]) {
      const events = await eventsOf(tenant[0]!.tenantId);
      const ours = events.filter((e) => e.type.startsWith("station.") && e.stationId !== null);
      // Gap-free per tenant, and each station's own sequence: connected 1, disconnected 2.
      const sequences = ours.map((e) => e.sequence);
      expect(sequences).toEqual(sequences.map((_, i) => sequences[0]! + i));
      for (const s of tenant) {
        const mine = ours.filter((e) => e.stationId === s.id);
        expect(mine.map((e) => [e.type, e.stationSequence])).toEqual([
          ["station.connected", 1],
          ["station.disconnected", 2],
        ]);
      }
    }
  });

  it("a change its batch cannot apply fails alone; the rest of the batch is recorded", async () => {
    const gatewayId = newId("gw");
    await registerGateway(db(), gatewayId);
    const recorder = createConnectionRecorder({ db: db(), gatewayId, batchSize: 10 });
    const stations = await tenantWithStations(3);
    const gone = { id: 2_000_000_000, tenantId: stations[0]!.tenantId };
    const results = await Promise.allSettled(
      [stations[0]!, gone, stations[1]!, stations[2]!].map((s) => recorder.connected(s, "ocpp1.6")),
    );
    expect(results.map((r) => r.status)).toEqual([
      "fulfilled",
      "rejected",
      "fulfilled",
      "fulfilled",
    ]);
    const online = await db().station.count({
      where: { id: { in: stations.map((s) => s.id) }, gatewayId },
    });
    expect(online).toBe(3);
  });

  it("writes a station's changes in the order they arrived, even with another batch free to go first", async () => {
    const gatewayId = newId("gw");
    await registerGateway(db(), gatewayId);
    // The first transaction waits before it takes its locks, until released: a second batch in
    // flight could otherwise overtake it.
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    let holding = false;
    const held = db().$extends({
      query: {
        async $allOperations({ args, query }) {
          const sql = (args as { sql?: unknown } | undefined)?.sql;
          if (!holding && typeof sql === "string" && sql.includes("FOR UPDATE")) {
            holding = true;
            await released;
          }
          return query(args);
        },
      },
    }) as unknown as Db;
    const recorder = createConnectionRecorder({ db: held, gatewayId, batchSize: 1, atOnce: 2 });
    const [s] = await tenantWithStations(1);
    const other = (await tenantWithStations(1))[0]!;
    const first = recorder.connected(s!, "ocpp1.6");
    await expect.poll(() => holding).toBe(true);
    await new Promise((r) => setTimeout(r, 2)); // a later accept time
    const second = recorder.connected(s!, "ocpp2.0.1");
    // Another station's change is not held up by it.
    await expect(recorder.connected(other, "ocpp1.6")).resolves.toMatchObject({ generation: 1 });
    await new Promise((r) => setTimeout(r, 100));
    const row = () => db().station.findUniqueOrThrow({ where: { id: s!.id } });
    expect((await row()).gatewayId).toBeNull(); // the second connect waits for the first
    release();
    const [a, b] = [(await first)!, (await second)!];
    expect([a.generation, b.generation]).toEqual([1, 2]);
    // The first connection's close comes last: the second one stays online.
    await recorder.disconnected(s!, a.generation);
    expect(await row()).toMatchObject({
      gatewayId,
      protocol: "ocpp2.0.1",
      connectedAt: b.at,
      connectionGeneration: 2,
    });
    const events = await db().event.findMany({
      where: { stationId: s!.id, type: { startsWith: "station." } },
      orderBy: { stationSequence: "asc" },
    });
    expect(events.map((e) => [e.type, (e.data as { last_seen: string }).last_seen])).toEqual([
      ["station.connected", a.at.toISOString()],
      ["station.disconnected", a.at.toISOString()],
      ["station.connected", b.at.toISOString()],
    ]);
  });
});
