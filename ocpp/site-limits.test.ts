import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RPCClient } from "ocpp-rpc";
import { db } from "../server/db";
import { recomputeJob } from "../server/site-limits/site-limit-jobs";
import { call, idem } from "../testing/api";
import { aLocation, aStation, aTenantWithKey, anotherKey } from "../testing/builders";
import { aConnectedCharger, startTestGateway, waitUntil, type TestGateway } from "../testing/ocpp";

const V = 230;
const LIMIT = 100_000;
const MAX = 22_080;

type Protocol = "ocpp1.6" | "ocpp2.0.1";

/** What a charger's SetChargingProfile says: the limit in W (A × phases × 230) and its transaction. */
function profileOf(protocol: Protocol, params: Record<string, any>) {
  const profile = protocol === "ocpp1.6" ? params.csChargingProfiles : params.chargingProfile;
  const schedule = protocol === "ocpp1.6" ? profile.chargingSchedule : profile.chargingSchedule[0];
  const period = schedule.chargingSchedulePeriod[0];
  expect(schedule.chargingRateUnit).toBe("A");
  expect(profile.chargingProfilePurpose).toBe("TxProfile");
  return {
    id: profile.id ?? profile.chargingProfileId,
    amps: period.limit as number,
    phases: (period.numberPhases ?? 3) as number,
    w: period.limit * (period.numberPhases ?? 3) * V,
    transaction: String(profile.transactionId),
  };
}

/**
 * A site: a tenant, a location and `n` one-connector stations there, each with a strict ocpp-rpc
 * charger (1.6 and 2.0.1 alternating). Each charger tracks the limit it accepted for its running
 * transaction, as it received it; every acceptance checks that the accepted limits (and the
 * maximum of a charger that rejected its profile) sum to at most the limit.
 */
