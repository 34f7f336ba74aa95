import { describe, expect, it } from "vitest";
import { db } from "../db";
import { newId } from "../lib/ids";
import { aStation, aTenantWithKey } from "../testing/builders";
import { registerGateway } from "./gateways";
import { recordConnectionChanges } from "./connections";

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
    await recordConnectionChanges(db(), gatewayId, [
      { kind: "connected", station: A, protocol: "ocpp1.6", at: at(1) },
      { kind: "connected", station: B, protocol: "ocpp2.0.1", at: at(2) },
      { kind: "disconnected", station: A, connectedAt: at(1) },
      // a late close of a connection the station no longer has changes nothing
      { kind: "disconnected", station: B, connectedAt: at(0) },
      { kind: "connected", station: A, protocol: "ocpp2.1", at: at(3) },
      { kind: "disconnected", station: B, connectedAt: at(2) },
    ]);
    const rows = await db().station.findMany({ where: { id: { in: [a.id, b.id] } } });
    const row = (id: number) => rows.find((r) => r.id === id)!;
    expect(row(a.id)).toMatchObject({ gatewayId, protocol: "ocpp2.1", connectedAt: at(3) });
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
