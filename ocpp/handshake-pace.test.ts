import http from "node:http";
import net from "node:net";
import { once } from "node:events";
import { describe, expect, it } from "vitest";
import { createHandshakePace } from "./handshake-pace";
import { metrics } from "../server/metrics/registry";
import { aStationWithPassword, aTenantWithKey } from "../testing/builders";
import { aConnectedCharger, handshake } from "../testing/ocpp";
import { aLiveGateway } from "../testing/live-gateway";

const PASSWORD = "pace-password-00001";
/** this gateway's share of OCPP_HANDSHAKES_PER_SECOND */
const PER_SECOND = 10;

const refusedForPace = async () =>
  (await metrics().ocppHandshakes.get()).values
    .filter((v) => v.labels.outcome === "refused" && v.labels.status === "503")
    .reduce((sum, v) => sum + v.value, 0);

/**
 * A reconnect storm against a gateway that takes 10 new connections a second, its line shortened
 * to 5 s of them (50; 30 s in production), a quarter of that (13) from one address.
 */
describe("new connections at a pace (OCPP_HANDSHAKES_PER_SECOND)", () => {
  const gw = aLiveGateway({ handshakePace: { perSecond: PER_SECOND, maxWaitMs: 5_000 } });

  it("a flood from one address is taken at the pace, its excess answered 503 with Retry-After at once; another address is served in turn; a connected charger is answered meanwhile", async () => {
    const t = await aTenantWithKey();
    const stations = await Promise.all(
      Array.from({ length: 21 }, () => aStationWithPassword(t, PASSWORD)),
    );
    const connected = await aConnectedCharger(gw, stations[0]!, PASSWORD, "ocpp1.6");
    await connected.call("BootNotification", {
      chargePointVendor: "Pace",
      chargePointModel: "Flood",
    });
    // let the bucket refill after the connected charger's own handshake
    await new Promise((r) => setTimeout(r, 200));
    const refusedBefore = await refusedForPace();

    const flood = stations
      .slice(1, 20)
      .map((s) => handshake(gw.url, s.name, PASSWORD, { "x-forwarded-for": "198.18.40.1" }));
    // the line as /metrics shows it, once the flood has reached the gateway
    let waitingSeen = 0;
    const watching = setInterval(() => {
      void metrics()
        .ocppHandshakesWaiting.get()
        .then((g) => (waitingSeen = Math.max(waitingSeen, g.values[0]?.value ?? 0)));
    }, 20);
    const newcomer = handshake(gw.url, stations[20]!.name, PASSWORD, {
      "x-forwarded-for": "198.18.40.2",
    });
    const beat = performance.now();
    await connected.call("Heartbeat", {});
    const heartbeatMs = performance.now() - beat;
    const answers = await Promise.all(flood);
    const mine = await newcomer;
    clearInterval(watching);
    expect(waitingSeen).toBeGreaterThanOrEqual(10);
    expect((await metrics().ocppHandshakesWaiting.get()).values[0]?.value).toBe(0);

    const accepted = answers.filter((a) => a.status === 101);
    const refused = answers.filter((a) => a.status !== 101);
    // One of the flood goes at once and 13 wait their turn; the rest are refused as they come, with
    // the wait. A turn passes every 100 ms, so a flood still arriving after that (a busy machine)
    // finds one more place in the line per turn: the last refusal tells when the last one arrived.
    expect(refused.length).toBeGreaterThanOrEqual(3);
    const arrivedWithinMs = Math.max(...refused.map((r) => r.ms));
    expect(accepted.length).toBeGreaterThanOrEqual(14);
    expect(accepted.length).toBeLessThanOrEqual(14 + Math.floor(arrivedWithinMs / 100));
    expect(refused.map((a) => a.status)).toEqual(Array(refused.length).fill(503));
    for (const r of refused) {
      expect(Number(r.retryAfter)).toBeGreaterThanOrEqual(1);
      expect(r.ms).toBeLessThan(1_000);
    }
    expect(await refusedForPace()).toBe(refusedBefore + refused.length);
    // 15 at 10 a second, one at the start: the last no sooner than 1.4 s (without the pace,
    // all within a few tens of milliseconds)
    const slowest = Math.max(...accepted.map((a) => a.ms), mine.ms);
    expect(slowest).toBeGreaterThanOrEqual(1_200);
    // round-robin by address: the newcomer waits about one of the flood's turns, not all 13
    expect(mine.status).toBe(101);
    expect(mine.ms).toBeLessThan(slowest / 2);
    // the pace holds new connections, not the sockets already open
    expect(heartbeatMs).toBeLessThan(500);

    // once the line has drained, a refused charger that tries again gets in
    const again = await handshake(gw.url, stations[19]!.name, PASSWORD, {
      "x-forwarded-for": "198.18.40.1",
    });
    expect(again.status).toBe(101);
    await connected.close({ force: true });
  });
});

