import { beforeAll, describe, expect, it, vi } from "vitest";
import { db } from "../server/db";
import {
  histogramOf,
  parseMetrics,
  scrapeMetrics,
  sumOf,
  type Sample,
} from "../testing/read-metrics";
import { call, idem } from "../testing/api";
import { aStationWithPassword, aTenantWithKey } from "../testing/builders";
import { aConnectedCharger, aCharger, waitUntil } from "../testing/ocpp";
import { aLiveGateway } from "../testing/live-gateway";

const TOKEN = vi.hoisted(() => {
  const token = "metrics-token-for-the-gateway-test-0001";
  process.env.METRICS_TOKEN = token; // before anything reads the configuration
  return token;
});
const PASSWORD = "correct-horse-battery-9";

const gw = aLiveGateway({ callTimeoutMs: 1500 });
let metricsUrl: string;
beforeAll(() => {
  metricsUrl = `${gw.url.replace("ws:", "http:").replace(/\/ocpp$/, "")}/metrics`;
});

const scrape = () => scrapeMetrics(metricsUrl, TOKEN);

async function aConnectableStation() {
  const t = await aTenantWithKey();
  return { ...t, station: await aStationWithPassword(t, PASSWORD) };
}

describe("the gateway's /metrics", () => {
  it("is refused without the token, or with another one", async () => {
    const none = await fetch(metricsUrl);
    expect(none.status).toBe(401);
    expect(none.headers.get("www-authenticate")).toBe('Bearer realm="metrics"');
    expect(await none.json()).toMatchObject({ error: { code: "unauthenticated" } });
    const wrong = await fetch(metricsUrl, {
      headers: { authorization: `Bearer ${TOKEN.slice(0, -1)}X` },
    });
    expect(wrong.status).toBe(401);
    expect(await wrong.text()).not.toContain("chargecloud_");
    const right = await fetch(metricsUrl, { headers: { authorization: `Bearer ${TOKEN}` } });
    expect(right.status).toBe(200);
    expect(right.headers.get("content-type")).toMatch(/^text\/plain; version=0\.0\.4/);
    expect(parseMetrics(await right.text()).length).toBeGreaterThan(0);
  });

  it("counts the connection held, its handshake, a refused one, its BootNotification and a command sent to it", async () => {
    const s = await aConnectableStation();
    const before = await scrape();
    const intruder = aCharger({
      url: gw.url,
      identity: s.station.name,
      password: "not-the-password-00001",
      protocol: "ocpp1.6",
    });
    await expect(intruder.connect()).rejects.toThrow();

    const charger = await aConnectedCharger(gw, s.station, PASSWORD, "ocpp1.6", (charger) => {
      charger.handle("Reset", () => Promise.resolve({ status: "Accepted" }));
    });
    try {
      await charger.call("BootNotification", {
        chargePointVendor: "Metrics",
        chargePointModel: "Test",
      });
      await waitUntil(async () => sumOf(await scrape(), "chargecloud_ocpp_connections") === 1);
      const reset = await call(
        "POST",
        `/v1/tenants/${s.tenantId}/stations/${s.station.id}/commands`,
        { key: s.key, body: { action: "reset", mode: "soft" }, idempotencyKey: idem() },
      );
      expect(reset.body).toMatchObject({ status: "succeeded" });

      const after = await scrape();
      const delta = (name: string, labels: Record<string, string>) =>
        sumOf(after, name, labels) - sumOf(before, name, labels);
      expect(sumOf(after, "chargecloud_ocpp_connections")).toBe(1);
      expect(
        delta("chargecloud_ocpp_handshakes_total", { outcome: "accepted", status: "101" }),
      ).toBe(1);
      expect(
        delta("chargecloud_ocpp_handshakes_total", { outcome: "refused", status: "401" }),
      ).toBe(1);
      expect(
        delta("chargecloud_ocpp_handshake_duration_seconds_count", { outcome: "accepted" }),
      ).toBe(1);
      const boot = histogramOf(after, "chargecloud_ocpp_message_duration_seconds", {
        action: "BootNotification",
        outcome: "ok",
      });
      expect(boot.count).toBe(1);
      expect(boot.sum).toBeGreaterThan(0);
      expect(boot.buckets.at(-1)).toEqual({ le: Infinity, count: 1 });
      expect(
        delta("chargecloud_ocpp_command_duration_seconds_count", {
          action: "Reset",
          outcome: "answered",
        }),
      ).toBe(1);
    } finally {
      await charger.close({ force: true });
    }
    await waitUntil(async () => sumOf(await scrape(), "chargecloud_ocpp_connections") === 0);
  });

  it("times a refused charger call under its own outcome", async () => {
    const s = await aConnectableStation();
    const charger = await aConnectedCharger(gw, s.station, PASSWORD, "ocpp1.6");
    try {
      // Connector 9 does not exist on a one-connector station: PropertyConstraintViolation.
      await expect(
        charger.call("StartTransaction", {
          connectorId: 9,
          idTag: "DRIVER-1",
          meterStart: 0,
          timestamp: new Date().toISOString(),
        }),
      ).rejects.toThrow();
      const samples = await scrape();
      expect(
        sumOf(samples, "chargecloud_ocpp_message_duration_seconds_count", {
          action: "StartTransaction",
          outcome: "refused",
        }),
      ).toBe(1);
    } finally {
      await charger.close({ force: true });
    }
  });

  it("reports the database pool, the jobs its runner ran and the queues it serves", async () => {
    // A job no runner here knows stays queued: the queue gauges must show it, and its age.
    await db().$executeRaw`
      INSERT INTO jobs (id, name, queue, payload, status, attempt, run_at)
      VALUES ('metrics-test:1', 'metrics.unserved', 'default', '{}', 'queued', 0,
              now() - interval '30 seconds')`;
    let samples: Sample[] = [];
    // The test runner's operation sweep runs every second; the queue gauges are cached 2 s.
    await waitUntil(async () => {
      samples = await scrape();
      return (
        sumOf(samples, "chargecloud_jobs_queued", {
          queue: "default",
          name: "metrics.unserved",
        }) === 1 &&
        sumOf(samples, "chargecloud_job_duration_seconds_count", {
          name: "operations.sweep",
          outcome: "succeeded",
        }) > 0
      );
    });
    expect(
      sumOf(samples, "chargecloud_jobs_queued_oldest_age_seconds", {
        queue: "default",
        name: "metrics.unserved",
      }),
    ).toBeGreaterThanOrEqual(30);
    expect(sumOf(samples, "chargecloud_db_pool_max")).toBe(10);
    expect(sumOf(samples, "chargecloud_db_pool_connections")).toBeGreaterThan(0);
    expect(samples.some((s) => s.name === "chargecloud_db_pool_waiting")).toBe(true);
    expect(samples.some((s) => s.name === "process_resident_memory_bytes")).toBe(true);
  });
});