async function aSite(gw: { url: string }, n: number, rejecters: number[] = []) {
  const t = await aTenantWithKey();
  const operator = await anotherKey(t.tenantId, ["stations:read", "stations:control"]);
  const location = await aLocation(t.tenantId, t.key);
  const base = `/v1/tenants/${t.tenantId}/locations/${location.id}/power-limit`;
  let worstSum = 0;
  const sets: { at: number; charger: number; w: number; amps: number; phases: number }[] = [];
  const chargers = await Promise.all(
    Array.from({ length: n }, async (_, i) => {
      const protocol: Protocol = i % 2 === 0 ? "ocpp1.6" : "ocpp2.0.1";
      const station = await aStation(t.tenantId, t.key, {
        location_id: location.id,
        connector_count: 1,
      });
      const password = `site-limit-pass-${String(i).padStart(4, "0")}`;
      await call("PUT", `/v1/tenants/${t.tenantId}/stations/${station.id}/credentials`, {
        key: t.key,
        body: { password },
        idempotencyKey: idem(),
      });
      const c = {
        i,
        protocol,
        station,
        password,
        client: null as unknown as RPCClient,
        rejects: rejecters.includes(i),
        transaction: null as string | null,
        /** the API's transaction ID */
        transactionId: null as number | null,
        accepted: 0,
        rejected: false,
        seq: 0,
        clears: [] as Record<string, unknown>[],
      };
      return c;
    }),
  );
  const sum = () =>
    chargers.reduce((s, c) => s + (c.transaction === null ? 0 : c.rejected ? MAX : c.accepted), 0);
  const connect = async (c: (typeof chargers)[number], url = gw.url) => {
    c.client = await aConnectedCharger({ url }, c.station, c.password, c.protocol, (client) => {
      client.handle("SetChargingProfile", ({ params }) => {
        const p = profileOf(c.protocol, params as Record<string, any>);
        sets.push({ at: performance.now(), charger: c.i, w: p.w, amps: p.amps, phases: p.phases });
        if (c.rejects) {
          if (p.transaction === c.transaction) c.rejected = true;
          return Promise.resolve({ status: "Rejected" });
        }
        if (p.transaction === c.transaction) c.accepted = p.w;
        worstSum = Math.max(worstSum, sum());
        return Promise.resolve({ status: "Accepted" });
      });
      client.handle("ClearChargingProfile", ({ params }) => {
        c.clears.push(params as Record<string, unknown>);
        return Promise.resolve({ status: "Accepted" });
      });
    });
    await waitUntil(
      async () =>
        (await db().station.findUniqueOrThrow({ where: { id: c.station.id } })).gatewayId !== null,
    );
  };
  for (const c of chargers) await connect(c);

  const start = async (c: (typeof chargers)[number]) => {
    if (c.protocol === "ocpp1.6") {
      // the charger holds the transaction (and would apply a profile for it) from here on
      const answer = (await c.client.call("StartTransaction", {
        connectorId: 1,
        idTag: `TAG-${c.i}`,
        meterStart: 0,
        timestamp: new Date().toISOString(),
      })) as { transactionId: number };
      c.transaction = String(answer.transactionId);
    } else {
      c.transaction = `site-tx-${c.i}-${Date.now()}`;
      c.seq = 0;
      await c.client.call("TransactionEvent", {
        eventType: "Started",
        timestamp: new Date().toISOString(),
        triggerReason: "Authorized",
        seqNo: c.seq++,
        transactionInfo: { transactionId: c.transaction },
        evse: { id: 1, connectorId: 1 },
        idToken: { idToken: `TAG-${c.i}`, type: "Central" },
      });
    }
    const row = await db().transaction.findFirstOrThrow({
      where: { stationId: c.station.id, reference: c.transaction },
    });
    c.transactionId = row.id;
  };
  const stop = async (c: (typeof chargers)[number]) => {
    const transaction = c.transaction!;
    // the charger drops its TxProfile with the transaction
    c.transaction = null;
    c.accepted = 0;
    c.rejected = false;
    if (c.protocol === "ocpp1.6")
      await c.client.call("StopTransaction", {
        transactionId: Number(transaction),
        meterStop: 1000,
        timestamp: new Date().toISOString(),
        reason: "Local",
      });
    else
      await c.client.call("TransactionEvent", {
        eventType: "Ended",
        timestamp: new Date().toISOString(),
        triggerReason: "StopAuthorized",
        seqNo: c.seq++,
        transactionInfo: { transactionId: transaction, stoppedReason: "Local" },
      });
  };
  const state = async () => (await call("GET", base, { key: operator })).body;
  /**
   * Waits until the service has nothing left to send (no recomputation queued or running, no
   * profile unanswered) and the chargers have heard nothing new for 300 ms; answers how long after
   * `since` the last SetChargingProfile arrived.
   */
  const settled = async (since: number) => {
    await waitUntil(async () => {
      const jobs = await db().job.count({
        where: { name: "site_limits.recompute", status: { in: ["queued", "running"] } },
      });
      const pending = await db().chargingProfile.count({
        where: { tenantId: t.tenantId, state: "pending" },
      });
      const last = sets.at(-1)?.at ?? 0;
      return jobs === 0 && pending === 0 && performance.now() - last > 300;
    }, 15_000);
    const after = sets.filter((s) => s.at >= since);
    return after.length ? after.at(-1)!.at - since : 0;
  };
  return {
    ...t,
    operator,
    location,
    base,
    chargers,
    connect,
    start,
    stop,
    state,
    settled,
    sets,
    sum,
    worst: () => worstSum,
  };
}

/** An equal share of `w` as the service sends it: A per phase rounded down to 0.1, in W. */
const share = (w: number, phases = 3) =>
  (Math.floor((w * 10) / (V * phases) + 1e-9) / 10) * V * phases;

