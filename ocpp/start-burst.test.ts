import type { RPCClient } from "ocpp-rpc";
import { afterAll, describe, expect, it, vi } from "vitest";
import { db, newDb } from "../server/db";
import { benchLocation, cheapPasswordHash, insertBenchStations } from "../bench/bench-stations";
import { aTenantWithKey } from "../testing/builders";
import { aConnectedCharger } from "../testing/ocpp";
import { aLiveGateway } from "../testing/live-gateway";
import { log } from "../server/log";
import { metrics } from "../server/metrics/registry";
import { createCallAdmission, isBusyError, type BusyReason } from "./call-admission";

/**
 * A gateway whose pool holds 2 connections: a burst of calls recorded one per transaction is far
 * more than the pool serves at once.
 */
const small = newDb(process.env.DATABASE_URL!, { max: 2 });
afterAll(() => small.$disconnect());
const gw = aLiveGateway({ db: small, callTimeoutMs: 30_000 });
/** a gateway whose line takes one call at a time and keeps none waiting */
const tight = aLiveGateway({ admission: { slots: 1, maxQueued: 0 } });

const PASSWORD = "start-burst-pass-1";
const CHARGERS = 200;

async function connected(count: number, tenantId: number, to = gw, prefix = "burst") {
  const ids = await insertBenchStations(db(), {
    tenants: [await benchLocation(db(), tenantId)],
    prefix: `${prefix}-${process.pid}-`,
    first: 1,
    count,
    passwordHash: cheapPasswordHash(PASSWORD),
  });
  const names = [...ids.keys()];
  const chargers: { name: string; stationId: number; charger: RPCClient }[] = [];
  // a few handshakes at a time, as a fleet reconnects (the handshake gate is not under test)
  for (let i = 0; i < names.length; i += 10)
    chargers.push(
      ...(await Promise.all(
        names.slice(i, i + 10).map(async (name) => ({
          name,
          stationId: ids.get(name)!,
          charger: await aConnectedCharger(to, { name }, PASSWORD, "ocpp1.6"),
        })),
      )),
    );
  return chargers;
}

describe("a burst of calls recorded one per transaction", () => {
  it(`${CHARGERS} chargers starting a transaction at once on a 2-connection pool, held up 11 s, are all answered and recorded once`, async () => {
    const { tenantId } = await aTenantWithKey();
    const chargers = await connected(CHARGERS, tenantId);
    // The database is slow for a while: the stations' rows, which every start locks first, are
    // held 11 s (longer than Prisma's pool wait of today's per-message path, 10 s, shorter than a
    // transaction's timeout, 15 s). The first starts wait on them holding the pool's connections.
    let release = () => {};
    const released = new Promise<void>((resolve) => (release = resolve));
    let locked = () => {};
    const isLocked = new Promise<void>((resolve) => (locked = resolve));
    const stationIds = chargers.map((c) => c.stationId);
    const holding = db().$transaction(
      async (tx) => {
        await tx.$queryRaw`
          SELECT 1 FROM stations WHERE id = ANY(${stationIds}::int[]) ORDER BY id FOR UPDATE`;
        locked();
        await released;
      },
      { timeout: 30_000 },
    );
    try {
      await isLocked;
      setTimeout(release, 11_000);
      // the gateway's line as /metrics shows it
      let waitingSeen = 0;
      const watching = setInterval(() => {
        void metrics()
          .ocppCallsWaiting.get()
          .then((g) => (waitingSeen = Math.max(waitingSeen, g.values[0]?.value ?? 0)));
      }, 100);
      const started = performance.now();
      const answers = await Promise.allSettled(
        chargers.map(({ charger }) =>
          charger.call(
            "StartTransaction",
            { connectorId: 1, idTag: "BURST", meterStart: 0, timestamp: new Date().toISOString() },
            // longer than the burst can take here: an answer, not the charger's timeout, decides
            { callTimeoutMs: 60_000 },
          ),
        ),
      );
      const seconds = (performance.now() - started) / 1000;
      clearInterval(watching);
      // two ran at once (the pool's size), nearly all the others waited in the line
      expect(waitingSeen).toBeGreaterThanOrEqual(CHARGERS / 2);
      expect((await metrics().ocppCallsWaiting.get()).values[0]?.value).toBe(0);
      const refused = answers.flatMap((a) => (a.status === "rejected" ? [String(a.reason)] : []));
      expect(refused).toEqual([]);
      const ids = answers.map(
        (a) => (a as PromiseFulfilledResult<{ transactionId: number }>).value,
      );
      expect(ids.every((a) => Number.isInteger(a.transactionId))).toBe(true);
      expect(new Set(ids.map((a) => a.transactionId)).size).toBe(CHARGERS);

      // each recorded once: one transaction per station, the one it was answered
      const rows = await db().transaction.findMany({
        where: { stationId: { in: chargers.map((c) => c.stationId) } },
      });
      expect(rows).toHaveLength(CHARGERS);
      for (const [i, { stationId }] of chargers.entries()) {
        const row = rows.find((r) => r.stationId === stationId)!;
        expect(row.id).toBe(ids[i]!.transactionId);
        expect(row.reference).toBe(String(row.id));
      }
      const messages = await db().chargerMessage.count({
        where: { stationId: { in: chargers.map((c) => c.stationId) }, action: "StartTransaction" },
      });
      expect(messages).toBe(CHARGERS);
      console.log(`${CHARGERS} starts on a 2-connection pool in ${seconds.toFixed(1)} s`);
    } finally {
      release();
      await holding;
      await Promise.all(chargers.map(({ charger }) => charger.close({ force: true })));
    }
  }, 120_000);
});

