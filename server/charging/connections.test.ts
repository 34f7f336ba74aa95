import { describe, expect, it } from "vitest";
import { db } from "../db";
import { newId } from "../lib/ids";
import { aStation, aTenantWithKey } from "../../testing/builders";
import { registerGateway } from "./gateways";
import { recordConnectionChanges, type ConnectionChange } from "./connections";

const at = (s: number) => new Date(Date.UTC(2026, 0, 1, 12, 0, s));

describe("recordConnectionChanges", () => {
  it("applies a burst in the order given, a station's connects and disconnects alike", async () => {
    const t = await aTenantWithKey();
    const a = await aStation(t.tenantId, t.key, { connector_count: 1 });
    const b = await aStation(t.tenantId, t.key, { connector_count: 1 });
    const gatewayId = newId("gw");
    await registerGateway(db(), gatewayId);
    const A = { id: a.id, tenantId: t.tenantId };
    const B = { id: b.id, tenantId: t.tenantId };
    const outcomes = await recordConnectionChanges(db(), gatewayId, [
      { kind: "connected", station: A, protocol: "ocpp1.6", at: at(1) },
      { kind: "connected", station: B, protocol: "ocpp2.0.1", at: at(2) },
      { kind: "disconnected", station: A, generation: 1 },
      // a late close of a connection the station no longer has changes nothing
      { kind: "disconnected", station: B, generation: 0 },
      { kind: "connected", station: A, protocol: "ocpp2.1", at: at(3) },
      { kind: "disconnected", station: B, generation: 1 },
    ]);
    // Each connect's generation: the station's connects counted.
    expect(outcomes).toEqual([1, 1, null, null, 2, null]);
    const rows = await db().station.findMany({ where: { id: { in: [a.id, b.id] } } });
    const row = (id: number) => rows.find((r) => r.id === id)!;
    expect(row(a.id)).toMatchObject({
      gatewayId,
      protocol: "ocpp2.1",
      connectedAt: at(3),
      connectionGeneration: 2,
    });
    expect(row(b.id)).toMatchObject({ gatewayId: null, protocol: "ocpp2.0.1" });
    const events = await db().event.findMany({
      where: { tenantId: t.tenantId, type: { in: ["station.connected", "station.disconnected"] } },
      orderBy: { sequence: "asc" },
    });
    const of = (id: number) =>
      events
        .filter((e) => e.stationId === id)
        .map((e) => [e.type, (e.data as { last_seen: string }).last_seen]);
    expect(of(a.id)).toEqual([
      ["station.connected", at(1).toISOString()],
      ["station.disconnected", at(1).toISOString()],
      ["station.connected", at(3).toISOString()],
    ]);
    expect(of(b.id)).toEqual([
      ["station.connected", at(2).toISOString()],
      ["station.disconnected", at(2).toISOString()],
    ]);
    for (const id of [a.id, b.id]) {
      const seq = events.filter((e) => e.stationId === id).map((e) => e.stationSequence!);
      expect(seq).toEqual(seq.map((_, i) => seq[0]! + i));
    }
    const all = await db().event.findMany({
      where: { tenantId: t.tenantId },
      orderBy: { sequence: "asc" },
    });
    expect(all.map((e) => e.sequence)).toEqual(all.map((_, i) => i + 1));
  });

  it("a connect while the station is online ends the older connection first; that one's late writes change nothing", async () => {
    const t = await aTenantWithKey();
    const s = await aStation(t.tenantId, t.key, { connector_count: 1 });
    const [gw1, gw2] = [newId("gw"), newId("gw")];
    await registerGateway(db(), gw1);
    await registerGateway(db(), gw2);
    const S = { id: s.id, tenantId: t.tenantId };
    const record = (gatewayId: string, change: ConnectionChange) =>
      recordConnectionChanges(db(), gatewayId, [change]);
    const state = async () => {
      const r = await db().station.findUniqueOrThrow({ where: { id: s.id } });
      return [r.gatewayId, r.protocol, r.connectionGeneration];
    };

    // gw1's first connection, then its second before the first one's close was seen.
    expect(
      await record(gw1, { kind: "connected", station: S, protocol: "ocpp1.6", at: at(1) }),
    ).toEqual([1]);
    expect(
      await record(gw1, { kind: "connected", station: S, protocol: "ocpp2.0.1", at: at(2) }),
    ).toEqual([2]);
    // The first one's close arrives late: the second one stays.
    await record(gw1, { kind: "disconnected", station: S, generation: 1 });
    expect(await state()).toEqual([gw1, "ocpp2.0.1", 2]);
    // The charger moves to gw2 (accepted at 4); gw1's own connect of an older socket (accepted at
    // 3) is written only after it, and changes nothing.
    expect(
      await record(gw2, { kind: "connected", station: S, protocol: "ocpp1.6", at: at(4) }),
    ).toEqual([3]);
    expect(
      await record(gw1, { kind: "connected", station: S, protocol: "ocpp2.0.1", at: at(3) }),
    ).toEqual([null]);
    expect(await state()).toEqual([gw2, "ocpp1.6", 3]);
    // gw1's disconnects of its replaced connections change nothing either.
    await record(gw1, { kind: "disconnected", station: S, generation: 2 });
    await record(gw2, { kind: "disconnected", station: S, generation: 2 });
    expect(await state()).toEqual([gw2, "ocpp1.6", 3]);
    // The station's own close takes it offline; a connect after that applies whatever its time.
    await record(gw2, { kind: "disconnected", station: S, generation: 3 });
    expect(await state()).toEqual([null, "ocpp1.6", 3]);
    expect(
      await record(gw1, { kind: "connected", station: S, protocol: "ocpp2.0.1", at: at(0) }),
    ).toEqual([4]);
    expect(await state()).toEqual([gw1, "ocpp2.0.1", 4]);

    const events = await db().event.findMany({
      where: { stationId: s.id, type: { startsWith: "station." } },
      orderBy: { stationSequence: "asc" },
    });
    expect(events.map((e) => [e.type, (e.data as { last_seen: string }).last_seen])).toEqual([
      ["station.connected", at(1).toISOString()],
      ["station.disconnected", at(1).toISOString()],
      ["station.connected", at(2).toISOString()],
      ["station.disconnected", at(2).toISOString()],
      ["station.connected", at(4).toISOString()],
      ["station.disconnected", at(4).toISOString()],
      ["station.connected", at(0).toISOString()],
    ]);
  });

  it("refuses a burst with a connect of a station that no longer exists, recording none of it", async () => {
    const t = await aTenantWithKey();
    const a = await aStation(t.tenantId, t.key, { connector_count: 1 });
    const gatewayId = newId("gw");
    await registerGateway(db(), gatewayId);
    await expect(
      recordConnectionChanges(db(), gatewayId, [
        {
          kind: "connected",
          station: { id: a.id, tenantId: t.tenantId },
          protocol: "ocpp1.6",
          at: at(1),
        },
        {
          kind: "connected",
          station: { id: 987_654, tenantId: t.tenantId },
          protocol: "ocpp1.6",
          at: at(1),
        },
      ]),
    ).rejects.toThrow();
    const row = await db().station.findUniqueOrThrow({ where: { id: a.id } });
    expect(row.gatewayId).toBeNull();
  });
});
