import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { db } from "../db";
import { aStation } from "../../testing/builders";
import { spawnRunner } from "../../testing/jobs";
import { waitUntil } from "../../testing/ocpp";
import { startStripeFake, type StripeFake } from "../../testing/stripe-fake";
import {
  aBillingTeam,
  aMethodOnFile,
  billingPath,
  customerOf,
  teamBillingEnv,
  teamBillingOverFake,
} from "../../testing/team-billing";
import { call } from "../../testing/api";
import { runJobNow } from "../jobs/run-now";
import { callJobId, followCalls, teamBillingCallJob } from "./billing-calls";
import { useTeamBilling } from "./stripe-billing";
import { monthOf, recordAllUsage, recordUsage } from "./usage";

// Usage records reported to Stripe's meter by a real runner process (the ocpp process's job
// runner serves the same definition), its SDK against the Stripe fake; SIGKILLed after Stripe
// took the meter event and before the outcome reached the database. A new runner takes over.
let fake: StripeFake;
const children: Awaited<ReturnType<typeof spawnRunner>>[] = [];
beforeAll(async () => {
  fake = await startStripeFake();
  useTeamBilling(teamBillingOverFake(fake));
});
afterAll(async () => {
  await Promise.all(children.map((c) => c.kill("SIGKILL")));
  useTeamBilling(null);
  await fake.close();
});

const aRunnerProcess = async () => {
  const child = await spawnRunner("teamBilling", teamBillingEnv(fake));
  children.push(child);
  return child;
};

/** `n` stations of the project, each with a charging session started now. */
async function chargersActive(tenantId: number, key: string, n: number, energyWh = 5_000) {
  for (let i = 0; i < n; i++) {
    const station = await aStation(tenantId, key);
    await db().transaction.create({
      data: {
        tenantId,
        stationId: station.id,
        reference: `tx-${station.id}`,
        startedAt: new Date(),
        energyWh,
      },
    });
  }
}

