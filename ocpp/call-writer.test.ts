import { describe, expect, it } from "vitest";
import { db } from "../server/db";
import { aStation, aTenantWithKey } from "../testing/builders";
import type { CallMessage } from "../server/charger-reports/call-batch";
import { createCallWriter } from "./call-writer";

/**
 * The real client, with each transaction it opens counted and held open until released: so a test
 * sees how many batches the writer starts, and when.
 */
function countingDb() {
  const started: (() => void)[] = [];
  const real = db();
  const counted = new Proxy(real, {
    get(target, property, receiver) {
      if (property !== "$transaction") return Reflect.get(target, property, receiver) as unknown;
      return async (fn: (tx: unknown) => Promise<unknown>, options: unknown) => {
        await new Promise<void>((resolve) => started.push(resolve));
        return (target.$transaction as (f: typeof fn, o: unknown) => Promise<unknown>)(fn, options);
      };
    },
  });
  return { db: counted, started };
}

/** A MeterValues of a station, as the gateway submits it (on a connection the station no longer has). */
const meter = (stationId: number, tenantId: number, messageId: string): CallMessage => ({
  kind: "meter",
  charger: { stationId, tenantId, protocol: "ocpp1.6" },
  messageId,
  action: "MeterValues",
  transaction: { inProgressOn: { connectorNumber: 1 } },
  meterValues: [],
  generation: -1,
});

const tick = () => new Promise((resolve) => setTimeout(resolve, 20));

describe("createCallWriter", () => {
  it("writes at once when idle, and what arrives meanwhile in one next batch, not a batch each", async () => {
    const t = await aTenantWithKey();
    const stations = [];
    for (let i = 0; i < 4; i++) stations.push(await aStation(t.tenantId, t.key));
    const { db: counted, started } = countingDb();
    const writer = createCallWriter({ db: counted, concurrency: 2, overlapAt: 50 });

    const first = writer.submit(meter(stations[0]!.id, t.tenantId, "m0"));
    await tick();
    expect(started).toHaveLength(1); // a quiet writer starts at once
    const rest = stations
      .slice(1)
      .map((s, i) => writer.submit(meter(s.id, t.tenantId, `m${i + 1}`)));
    await tick();
    // Three messages wait for the batch in flight; a second batch alongside would have taken one.
    expect(started).toHaveLength(1);
    started[0]!();
    await first;
    await tick();
    expect(started).toHaveLength(2);
    started[1]!();
    // each is answered (here: to be recorded alone, their connection being no longer current)
    expect(await Promise.all(rest)).toEqual([
      { perMessage: true },
      { perMessage: true },
      { perMessage: true },
    ]);
    expect(started).toHaveLength(2);
  });

  it("starts a batch alongside the one in flight for a backlog", async () => {
    const t = await aTenantWithKey();
    const stations = [];
    for (let i = 0; i < 4; i++) stations.push(await aStation(t.tenantId, t.key));
    const { db: counted, started } = countingDb();
    const writer = createCallWriter({ db: counted, concurrency: 2, overlapAt: 3 });
    const all = [writer.submit(meter(stations[0]!.id, t.tenantId, "m0"))];
    await tick();
    for (const [i, s] of stations.slice(1).entries())
      all.push(writer.submit(meter(s.id, t.tenantId, `m${i + 1}`)));
    await tick();
    expect(started).toHaveLength(2); // three waiting: the backlog opens the second slot
    let settled = false;
    const done = Promise.all(all).finally(() => (settled = true));
    while (!settled) {
      started.forEach((release) => release()); // and any batch started after these
      await tick();
    }
    expect(await done).toHaveLength(4);
  });
});
