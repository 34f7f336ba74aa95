import { afterAll, describe, expect, it } from "vitest";
import { db } from "../server/db";
import { call, idem } from "../testing/api";
import { aLocation, aTenantWithKey, uniqueStationName } from "../testing/builders";
import { aFreePort } from "../testing/gateway-process";
import { aCharger, waitUntil } from "../testing/ocpp";
import { parseMetrics, sumOf } from "../testing/read-metrics";
import { superviseGateways, type GatewayFleet } from "./gateways";

/**
 * `npm start` with OCPP_PROCESSES=2 (scripts/start.ts runs its gateways through
 * `superviseGateways`): two real `ocpp/main.ts` processes on this file's database, on one port.
 */
const PASSWORD = "two-gateways-password-1";
const CHARGERS = 16;
const METRICS_TOKEN = "two-gateways-metrics-token-0123456789";

/** A scrape of the shared port's /metrics (it reaches whichever process the kernel picks). */
async function scrape(port: number) {
  const response = await fetch(`http://127.0.0.1:${port}/metrics`, {
    headers: { authorization: `Bearer ${METRICS_TOKEN}` },
  });
  expect(response.status).toBe(200);
  return parseMetrics(await response.text());
}

type Health = {
  status: string;
  gateway_id: string;
  connections: number;
  process: string;
  processes: {
    name: string;
    up: boolean;
    pid?: number;
    gateway_id?: string;
    connections?: number;
  }[];
};

/** A probe of the shared port's /health (it too reaches whichever process the kernel picks). */
async function probe(port: number, timeoutMs = 5_000) {
  const response = await fetch(`http://127.0.0.1:${port}/health`, {
    signal: AbortSignal.timeout(timeoutMs),
  });
  return { status: response.status, body: (await response.json()) as Health };
}

let fleet: GatewayFleet | undefined;
afterAll(async () => {
  await fleet?.stop();
});

async function bootedCharger(url: string, name: string) {
  const charger = aCharger({ url, identity: name, password: PASSWORD, protocol: "ocpp2.0.1" });
  await charger.connect();
  const boot = (await charger.call("BootNotification", {
    reason: "PowerUp",
    chargingStation: { vendorName: "Test", model: "TwoGateways" },
  })) as { status: string };
  expect(boot.status).toBe("Accepted");
  return charger;
}

