import { describe, expect, it } from "vitest";
import { db } from "../db";
import { call } from "../../testing/api";
import { aStation, aTenantWithKey } from "../../testing/builders";

/** Five transactions on one station (odd ones still active) and one on another station. */
async function aHistory() {
  const project = await aTenantWithKey();
  const station = await aStation(project.tenantId, project.key);
  const other = await aStation(project.tenantId, project.key);
  const ids: number[] = [];
  for (let i = 1; i <= 5; i += 1) {
    const row = await db().transaction.create({
      data: {
        tenantId: project.tenantId,
        stationId: station.id,
        reference: `tx-${i}`,
        startedAt: new Date(Date.UTC(2026, 10, 1, i)),
        endedAt: i % 2 === 0 ? new Date(Date.UTC(2026, 10, 1, i, 30)) : null,
      },
    });
    ids.push(row.id);
  }
  await db().transaction.create({
    data: { tenantId: project.tenantId, stationId: other.id, reference: "elsewhere" },
  });
  return { ...project, station, ids };
}

const list = (tenantId: number, key: string, query: string) =>
  call("GET", `/v1/tenants/${tenantId}/transactions?${query}`, { key });

describe("GET /v1/tenants/{tenant_id}/transactions", () => {
  it("lists oldest first by default and pages forward with next_cursor", async () => {
    const h = await aHistory();
    const first = await list(h.tenantId, h.key, `station_id=${h.station.id}&limit=3`);
    expect(first.status).toBe(200);
    expect(first.body.data.map((t: { id: number }) => t.id)).toEqual(h.ids.slice(0, 3));
    expect(first.body.next_cursor).toBe(h.ids[2]);
    const second = await list(
      h.tenantId,
      h.key,
      `station_id=${h.station.id}&limit=3&after=${first.body.next_cursor}`,
    );
    expect(second.body.data.map((t: { id: number }) => t.id)).toEqual(h.ids.slice(3));
    expect(second.body.next_cursor).toBeNull();
  });

  it("order=desc lists newest first and pages to lower ids", async () => {
    const h = await aHistory();
    const newest = [...h.ids].reverse();
    const first = await list(h.tenantId, h.key, `station_id=${h.station.id}&order=desc&limit=2`);
    expect(first.body.data.map((t: { id: number }) => t.id)).toEqual(newest.slice(0, 2));
    expect(first.body.has_more).toBe(true);
    const rest = await list(
      h.tenantId,
      h.key,
      `station_id=${h.station.id}&order=desc&limit=10&after=${first.body.next_cursor}`,
    );
    expect(rest.body.data.map((t: { id: number }) => t.id)).toEqual(newest.slice(2));
    expect(rest.body.next_cursor).toBeNull();
  });

  it("status=active and status=ended narrow the list", async () => {
    const h = await aHistory();
    const active = await list(h.tenantId, h.key, `station_id=${h.station.id}&status=active`);
    expect(active.body.data.map((t: { id: number }) => t.id)).toEqual([
      h.ids[0],
      h.ids[2],
      h.ids[4],
    ]);
    expect(active.body.data.every((t: { status: string }) => t.status === "active")).toBe(true);
    const ended = await list(
      h.tenantId,
      h.key,
      `station_id=${h.station.id}&status=ended&order=desc`,
    );
    expect(ended.body.data.map((t: { id: number }) => t.id)).toEqual([h.ids[3], h.ids[1]]);
    const all = await list(h.tenantId, h.key, "limit=100");
    expect(all.body.data).toHaveLength(6);
  });

  it("refuses an unknown status or order with 422 validation_failed naming the field", async () => {
    const h = await aHistory();
    for (const query of ["status=open", "order=newest"]) {
      const res = await list(h.tenantId, h.key, query);
      expect(res.status).toBe(422);
      expect(res.body.error.code).toBe("validation_failed");
      expect(JSON.stringify(res.body.error.details)).toContain(query.split("=")[0]);
    }
  });
});