describe("calls answered busy", () => {
  it("are counted by reason in /metrics and logged in one line, not one per call", async () => {
    const { tenantId } = await aTenantWithKey();
    const chargers = await connected(4, tenantId, tight, "busy");
    // each connection recorded and its first call answered (a first call may ride with the connect)
    await Promise.all(chargers.map(({ charger }) => charger.call("Heartbeat", {})));
    const busy = async () =>
      (await metrics().ocppCallsBusy.get()).values
        .filter((v) => v.labels.reason === "line_full")
        .reduce((sum, v) => sum + v.value, 0);
    const before = await busy();
    const warned = vi.spyOn(log, "warn");
    // the first start holds the one turn while the stations' rows are held; the others find no room
    let release = () => {};
    const released = new Promise<void>((resolve) => (release = resolve));
    let locked = () => {};
    const isLocked = new Promise<void>((resolve) => (locked = resolve));
    const holding = db().$transaction(async (tx) => {
      const ids = chargers.map((c) => c.stationId);
      await tx.$queryRaw`SELECT 1 FROM stations WHERE id = ANY(${ids}::int[]) ORDER BY id FOR UPDATE`;
      locked();
      await released;
    });
    try {
      await isLocked;
      const start = (charger: RPCClient) =>
        charger.call("StartTransaction", {
          connectorId: 1,
          idTag: "BUSY",
          meterStart: 0,
          timestamp: new Date().toISOString(),
        });
      const first = start(chargers[0]!.charger);
      first.catch(() => undefined); // awaited below
      await new Promise((r) => setTimeout(r, 300));
      const others = await Promise.allSettled(chargers.slice(1).map((c) => start(c.charger)));
      expect(others.map((o) => o.status)).toEqual(["rejected", "rejected", "rejected"]);
      for (const o of others)
        expect((o as PromiseRejectedResult).reason).toMatchObject({
          rpcErrorCode: "InternalError",
        });
      release();
      expect(await first).toHaveProperty("transactionId");
      expect((await busy()) - before).toBe(3);
      const lines = warned.mock.calls.map(([message]) => message);
      expect(lines.filter((m) => m.startsWith("charger calls answered busy"))).toHaveLength(1);
      expect(lines.filter((m) => m === "charger call refused")).toEqual([]);
    } finally {
      warned.mockRestore();
      release();
      await holding;
      await Promise.all(chargers.map(({ charger }) => charger.close({ force: true })));
    }
  });
});

describe("createCallAdmission", () => {
  it("runs at most `slots` at once, first come first served", async () => {
    const admission = createCallAdmission({ slots: 2 });
    const order: number[] = [];
    let running = 0;
    let most = 0;
    await Promise.all(
      Array.from({ length: 10 }, async (_, i) => {
        const done = await admission.enter();
        order.push(i);
        most = Math.max(most, ++running);
        await new Promise((resolve) => setTimeout(resolve, 5));
        running--;
        done();
      }),
    );
    expect(most).toBe(2);
    expect(order).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
    expect(admission.stats()).toEqual({ running: 0, waiting: 0, refused: 0, expired: 0 });
  });

  it("answers busy past the line's length at once, and after the longest wait when its turn comes, telling why", async () => {
    const told: BusyReason[] = [];
    const admission = createCallAdmission({
      slots: 1,
      maxQueued: 2,
      maxWaitMs: 50,
      onBusy: (reason) => told.push(reason),
    });
    const first = await admission.enter();
    const waiting = [admission.enter(), admission.enter()];
    const full = await admission.enter().catch((error: unknown) => error);
    expect(full).toMatchObject({ rpcErrorCode: "InternalError" });
    expect(isBusyError(full)).toBe(true);
    await new Promise((resolve) => setTimeout(resolve, 80));
    first();
    for (const w of waiting) {
      const late = await w.catch((error: unknown) => error);
      expect(late).toMatchObject({ rpcErrorCode: "InternalError" });
      expect(isBusyError(late)).toBe(true);
    }
    expect(admission.stats()).toEqual({ running: 0, waiting: 0, refused: 1, expired: 2 });
    expect(told).toEqual(["line_full", "waited_too_long", "waited_too_long"]);
    expect(isBusyError(new Error("another failure"))).toBe(false);
    // the line works on
    (await admission.enter())();
  });
});