describe("several gateway processes under npm start", () => {
  it("share one port; one killed with SIGKILL is restarted on its own, its chargers reconnect, the other's chargers stay connected; /metrics and /health answer for both", async () => {
    const port = await aFreePort();
    const lines: string[] = [];
    fleet = superviseGateways({
      count: 2,
      env: { ...process.env, OCPP_PORT: String(port), LOG_LEVEL: "info", METRICS_TOKEN },
      log: (line) => lines.push(line),
      labelWidth: 5,
      backoff: { initialMs: 200, maxMs: 1_000, resetAfterMs: 60_000 },
    });
    await fleet.waitListening(90_000);
    fleet.keepUp();
    const [one, two] = fleet.processes;
    expect([one!.name, two!.name]).toEqual(["ocpp1", "ocpp2"]);
    const first = [one!.listening()!, two!.listening()!];
    expect(first[0]!.pid).not.toBe(first[1]!.pid);
    expect(first[0]!.gatewayId).not.toBe(first[1]!.gatewayId);

    // a fleet with passwords, through the bulk route
    const t = await aTenantWithKey();
    const location = await aLocation(t.tenantId, t.key);
    const names = Array.from({ length: CHARGERS }, () => uniqueStationName("TG"));
    const registered = await call("POST", `/v1/tenants/${t.tenantId}/stations/bulk`, {
      key: t.key,
      idempotencyKey: idem(),
      body: {
        stations: names.map((name) => ({
          name,
          location_id: location.id,
          connector_count: 1,
          password: PASSWORD,
        })),
      },
    });
    expect(registered.body.created).toBe(CHARGERS);

    // strict chargers on the one URL: the kernel spreads them over both processes
    const url = `ws://127.0.0.1:${port}/ocpp`;
    const chargers = await Promise.all(names.map((name) => bootedCharger(url, name)));
    const holder = async (name: string) =>
      (await db().station.findUniqueOrThrow({ where: { nameKey: name.toLowerCase() } })).gatewayId;
    await waitUntil(async () => (await Promise.all(names.map(holder))).every(Boolean), 15_000);
    const held = await Promise.all(names.map(holder));
    const onOne = names.filter((_, i) => held[i] === first[0]!.gatewayId);
    const onTwo = names.filter((_, i) => held[i] === first[1]!.gatewayId);
    expect(onOne.length + onTwo.length).toBe(CHARGERS);
    expect(onOne.length).toBeGreaterThan(0);
    expect(onTwo.length).toBeGreaterThan(0);

    // every scrape, whichever process takes it, has both processes' series, each by its name
    for (let i = 0; i < 6; i++) {
      const samples = await scrape(port);
      const connections = (process: string) =>
        sumOf(samples, "chargecloud_ocpp_connections", { process });
      expect([connections("ocpp1"), connections("ocpp2")]).toEqual([onOne.length, onTwo.length]);
      expect(sumOf(samples, "chargecloud_process_up")).toBe(2);
      expect(
        sumOf(samples, "chargecloud_ocpp_handshakes_total", {
          outcome: "accepted",
          process: "ocpp1",
        }),
      ).toBeGreaterThanOrEqual(onOne.length);
    }
    // every probe of /health, whichever process takes it, tells about both
    const bothUp = (
      [
        ["ocpp1", first[0]!, onOne],
        ["ocpp2", first[1]!, onTwo],
      ] as const
    ).map(([name, { pid, gatewayId }, held]) =>
      expect.objectContaining({
        name,
        up: true,
        pid,
        gateway_id: gatewayId,
        connections: held.length,
      }),
    );
    for (let i = 0; i < 6; i++) {
      const { status, body } = await probe(port);
      expect(status).toBe(200);
      expect(body.status).toBe("ok");
      expect(body.processes).toEqual(bothUp);
      // the process the probe reached, at the top level as with one process
      const self = body.processes.find((p) => p.name === body.process)!;
      expect([body.gateway_id, body.connections]).toEqual([self.gateway_id, self.connections]);
    }
    const started = (samples: ReturnType<typeof parseMetrics>) =>
      sumOf(samples, "process_start_time_seconds", { process: "ocpp1" });
    const firstStart = started(await scrape(port));
    expect(firstStart).toBeGreaterThan(0);

    const closed = new Set<string>();
    chargers.forEach((charger, i) => charger.once("close", () => closed.add(names[i]!)));

    // kill -9 the first process
    process.kill(first[0]!.pid, "SIGKILL");
    await waitUntil(() => onOne.every((name) => closed.has(name)), 15_000);
    await waitUntil(() => {
      const now = one!.listening();
      return now !== undefined && now.pid !== first[0]!.pid;
    }, 60_000);
    const restarted = one!.listening()!;
    expect(restarted.gatewayId).not.toBe(first[0]!.gatewayId);
    expect(lines).toContainEqual(
      expect.stringMatching(
        new RegExp(
          `^ocpp1 \\(pid ${first[0]!.pid}\\) stopped unexpectedly \\(killed by SIGKILL\\) after [\\d.]+ s; restarting in 0\\.2 s \\(restart 1\\)$`,
        ),
      ),
    );
    // the other process was neither killed nor restarted, and its chargers noticed nothing
    expect(two!.supervised.deaths()).toBe(0);
    expect(two!.listening()).toEqual(first[1]);
    expect(onTwo.filter((name) => closed.has(name))).toEqual([]);
    await Promise.all(
      chargers
        .filter((_, i) => onTwo.includes(names[i]!))
        .map(async (charger) =>
          expect(await charger.call("Heartbeat", {})).toHaveProperty("currentTime"),
        ),
    );

    // the killed process's chargers reconnect (to whichever process the kernel picks) and boot
    const again = await Promise.all(onOne.map((name) => bootedCharger(url, name)));
    const live = new Set([restarted.gatewayId, first[1]!.gatewayId]);
    await waitUntil(
      async () => (await Promise.all(onOne.map(holder))).every((id) => id !== null && live.has(id)),
      15_000,
    );
    // the restarted process's series are its own (a new start time), the other's kept counting
    const after = await scrape(port);
    expect(sumOf(after, "chargecloud_process_up", { process: "ocpp1" })).toBe(1);
    expect(started(after)).toBeGreaterThan(firstStart);
    expect(
      sumOf(after, "chargecloud_ocpp_connections", { process: "ocpp1" }) +
        sumOf(after, "chargecloud_ocpp_connections", { process: "ocpp2" }),
    ).toBe(CHARGERS);
    const { body: afterKill } = await probe(port);
    expect(afterKill.processes.map((p) => [p.name, p.up, p.pid, p.gateway_id])).toEqual([
      ["ocpp1", true, restarted.pid, restarted.gatewayId],
      ["ocpp2", true, first[1]!.pid, first[1]!.gatewayId],
    ]);

    // a stalled process (stopped: it answers nothing) is not up for the one that takes the probe
    process.kill(first[1]!.pid, "SIGSTOP");
    try {
      let degraded: { status: number; body: Health } | undefined;
      for (let i = 0; i < 20 && !degraded; i++) {
        // a probe the kernel gives the stopped process waits in its queue: try another connection
        degraded = await probe(port, 2_000).catch(() => undefined);
      }
      expect(degraded?.status).toBe(200);
      expect(degraded?.body.process).toBe("ocpp1");
      expect(degraded?.body.status).toBe("degraded");
      expect(degraded?.body.processes.map((p) => [p.name, p.up])).toEqual([
        ["ocpp1", true],
        ["ocpp2", false],
      ]);
    } finally {
      process.kill(first[1]!.pid, "SIGCONT");
    }
    await waitUntil(async () => (await probe(port)).body.status === "ok", 10_000);
    await Promise.all([...again, ...chargers].map((c) => c.close({ force: true })));
  }, 180_000);
});