describe("a pace refusal in the handshake histogram", () => {
  it("is timed from the upgrade's arrival: its wait in the line", async () => {
    const pace = createHandshakePace({ perSecond: 1, maxWaitMs: 600 });
    const server = http.createServer();
    server.on("upgrade", (req, socket) =>
      pace.admit(req, socket, () => socket.end("HTTP/1.1 101 Switching Protocols\r\n\r\n")),
    );
    server.listen(0, "127.0.0.1");
    await once(server, "listening");
    const { port } = server.address() as net.AddressInfo;
    const upgrade = async () => {
      const socket = net.connect(port, "127.0.0.1");
      await once(socket, "connect");
      socket.write(
        `GET /ocpp/x HTTP/1.1\r\nHost: x\r\nConnection: Upgrade\r\nUpgrade: websocket\r\n\r\n`,
      );
      let answer = "";
      socket.on("data", (chunk: Buffer) => (answer += chunk.toString()));
      socket.on("error", () => undefined);
      await once(socket, "close");
      return answer;
    };
    const refusals = async () => {
      const values = (await metrics().ocppHandshakeDuration.get()).values.filter(
        (v) => v.labels.outcome === "refused",
      );
      const of = (name: string) =>
        values.filter((v) => v.metricName === name).reduce((sum, v) => sum + v.value, 0);
      return {
        count: of("chargecloud_ocpp_handshake_duration_seconds_count"),
        sum: of("chargecloud_ocpp_handshake_duration_seconds_sum"),
      };
    };
    expect(await upgrade()).toMatch(/^HTTP\/1\.1 101/);
    const before = await refusals();
    // the next turn is a second away: this one waits its 600 ms in the line, then is refused
    expect(await upgrade()).toMatch(/^HTTP\/1\.1 503/);
    const after = await refusals();
    expect(after.count - before.count).toBe(1);
    expect(after.sum - before.sum).toBeGreaterThanOrEqual(0.55);
    pace.close();
    server.close();
  });
});

describe("the pace's line when the gateway stops", () => {
  it("closes every waiting upgrade's socket at once, and takes no more", async () => {
    const pace = createHandshakePace({ perSecond: 1 });
    const upgraded: string[] = [];
    const server = http.createServer();
    server.on("upgrade", (req, socket) =>
      pace.admit(req, socket, () => {
        upgraded.push(req.url ?? "");
        socket.end("HTTP/1.1 101 Switching Protocols\r\n\r\n");
      }),
    );
    server.listen(0, "127.0.0.1");
    await once(server, "listening");
    const { port } = server.address() as net.AddressInfo;
    const upgrade = async (path: string) => {
      const socket = net.connect(port, "127.0.0.1");
      await once(socket, "connect");
      socket.write(
        `GET ${path} HTTP/1.1\r\nHost: x\r\nConnection: Upgrade\r\nUpgrade: websocket\r\n\r\n`,
      );
      let answer = "";
      socket.on("data", (chunk: Buffer) => (answer += chunk.toString()));
      socket.on("error", () => undefined);
      return { closed: once(socket, "close").then(() => answer) };
    };
    const first = await upgrade("/ocpp/a");
    await first.closed;
    const waiting = [await upgrade("/ocpp/b"), await upgrade("/ocpp/c")];
    await new Promise((r) => setTimeout(r, 100));
    expect(pace.stats().waiting).toBe(2);
    const stopped = performance.now();
    pace.close();
    // closed without an answer (a 30 s line would otherwise hold them, and the process with them)
    expect(await Promise.all(waiting.map((w) => w.closed))).toEqual(["", ""]);
    expect(performance.now() - stopped).toBeLessThan(1_000);
    const late = await upgrade("/ocpp/d");
    expect(await late.closed).toBe("");
    expect(upgraded).toEqual(["/ocpp/a"]);
    server.close();
  });
});
