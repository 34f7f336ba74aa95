import type { RPCClient } from "ocpp-rpc";
import { afterAll, describe, expect, it } from "vitest";
import { db, newDb } from "../server/db";
import { benchLocation, cheapPasswordHash, insertBenchStations } from "../bench/bench-stations";
import { aTenantWithKey } from "../testing/builders";
import { aConnectedCharger } from "../testing/ocpp";
import { aLiveGateway } from "../testing/live-gateway";
import { createCallAdmission } from "./call-admission";

/**
 * A gateway whose pool holds 2 connections: a burst of calls recorded one per transaction is far
 * more than the pool serves at once.
 */
const small = newDb(process.env.DATABASE_URL!, { max: 2 });
afterAll(() => small.$disconnect());
const gw = aLiveGateway({ db: small, callTimeoutMs: 30_000 });

const PASSWORD = "start-burst-pass-1";
const CHARGERS = 200;

async function connected(count: number, tenantId: number) {
  const ids = await insertBenchStations(db(), {
    tenants: [await benchLocation(db(), tenantId)],
    prefix: `burst-${process.pid}-`,
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
          charger: await aConnectedCharger(gw, { name }, PASSWORD, "ocpp1.6"),
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

  it("answers busy past the line's length at once, and after the longest wait when its turn comes", async () => {
    const admission = createCallAdmission({ slots: 1, maxQueued: 2, maxWaitMs: 50 });
    const first = await admission.enter();
    const waiting = [admission.enter(), admission.enter()];
    await expect(admission.enter()).rejects.toMatchObject({ rpcErrorCode: "InternalError" });
    await new Promise((resolve) => setTimeout(resolve, 80));
    first();
    for (const w of waiting)
      await expect(w).rejects.toMatchObject({ rpcErrorCode: "InternalError" });
    expect(admission.stats()).toEqual({ running: 0, waiting: 0, refused: 1, expired: 2 });
    // the line works on
    (await admission.enter())();
  });
});
