import { describe, expect, it } from "vitest";
import { registerGateway } from "../server/charging/gateways";
import { db } from "../server/db";
import { newId } from "../server/lib/ids";
import { registerStation } from "../server/stations/register-station";
import { aLocation, aTenantWithKey, uniqueStationName } from "../server/testing/builders";
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
    expect(online.find((s) => s.id === a[0]!.id)!.connectedAt).toEqual(since[0]);

    await Promise.all(both.map((s, i) => recorder.disconnected(s, since[i]!)));
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
});
