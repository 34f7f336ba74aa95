import { describe, expect, it } from "vitest";
import { call } from "../testing/api";
import { aStationWithPassword, aTenantWithKey } from "../testing/builders";
import { aLiveGateway } from "../testing/live-gateway";
import { aCharger, handshake, waitUntil } from "../testing/ocpp";
import { aUser } from "../testing/users";

// Preproduction charger URLs (server/stations/charger-urls.ts): the gateway accepts a station on
// its project-scoped charger ID `p<tenant>-<name>`, Basic username the same, password its own.
process.env.SERVICE_ENV = "preproduction";

const PASSWORD = "charger-url-password-01";
const gw = aLiveGateway();

describe("a charger on its preproduction charger URL", () => {
  it("connects with charger_id and username as the station reports them, in strict mode, and is that station", async () => {
    const t = await aTenantWithKey();
    const station = await aStationWithPassword(t, PASSWORD);
    const read = async () =>
      (await call("GET", `/v1/tenants/${t.tenantId}/stations/${station.id}`, { key: t.key })).body;
    const resource = await read();
    expect(resource.charger_id).toBe(`p${t.tenantId}-${station.name}`);
    expect(resource.username).toBe(resource.charger_id);

    const charger = aCharger({
      url: gw.url,
      identity: resource.charger_id,
      password: PASSWORD,
      protocol: "ocpp1.6",
    });
    await charger.connect();
    const boot = (await charger.call("BootNotification", {
      chargePointVendor: "Preprod",
      chargePointModel: "URL-1",
    })) as { status: string };
    expect(boot.status).toBe("Accepted");
    await waitUntil(async () => (await read()).online === true);
    expect((await read()).boot).toMatchObject({ vendor: "Preprod", model: "URL-1" });
    await charger.close();
  });

  it("refuses another tenant's prefix, a wrong password, and a tenant whose charger URLs staff turned off; the plain name still works", async () => {
    const t = await aTenantWithKey();
    const other = await aTenantWithKey();
    const station = await aStationWithPassword(t, PASSWORD);
    const id = `p${t.tenantId}-${station.name}`;
    expect((await handshake(gw.url, id, PASSWORD)).status).toBe(101);
    expect((await handshake(gw.url, `p${other.tenantId}-${station.name}`, PASSWORD)).status).toBe(
      401,
    );
    expect((await handshake(gw.url, id, "wrong-password-000001")).status).toBe(401);

    const admin = await aUser({ platformRole: "platform-admin" });
    const off = await call("PUT", `/v1/admin/tenants/${t.tenantId}/charger-urls`, {
      key: admin.token,
      body: { enabled: false },
    });
    expect(off.status).toBe(200);
    expect((await handshake(gw.url, id, PASSWORD)).status).toBe(401);
    expect((await handshake(gw.url, station.name, PASSWORD)).status).toBe(101);

    await call("PUT", `/v1/admin/tenants/${t.tenantId}/charger-urls`, {
      key: admin.token,
      body: { enabled: true },
    });
    expect((await handshake(gw.url, id, PASSWORD)).status).toBe(101);
  });
});
