import jsQR from "jsqr";
import { PNG } from "pngjs";
import type { RPCClient } from "ocpp-rpc";
import { describe, expect, it } from "vitest";
import { db } from "../server/db";
import { displaySyncJob } from "../server/displays/sync-displays";
import { handleV1 } from "../server/http/routes";
import { call, idem } from "../testing/api";
import { aTariff } from "../testing/bills";
import { aStationWithPassword, aTenantWithKey } from "../testing/builders";
import { aLiveGateway } from "../testing/live-gateway";
import { aConnectedCharger, waitUntil } from "../testing/ocpp";

const gw = aLiveGateway({ jobs: [displaySyncJob()] });
const PASSWORD = "display-password-01";
type Protocol = "ocpp1.6" | "ocpp2.0.1" | "ocpp2.1";

/** A registered station, its display routes, and a charger recording every display call. */
async function aStationWithScreen(options: { connectors?: number } = {}) {
  const t = await aTenantWithKey();
  const station = await aStationWithPassword(t, PASSWORD, {
    connector_count: options.connectors ?? 1,
  });
  const path = (evse: number) =>
    `/v1/tenants/${t.tenantId}/stations/${station.id}/evses/${evse}/display`;
  const calls: { action: string; params: any }[] = [];
  let answer = "Accepted";
  const connect = (protocol: Protocol) =>
    aConnectedCharger(gw, station, PASSWORD, protocol, (charger: RPCClient) => {
      for (const action of ["SetDisplayMessage", "ClearDisplayMessage"])
        charger.handle(action, ({ params }: { params?: any }) => {
          calls.push({ action, params });
          return Promise.resolve({ status: answer });
        });
    });
  const boot = (charger: RPCClient, protocol: Protocol, vendor = "Acme") =>
    charger.call(
      "BootNotification",
      protocol === "ocpp1.6"
        ? { chargePointVendor: vendor, chargePointModel: "Screen" }
        : { reason: "PowerUp", chargingStation: { vendorName: vendor, model: "Screen" } },
    );
  const read = async (evse = 1) => (await call("GET", path(evse), { key: t.key })).body;
  const stationRead = async () =>
    (await call("GET", `/v1/tenants/${t.tenantId}/stations/${station.id}`, { key: t.key })).body;
  const put = (evse: number, body: unknown) =>
    call("PUT", path(evse), { key: t.key, body, idempotencyKey: idem() });
  const events = async () =>
    (
      await db().event.findMany({
        where: { tenantId: t.tenantId, type: "display.delivery_changed" },
        orderBy: { sequence: "asc" },
      })
    ).map((e) => (e.data as { display: any }).display);
  return {
    ...t,
    station,
    path,
    calls,
    connect,
    boot,
    read,
    stationRead,
    put,
    events,
    answerWith: (status: string) => (answer = status),
  };
}

const pushes = (calls: { action: string; params: any }[]) =>
  calls.filter((c) => c.action === "SetDisplayMessage").map((c) => c.params);

async function fetchPng(imageUrl: string) {
  const { pathname } = new URL(imageUrl);
  return handleV1(new Request(`http://localhost:3000${pathname}`));
}

