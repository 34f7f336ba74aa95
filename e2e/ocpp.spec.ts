import { expect, test } from "@playwright/test";
import { aCharger } from "../testing/ocpp";
import { loopback } from "./fixtures/product";

// Requests from this process reach the product at loopback (fixtures/product.ts).
const base = () => loopback(process.env.E2E_BASE_URL!);
const tenant = () => process.env.E2E_TENANT_ID!;
const headers = (key = `e2e-${Date.now()}-${Math.random()}`) => ({
  authorization: `Bearer ${process.env.E2E_API_KEY!}`,
  "idempotency-key": key,
});

test("a charger connects to the product's ocpp process, reports, and takes a command through the API", async ({
  request,
}) => {
  const location = await (
    await request.post(`${base()}/v1/tenants/${tenant()}/locations`, {
      headers: headers(),
      data: {
        name: "OCPP site",
        address: { street: "3 Volt Ave", city: "Denver", country: "US" },
        coordinates: { latitude: 39.74, longitude: -104.99 },
        time_zone: "America/Denver",
      },
    })
  ).json();
  const name = `E2E-OCPP-${Date.now()}`;
  const station = await (
    await request.post(`${base()}/v1/tenants/${tenant()}/stations`, {
      headers: headers(),
      data: { name, location_id: location.id, connector_count: 1 },
    })
  ).json();
  const password = "e2e-charger-password";
  const cred = await request.put(
    `${base()}/v1/tenants/${tenant()}/stations/${station.id}/credentials`,
    { headers: headers(), data: { password } },
  );
  expect((await cred.json()).result).toEqual({ applied: "stored" });

  const charger = aCharger({
    url: loopback(station.connection_url.replace(`/${name}`, "")),
    identity: name,
    password,
    protocol: "ocpp2.0.1",
  });
  charger.handle("RequestStartTransaction", () => Promise.resolve({ status: "Accepted" }));
  await charger.connect();
  try {
    await charger.call("BootNotification", {
      reason: "PowerUp",
      chargingStation: { vendorName: "E2E", model: "Sim" },
    });
    await charger.call("StatusNotification", {
      timestamp: new Date().toISOString(),
      connectorStatus: "Available",
      evseId: 1,
      connectorId: 1,
    });
    const read = await (
      await request.get(`${base()}/v1/tenants/${tenant()}/stations/${station.id}`, {
        headers: headers(),
      })
    ).json();
    expect(read).toMatchObject({
      online: true,
      protocol: "ocpp2.0.1",
      boot: { vendor: "E2E", model: "Sim" },
    });
    expect(read.connectors[0].status).toBe("Available");
    const command = await request.post(
      `${base()}/v1/tenants/${tenant()}/stations/${station.id}/commands`,
      {
        headers: headers(),
        data: { action: "start", connector_id: read.connectors[0].id, token: "E2E-TOKEN" },
      },
    );
    expect(command.status()).toBe(202);
    expect((await command.json()).status).toBe("succeeded");
    const events = await (
      await request.get(`${base()}/v1/tenants/${tenant()}/events?station_id=${station.id}`, {
        headers: headers(),
      })
    ).json();
    expect(events.data.map((e: { type: string }) => e.type)).toEqual(
      expect.arrayContaining([
        "station.connected",
        "station.booted",
        "connector.status_changed",
        "operation.completed",
      ]),
    );
  } finally {
    await charger.close({ force: true });
  }
});
