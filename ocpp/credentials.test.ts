import { describe, expect, it } from "vitest";
import { db } from "../server/db";
import { call, idem } from "../testing/api";
import { aStation, aTenantWithKey, anotherKey } from "../testing/builders";
import { aConnectedCharger, aCharger, waitUntil } from "../testing/ocpp";
import { aLiveGateway } from "../testing/live-gateway";

const gw = aLiveGateway();

async function setup(protocol: "ocpp1.6" | "ocpp2.0.1") {
  const t = await aTenantWithKey();
  const station = await aStation(t.tenantId, t.key, { connector_count: 1 });
  const put = (key: string, password: string) =>
    call("PUT", `/v1/tenants/${t.tenantId}/stations/${station.id}/credentials`, {
      key,
      body: { password },
      idempotencyKey: idem(),
    });
  expect((await put(t.key, "first-password-0001")).body.result).toEqual({ applied: "stored" });
  const charger = aCharger({
    url: gw.url,
    identity: station.name,
    password: "first-password-0001",
    protocol,
  });
  const online = async () =>
    (await call("GET", `/v1/tenants/${t.tenantId}/stations/${station.id}`, { key: t.key })).body
      .online;
  return { ...t, station, put, charger, online };
}

describe("station credentials", () => {
  it("pushes a new password to a connected 2.0.1 station with stations:admin, and stores it once accepted", async () => {
    const s = await setup("ocpp2.0.1");
    const pushed: unknown[] = [];
    s.charger.handle("SetVariables", ({ params }: { params?: any }) => {
      pushed.push(params);
      return Promise.resolve({
        setVariableResult: [
          {
            attributeStatus: "Accepted",
            component: { name: "SecurityCtrlr" },
            variable: { name: "BasicAuthPassword" },
          },
        ],
      });
    });
    await s.charger.connect();
    await waitUntil(s.online);
    const writer = await anotherKey(s.tenantId, ["stations:write"]);
    const refused = await s.put(writer, "second-password-002");
    expect(refused.status).toBe(403);
    expect(refused.body.error.code).toBe("stations_admin_required");
    expect(pushed).toEqual([]);

    const res = await s.put(s.key, "second-password-002");
    expect(res.status).toBe(202);
    expect(res.body).toMatchObject({ status: "succeeded", result: { applied: "pushed" } });
    expect(pushed).toEqual([
      {
        setVariableData: [
          {
            attributeValue: "second-password-002",
            component: { name: "SecurityCtrlr" },
            variable: { name: "BasicAuthPassword" },
          },
        ],
      },
    ]);
    expect(res.body.request).toEqual({}); // the password's hash is never shown
    const listed = await call("GET", `/v1/tenants/${s.tenantId}/operations/${res.body.id}`, {
      key: s.key,
    });
    expect(JSON.stringify(listed.body)).not.toContain("scrypt");
    const op = await db().operation.findUniqueOrThrow({ where: { id: res.body.id } });
    expect(JSON.stringify(op)).not.toContain("second-password-002"); // no copy of the secret is kept
    await s.charger.close({ force: true });
    await expect(
      aCharger({
        url: gw.url,
        identity: s.station.name,
        password: "first-password-0001",
        protocol: "ocpp2.0.1",
      }).connect(),
    ).rejects.toThrow();
    const again = await aConnectedCharger(gw, s.station, "second-password-002", "ocpp2.0.1");
    await again.close({ force: true });
    const events = await db().event.findMany({
      where: { tenantId: s.tenantId, type: "station.credentials_changed" },
    });
    expect(events.map((e) => (e.data as { applied: string }).applied)).toEqual([
      "stored",
      "pushed",
    ]);
  });

  it("refuses a connected 1.6 station with station_online, and limits changes to 5 per station per hour", async () => {
    const s = await setup("ocpp1.6");
    await s.charger.connect();
    await waitUntil(s.online);
    const online = await s.put(s.key, "another-password-01");
    expect(online.body).toMatchObject({
      status: "rejected",
      result: { error: { code: "station_online" } },
    });
    await s.charger.close({ force: true });
    await waitUntil(async () => !(await s.online()));
    const statuses = [];
    for (let i = 0; i < 5; i++)
      statuses.push((await s.put(s.key, `offline-password-${i}0`)).status);
    expect(statuses).toEqual([202, 202, 202, 202, 429]); // the first stored change counts too
    const limited = await s.put(s.key, "one-too-many-pass-1");
    expect(limited.body.error.code).toBe("credentials_rate_limited");
  });
});
