import { describe, expect, it } from "vitest";
import { db } from "../db";
import { call } from "../../testing/api";
import { aStation, aTenantWithKey } from "../../testing/builders";

describe("GET /v1/tenants/{tenant_id}/overview and the lists it links to", () => {
  it("counts stations by state, sums energy by day, lists running transactions with their power", async () => {
    const p = await aTenantWithKey();
    const online = await aStation(p.tenantId, p.key);
    const charging = await aStation(p.tenantId, p.key);
    const faulted = await aStation(p.tenantId, p.key);
    await db().station.updateMany({
      where: { id: { in: [online.id, charging.id] } },
      data: { gatewayId: "gw-test", bootedAt: new Date() },
    });
    const connector = await db().connector.findFirstOrThrow({ where: { stationId: charging.id } });
    await db().connector.update({ where: { id: connector.id }, data: { status: "Charging" } });
    await db().fault.create({
      data: {
        tenantId: p.tenantId,
        stationId: faulted.id,
        errorCode: "GroundFailure",
        openedAt: new Date(),
      },
    });
    const now = new Date();
    const running = await db().transaction.create({
      data: {
        tenantId: p.tenantId,
        stationId: charging.id,
        connectorId: connector.id,
        reference: "run-1",
        startedAt: now,
        energyWh: 1500,
        meterStartWh: 1000n,
      },
    });
    await db().transaction.create({
      data: {
        tenantId: p.tenantId,
        stationId: online.id,
        reference: "old-1",
        startedAt: new Date(now.getTime() - 3 * 86_400_000),
        endedAt: new Date(now.getTime() - 3 * 86_400_000 + 3_600_000),
        energyWh: 7000,
      },
    });
    for (const [i, kw] of ["3.100", "7.200"].entries())
      await db().meterSample.create({
        data: {
          tenantId: p.tenantId,
          transactionId: running.id,
          sampledAt: new Date(now.getTime() + i * 10_000),
          energyWh: BigInt(1000 + 750 * (i + 1)),
          powerKw: kw,
          socPercent: String(40 + i),
        },
      });

    const res = await call("GET", `/v1/tenants/${p.tenantId}/overview`, { key: p.key });
    expect(res.status).toBe(200);
    expect(res.body.stations).toEqual({ total: 3, online: 2, offline: 1, charging: 1, faulted: 1 });
    expect(res.body.setup.first_station.id).toBe(online.id);
    expect(res.body.setup.first_boot_at).not.toBeNull();
    expect(res.body.usage.days).toHaveLength(30);
    expect(res.body.usage.today).toHaveLength(24);
    expect(res.body.usage.totals.today.energy_wh).toBe(1500);
    expect(res.body.usage.totals.last_7_days.energy_wh).toBe(8500);
    expect(res.body.active_transactions).toMatchObject([
      { id: running.id, station_name: charging.name, power_kw: "7.200" },
    ]);
    expect(res.body.alerts).toMatchObject([{ kind: "fault", station_id: faulted.id }]);

    for (const [state, ids] of [
      ["online", [online.id, charging.id]],
      ["offline", [faulted.id]],
      ["charging", [charging.id]],
      ["faulted", [faulted.id]],
    ] as const) {
      const list = await call("GET", `/v1/tenants/${p.tenantId}/stations?state=${state}`, {
        key: p.key,
      });
      expect(
        list.body.data.map((s: { id: number }) => s.id),
        state,
      ).toEqual(ids);
    }

    const samples = await call(
      "GET",
      `/v1/tenants/${p.tenantId}/transactions/${running.id}/meter-samples`,
      { key: p.key },
    );
    expect(samples.status).toBe(200);
    expect(samples.body.data).toMatchObject([
      { energy_wh: 750, power_kw: "3.100", soc_percent: "40" },
      { energy_wh: 1500, energy_kwh: "1.500", power_kw: "7.200" },
    ]);
    const tx = await call("GET", `/v1/tenants/${p.tenantId}/transactions/${running.id}`, {
      key: p.key,
    });
    expect(tx.body).toMatchObject({ station_name: charging.name, connector_number: 1, bill: null });

    const range = await call(
      "GET",
      `/v1/tenants/${p.tenantId}/transactions?started_from=${encodeURIComponent(
        new Date(now.getTime() - 86_400_000).toISOString(),
      )}`,
      { key: p.key },
    );
    expect(range.body.data.map((t: { id: number }) => t.id)).toEqual([running.id]);

    const zone = await call("GET", `/v1/tenants/${p.tenantId}/overview?time_zone=Mars/Base`, {
      key: p.key,
    });
    expect(zone.status).toBe(422);
  });
});