describe("site power limits with strict OCPP 1.6 and 2.0.1 chargers", () => {
  let gw: TestGateway;
  beforeAll(async () => {
    gw = await startTestGateway({ jobs: [recomputeJob] });
  });
  afterAll(async () => {
    await gw?.close();
  });

  it("divides 100 kW among ten chargers as sessions start and stop: within a second, never above the limit, a rejecting charger held back", async () => {
    const site = await aSite(gw, 10, [0]);
    try {
      const put = await call("PUT", site.base, {
        key: site.operator,
        idempotencyKey: idem(),
        body: { max_power_w: LIMIT, connector_defaults: { max_power_w: MAX, phases: 3 } },
      });
      expect(put.status).toBe(200);
      expect(put.body).toMatchObject({
        location_id: site.location.id,
        max_power_w: LIMIT,
        station_ids: null,
        voltage_v: 230,
        connector_defaults: { min_power_w: 0, max_power_w: MAX, phases: 3 },
        allocations: [],
      });

      const latencies: number[] = [];
      // the rejecting charger first: its maximum is held back from everyone after it
      const [rejecter, ...others] = site.chargers;
      let t0 = performance.now();
      await site.start(rejecter!);
      latencies.push(await site.settled(t0));
      let s = await site.state();
      expect(s.allocations).toHaveLength(1);
      expect(s.allocations[0]).toMatchObject({
        station_id: rejecter!.station.id,
        transaction_id: rejecter!.transactionId,
        profile_state: "rejected",
        held_back_w: MAX,
        max_power_w: MAX,
      });
      expect(rejecter!.rejected).toBe(true);

      for (const c of others) {
        t0 = performance.now();
        await site.start(c);
        latencies.push(await site.settled(t0));
        expect(site.sum()).toBeLessThanOrEqual(LIMIT);
      }
      // nine sessions share what the rejecting charger's maximum leaves: 77,920 / 9 each
      const each = share((LIMIT - MAX) / 9);
      for (const c of others) expect(c.accepted).toBeCloseTo(each, 6);
      s = await site.state();
      expect(s.allocations).toHaveLength(10);
      expect(s.allocated_w).toBeLessThanOrEqual(LIMIT);
      const byStation = new Map(s.allocations.map((a: any) => [a.station_id, a]));
      for (const c of others)
        expect(byStation.get(c.station.id)).toMatchObject({
          transaction_id: c.transactionId,
          profile_state: "installed",
          allocated_w: Math.floor(each),
          allocated_current_a: Math.floor((each * 10) / (V * 3) + 1e-9) / 10,
          phases: 3,
          held_back_w: 0,
          station_name: c.station.name,
        });

      // three sessions stop: the other six go up
      for (const c of others.slice(0, 3)) {
        t0 = performance.now();
        await site.stop(c);
        latencies.push(await site.settled(t0));
      }
      const after = share(Math.min(MAX, (LIMIT - MAX) / 6));
      for (const c of others.slice(3)) expect(c.accepted).toBeCloseTo(after, 6);
      expect((await site.state()).allocations).toHaveLength(7);

      // every change reached the chargers within a second; the sum never went above the limit
      expect(Math.max(...latencies)).toBeLessThan(1000);
      expect(site.worst()).toBeLessThanOrEqual(LIMIT);
      expect(site.worst()).toBeGreaterThan(LIMIT - MAX - 100);

      // both protocols, exactly as the schemas require (strict on both sides), with the phases
      const v16 = site.sets.find((x) => x.charger === 2)!;
      const v2 = site.sets.find((x) => x.charger === 1)!;
      expect(v16.phases).toBe(3);
      expect(v2.phases).toBe(3);

      // each change is an event carrying the shares as GET shows them
      const events = await db().event.findMany({
        where: { tenantId: site.tenantId, type: "location.power_allocation_changed" },
        orderBy: { sequence: "asc" },
      });
      expect(events.length).toBeGreaterThanOrEqual(13);
      const last = events.at(-1)!.data as any;
      expect(last).toMatchObject({ location_id: site.location.id, max_power_w: LIMIT });
      const shares = (list: any[]) =>
        list.map((a) => [a.connector_id, a.transaction_id, a.allocated_w, a.held_back_w]);
      expect(shares(last.allocations)).toEqual(shares((await site.state()).allocations));

      // removing the limit clears the site-limit profiles from the chargers
      const removed = await call("DELETE", site.base, {
        key: site.operator,
        idempotencyKey: idem(),
      });
      expect(removed.status).toBe(202);
      expect(removed.body.operations).toHaveLength(7);
      await waitUntil(() => others.slice(3).every((c) => c.clears.length === 1));
      const clear16 = others.find((c) => c.i === 4)!.clears[0];
      expect(clear16).toEqual({ id: 1_000_001 });
      const clear2 = others.find((c) => c.i === 5)!.clears[0];
      expect(clear2).toEqual({ chargingProfileId: 1_000_001 });
      expect((await call("GET", site.base, { key: site.operator })).status).toBe(404);
    } finally {
      await Promise.all(site.chargers.map((c) => c.client.close({ force: true })));
    }
  });

  it("sends a 1-phase connector its current on one phase, per its override", async () => {
    const site = await aSite(gw, 2);
    try {
      const [one, three] = site.chargers;
      const connector = (
        await call("GET", `/v1/tenants/${site.tenantId}/stations/${one!.station.id}`, {
          key: site.key,
        })
      ).body.connectors[0].id as number;
      const put = await call("PUT", site.base, {
        key: site.operator,
        idempotencyKey: idem(),
        body: {
          max_power_w: 10_000,
          connector_overrides: [{ connector_id: connector, phases: 1, max_power_w: 7_360 }],
        },
      });
      expect(put.status).toBe(200);
      let t0 = performance.now();
      await site.start(one!);
      await site.settled(t0);
      t0 = performance.now();
      await site.start(three!);
      await site.settled(t0);
      // 5,000 W each: 21.7 A on one phase, 7.2 A on three
      expect(site.sets.filter((x) => x.charger === 0).at(-1)).toMatchObject({
        amps: 21.7,
        phases: 1,
      });
      expect(site.sets.filter((x) => x.charger === 1).at(-1)).toMatchObject({
        amps: 7.2,
        phases: 3,
      });
    } finally {
      await Promise.all(site.chargers.map((c) => c.client.close({ force: true })));
    }
  });
});