describe("monthly usage reported to Stripe's meter", () => {
  it("reads usage from the service's records and sends each usage record once, even when the sender dies after Stripe took it", async () => {
    const t = await aBillingTeam();
    await aMethodOnFile(fake, t.teamId, t.owner.token); // a customer and a subscription
    await chargersActive(t.tenantId, t.key, 7);
    const month = monthOf(new Date());

    const usage = await call("GET", billingPath(t.teamId, "/usage"), { key: t.owner.token });
    expect(usage.body.data[0]).toMatchObject({
      month: month.toISOString().slice(0, 7),
      active_chargers: 7,
      charging_sessions: 7,
      energy_wh: 35_000,
      energy_kwh: "35.000",
      api_requests: expect.any(Number), // the project key's requests (api-requests.test.ts)
      billable_active_chargers: 2,
      reported_active_chargers: 0,
      estimated_minor: 1600,
    });

    // The usage job records the month and journals one meter event for the 2 billable chargers
    // (no fast path: the runner process makes the call).
    const journaled = await recordUsage(db(), t.teamId, month, new Date());
    expect(journaled).toMatchObject({ kind: "meter_event", value: 2, status: "pending" });
    const doomed = await aRunnerProcess();
    fake.injectFault("POST", "/v1/billing/meter_events", { kind: "stall_after_apply" });
    await waitUntil(() => fake.billing.meterEvents.length === 1, 15_000);
    const jobId = callJobId(journaled!.id);
    expect(await db().job.findUniqueOrThrow({ where: { id: jobId } })).toMatchObject({
      status: "running",
      attempt: 1,
      lockedBy: doomed.runnerId,
    });
    await doomed.kill("SIGKILL");
    expect(
      (await db().teamBillingCall.findUniqueOrThrow({ where: { id: journaled!.id } })).status,
    ).toBe("pending");
    // its lease lapses (moved into the past here rather than waited out)
    await db().job.update({
      where: { id: jobId },
      data: { leaseUntil: new Date(Date.now() - 1_000), runAt: new Date(Date.now() - 1_000) },
    });
    const survivor = await aRunnerProcess();
    await waitUntil(
      async () =>
        (await db().job.findUniqueOrThrow({ where: { id: jobId } })).status === "succeeded",
      20_000,
    );
    expect((await db().job.findUniqueOrThrow({ where: { id: jobId } })).attempt).toBe(2);
    expect(
      (await db().teamBillingCall.findUniqueOrThrow({ where: { id: journaled!.id } })).status,
    ).toBe("succeeded");
    // Stripe was asked twice with one key, and counted one event
    const sends = fake.requests.filter((r) => r.path === "/v1/billing/meter_events");
    expect(sends).toHaveLength(2);
    expect(new Set(sends.map((r) => r.idempotencyKey))).toEqual(new Set([journaled!.id]));
    expect(sends[1]!.replayed).toBe(true);
    const customer = await customerOf(t.teamId);
    expect(fake.billing.meterEvents).toEqual([
      expect.objectContaining({
        event_name: "active_chargers",
        identifier: journaled!.id,
        payload: { stripe_customer_id: customer, value: "2" },
      }),
    ]);

    // Recorded again with nothing new: nothing more is journaled
    expect(await recordUsage(db(), t.teamId, month, new Date())).toBeNull();
    // One more active charger: one more usage record, for the difference only
    await chargersActive(t.tenantId, t.key, 1);
    const more = await recordUsage(db(), t.teamId, month, new Date());
    expect(more).toMatchObject({ kind: "meter_event", value: 1 });
    await waitUntil(
      async () =>
        (await db().teamBillingCall.findUniqueOrThrow({ where: { id: more!.id } })).status ===
        "succeeded",
      20_000,
    );
    await survivor.kill("SIGTERM");
    expect(fake.billing.meterEvents.map((e) => Number(e.payload.value))).toEqual([2, 1]);
    const stored = await db().teamUsage.findUniqueOrThrow({
      where: { teamId_month: { teamId: t.teamId, month } },
    });
    expect(stored).toMatchObject({ activeChargers: 8, billableReported: 3 });
    const read = await call("GET", billingPath(t.teamId, "/usage"), { key: t.owner.token });
    expect(read.body.data[0]).toMatchObject({ active_chargers: 8, reported_active_chargers: 3 });
  }, 90_000);

  it("the usage job measures a team that charged but has no method on file, and reports nothing for it", async () => {
    const t = await aBillingTeam(); // no billing profile yet
    await chargersActive(t.tenantId, t.key, 6);
    const before = await db().teamBillingCall.count();
    await recordAllUsage(db(), new Date());
    expect(await db().teamBillingCall.count()).toBe(before);
    expect(
      await db().teamUsage.findUniqueOrThrow({
        where: { teamId_month: { teamId: t.teamId, month: monthOf(new Date()) } },
      }),
    ).toMatchObject({ activeChargers: 6, billableReported: 0 });
  });

  it("a call whose job ended unanswered is asked again with the same key, for 23 hours", async () => {
    const t = await aBillingTeam();
    await aMethodOnFile(fake, t.teamId, t.owner.token);
    await chargersActive(t.tenantId, t.key, 6);
    const call1 = (await recordUsage(db(), t.teamId, monthOf(new Date()), new Date()))!;
    // Stripe answered 500 (stored for the key) on every try: the job's tries ran out
    fake.injectFault("POST", "/v1/billing/meter_events", { kind: "error500" });
    await runJobNow({ db: db(), definitions: [teamBillingCallJob], jobId: call1.jobId });
    await db().job.update({ where: { id: call1.jobId }, data: { status: "failed" } });
    await db().teamBillingCall.update({ where: { id: call1.id }, data: { status: "unknown" } });
    // an older one is left for a person
    const old = await db().teamBillingCall.create({
      data: {
        id: "tbc_old",
        teamId: t.teamId,
        kind: "meter_event",
        status: "unknown",
        request: { value: 1, timestamp: new Date().toISOString() },
        jobId: "team-billing.call:gone",
        createdAt: new Date(Date.now() - 24 * 3_600_000),
      },
    });
    expect(await followCalls(db(), new Date())).toBe(1);
    const followed = await db().teamBillingCall.findUniqueOrThrow({ where: { id: call1.id } });
    expect(followed.jobId).not.toBe(call1.jobId);
    expect((await db().teamBillingCall.findUniqueOrThrow({ where: { id: old.id } })).status).toBe(
      "unknown",
    );
    // Stripe replays its stored 500 for the key until it lapses; here the fake forgets it
    fake.forgetKey(call1.id);
    await runJobNow({ db: db(), definitions: [teamBillingCallJob], jobId: followed.jobId });
    expect((await db().teamBillingCall.findUniqueOrThrow({ where: { id: call1.id } })).status).toBe(
      "succeeded",
    );
    const sends = fake.requests.filter(
      (r) => r.path === "/v1/billing/meter_events" && r.idempotencyKey === call1.id,
    );
    expect(sends.map((r) => r.status)).toEqual([500, 200]);
  });
});