describe("charger displays pushed to real chargers", () => {
  it("2.0.1: set while offline, pushed as a URI to the QR PNG on connect, again after a reboot and after a price change", async () => {
    const s = await aStationWithScreen();
    const tariff = await aTariff(s.tenantId, s.key, { rate_minor_per_kwh: 35 });
    const url = "https://pay.example.com/s/ABC-123?evse=1";
    const set = await s.put(1, { url, tariff_id: tariff.id });
    expect(set.status).toBe(200);
    expect(set.body).toMatchObject({
      url,
      tariff_id: tariff.id,
      evse_number: 1,
      deleted: false,
      delivery: { state: "pending", shown: false, error: null },
    });
    expect((await s.stationRead()).display).toMatchObject({
      adapter: null,
      reason: "not_booted",
      evses: [{ url, delivery: { state: "pending" } }],
    });

    const charger = await s.connect("ocpp2.0.1");
    await s.boot(charger, "ocpp2.0.1");
    await waitUntil(async () => (await s.read()).delivery.state === "applied");
    expect((await s.read()).delivery).toEqual({ state: "applied", shown: true, error: null });
    const first = pushes(s.calls);
    expect(first).toHaveLength(1);
    const imageUrl = set.body.image_url as string;
    expect(imageUrl).toMatch(/\/v1\/display-images\/[0-9a-f]{64}\.png$/);
    expect(first[0]).toEqual({
      message: {
        id: 1,
        priority: "AlwaysFront",
        message: { format: "URI", content: imageUrl },
        customData: { vendorId: "chargecloud.display", priceText: "$0.35 per kWh" },
      },
    });
    expect((await s.stationRead()).display).toMatchObject({
      adapter: "ocpp2.0.1_uri",
      reason: null,
      clear: true,
    });

    // The PNG the screen loads decodes back to the exact URL, and is cached for good.
    const png = await fetchPng(imageUrl);
    expect(png.status).toBe(200);
    expect(png.headers.get("content-type")).toBe("image/png");
    expect(png.headers.get("cache-control")).toBe("public, max-age=31536000, immutable");
    const bytes = Buffer.from(await png.arrayBuffer());
    const image = PNG.sync.read(bytes);
    const decoded = jsQR(new Uint8ClampedArray(image.data), image.width, image.height);
    expect(decoded?.data).toBe(url);
    const { createHash } = await import("node:crypto");
    expect(imageUrl).toContain(createHash("sha256").update(bytes).digest("hex"));

    // A reboot pushes again.
    await new Promise((r) => setTimeout(r, 20));
    await s.boot(charger, "ocpp2.0.1");
    await waitUntil(() => pushes(s.calls).length === 2);
    await waitUntil(async () => (await s.read()).delivery.state === "applied");

    // A price change of the tariff shown pushes the new price.
    const edited = await call("PATCH", `/v1/tenants/${s.tenantId}/tariffs/${tariff.id}`, {
      key: s.key,
      body: { rate_minor_per_kwh: 50 },
    });
    expect(edited.status).toBe(200);
    await waitUntil(() => pushes(s.calls).length === 3);
    expect(pushes(s.calls)[2].message.customData.priceText).toBe("$0.50 per kWh");
    await waitUntil(async () => (await s.read()).delivery.state === "applied");

    // Nothing more is pushed while nothing changes.
    await new Promise((r) => setTimeout(r, 600));
    expect(pushes(s.calls)).toHaveLength(3);
    const states = (await s.events()).map((d) => d.delivery.state);
    expect(states[0]).toBe("pending");
    expect(states.at(-1)).toBe("applied");
    expect(states.filter((x) => x === "applied").length).toBeGreaterThanOrEqual(3);
    await charger.close({ force: true });
  });

  it("2.1: pushed in the QR code format; a rejected push says so; a delete clears the screen", async () => {
    const s = await aStationWithScreen();
    const url = "https://pay.example.com/s/XYZ";
    const charger = await s.connect("ocpp2.1");
    await s.boot(charger, "ocpp2.1");
    await waitUntil(async () => (await s.stationRead()).display.adapter === "ocpp2.1_qrcode");
    expect((await s.put(1, { url })).body.delivery.state).toBe("pending");
    await waitUntil(async () => (await s.read()).delivery.state === "applied");
    expect(pushes(s.calls)).toEqual([
      { message: { id: 1, priority: "AlwaysFront", message: { format: "QRCODE", content: url } } },
    ]);

    s.answerWith("Rejected");
    const other = "https://pay.example.com/s/OTHER";
    expect((await s.put(1, { url: other })).body.delivery).toEqual({
      state: "pending",
      shown: false,
      error: null,
    });
    await waitUntil(async () => (await s.read()).delivery.error !== null);
    expect((await s.read()).delivery).toMatchObject({
      state: "pending",
      shown: false,
      error: { code: "charger_rejected" },
    });

    s.answerWith("Accepted");
    await s.boot(charger, "ocpp2.1"); // a reboot tries again
    await waitUntil(async () => (await s.read()).delivery.state === "applied");
    expect((await s.read()).delivery).toEqual({ state: "applied", shown: true, error: null });

    const deleted = await call("DELETE", s.path(1), { key: s.key });
    expect(deleted.status).toBe(200);
    expect(deleted.body).toMatchObject({ deleted: true, delivery: { shown: true } });
    await waitUntil(async () => (await s.read()).delivery.shown === false);
    expect(s.calls.filter((c) => c.action === "ClearDisplayMessage")).toEqual([
      { action: "ClearDisplayMessage", params: { id: 1 } },
    ]);
    expect((await s.stationRead()).display.evses).toEqual([]);
    const last = (await s.events()).at(-1);
    expect(last).toMatchObject({ deleted: true, delivery: { state: "applied", shown: false } });
    await charger.close({ force: true });
  });

  it("1.6 and a multi-EVSE 2.0.1 charger without a vendor adapter read unsupported with a reason, and nothing is sent", async () => {
    for (const [protocol, connectors, reason] of [
      ["ocpp1.6", 1, "ocpp1.6_has_no_display_messages"],
      ["ocpp2.0.1", 2, "multi_evse_without_vendor_adapter"],
    ] as const) {
      const s = await aStationWithScreen({ connectors });
      expect((await s.put(1, { url: "https://pay.example.com/a" })).status).toBe(200);
      const charger = await s.connect(protocol);
      await s.boot(charger, protocol);
      await waitUntil(async () => (await s.read()).delivery.state === "unsupported");
      expect((await s.stationRead()).display).toMatchObject({
        adapter: null,
        reason,
        clear: null,
        evses: [{ delivery: { state: "unsupported", shown: false } }],
      });
      // Set once the charger is known: unsupported at once.
      expect((await s.put(1, { url: "https://pay.example.com/b" })).body.delivery.state).toBe(
        "unsupported",
      );
      await new Promise((r) => setTimeout(r, 500));
      expect(s.calls).toEqual([]);
      await charger.close({ force: true });
    }
  });

  it("vendor adapters drive each EVSE's screen; clear is false and the QR is kept until reboot, or until overwritten", async () => {
    const s = await aStationWithScreen({ connectors: 2 });
    const charger = await s.connect("ocpp2.0.1");
    await s.boot(charger, "ocpp2.0.1", "ScreenKeep Reboot");
    await waitUntil(
      async () => (await s.stationRead()).display.adapter === "vendor_qr_until_reboot",
    );
    expect((await s.stationRead()).display).toMatchObject({ clear: false, reason: null });
    await s.put(2, { url: "https://pay.example.com/evse2" });
    await waitUntil(async () => (await s.read(2)).delivery.state === "applied");
    expect(pushes(s.calls)[0].message.display).toEqual({ name: "Display", evse: { id: 2 } });

    const deleted = await call("DELETE", s.path(2), { key: s.key });
    expect(deleted.body).toMatchObject({ deleted: true, delivery: { shown: true } });
    await new Promise((r) => setTimeout(r, 500));
    expect(s.calls.filter((c) => c.action === "ClearDisplayMessage")).toEqual([]);
    expect((await s.read(2)).delivery.shown).toBe(true); // still on the screen
    await s.boot(charger, "ocpp2.0.1", "ScreenKeep Reboot");
    await waitUntil(async () => (await s.read(2)).delivery.shown === false);
    await charger.close({ force: true });

    // The other behaviour: a reboot does not clear it.
    const o = await aStationWithScreen({ connectors: 2 });
    const other = await o.connect("ocpp2.1");
    await o.boot(other, "ocpp2.1", "ScreenKeep Overwrite");
    await o.put(1, { url: "https://pay.example.com/evse1" });
    await waitUntil(async () => (await o.read(1)).delivery.state === "applied");
    expect((await o.stationRead()).display).toMatchObject({
      adapter: "vendor_qr_until_overwritten",
      clear: false,
    });
    await call("DELETE", o.path(1), { key: o.key });
    await new Promise((r) => setTimeout(r, 20));
    await o.boot(other, "ocpp2.1", "ScreenKeep Overwrite");
    await new Promise((r) => setTimeout(r, 800));
    expect((await o.read(1)).delivery.shown).toBe(true);
    expect(o.calls.filter((c) => c.action === "ClearDisplayMessage")).toEqual([]);
    await other.close({ force: true });
  });
});