describe("site power limits following the measured draw", () => {
  it("gives what a car does not draw to the others, and gives it back when its draw comes up", async () => {
    const gw = await startTestGateway({ jobs: [recomputeJob] });
    const site = await aSite(gw, 2);
    try {
      await call("PUT", site.base, {
        key: site.operator,
        idempotencyKey: idem(),
        body: { max_power_w: 20_000 },
      });
      const [a, b] = site.chargers;
      for (const c of [a!, b!]) {
        const t0 = performance.now();
        await site.start(c);
        await site.settled(t0);
      }
      expect(a!.accepted).toBeCloseTo(share(10_000), 6);
      expect(b!.accepted).toBeCloseTo(share(10_000), 6);
      const draw = async (w: number) => {
        const t0 = performance.now();
        await a!.client.call("MeterValues", {
          connectorId: 1,
          transactionId: Number(a!.transaction),
          meterValue: [
            {
              timestamp: new Date().toISOString(),
              sampledValue: [{ value: String(w), measurand: "Power.Active.Import", unit: "W" }],
            },
          ],
        });
        return site.settled(t0);
      };
      // a draws 3 kW: it keeps 3 kW + 1 kW headroom, b gets the rest
      expect(await draw(3_000)).toBeLessThan(1000);
      expect(a!.accepted).toBeCloseTo(share(4_000), 6);
      expect(b!.accepted).toBeCloseTo(share(16_000), 6);
      const state = await site.state();
      expect(state.live_power_w).toBe(3_000);
      expect(state.allocations.find((x: any) => x.station_id === a!.station.id).draw_w).toBe(3_000);
      // a small move is not worth a recomputation
      const before = site.sets.length;
      await draw(3_300);
      expect(site.sets.length).toBe(before);
      // its draw comes up near its share: the equal split again
      await draw(3_900 + 5_000);
      expect(a!.accepted).toBeCloseTo(share(10_000), 6);
      expect(b!.accepted).toBeCloseTo(share(10_000), 6);
      expect(site.worst()).toBeLessThanOrEqual(20_000);
    } finally {
      await Promise.all(site.chargers.map((c) => c.client.close({ force: true })));
      await gw.close();
    }
  });
});

describe("site power limits across a gateway restart", () => {
  it("keeps the shares in the database, and a session after the restart gets its profile while the others are recomputed", async () => {
    let gw = await startTestGateway({ jobs: [recomputeJob] });
    const site = await aSite(gw, 2);
    try {
      await call("PUT", site.base, {
        key: site.operator,
        idempotencyKey: idem(),
        body: { max_power_w: 20_000 },
      });
      const [a, b] = site.chargers;
      const t0 = performance.now();
      await site.start(a!);
      await site.settled(t0);
      expect(a!.accepted).toBeCloseTo(share(20_000), 6);

      // the gateway stops (the chargers lose their sockets) and a new one starts
      await Promise.all(site.chargers.map((c) => c.client.close({ force: true })));
      await gw.close();
      gw = await startTestGateway({ jobs: [recomputeJob] });
      const kept = await site.state();
      expect(kept.allocations).toHaveLength(1);
      expect(kept.allocations[0]).toMatchObject({
        transaction_id: a!.transactionId,
        allocated_w: Math.floor(share(20_000)),
        profile_state: "installed",
      });
      for (const c of site.chargers) await site.connect(c, gw.url);

      const t1 = performance.now();
      await site.start(b!);
      expect(await site.settled(t1)).toBeLessThan(1000);
      expect(a!.accepted).toBeCloseTo(share(10_000), 6);
      expect(b!.accepted).toBeCloseTo(share(10_000), 6);
      expect(site.worst()).toBeLessThanOrEqual(20_000);
      expect((await site.state()).allocations.map((x: any) => x.profile_state)).toEqual([
        "installed",
        "installed",
      ]);
    } finally {
      await Promise.all(site.chargers.map((c) => c.client.close({ force: true })));
      await gw.close();
    }
  });
});
