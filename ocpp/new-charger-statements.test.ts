import { describe, expect, it } from "vitest";
import { db } from "../server/db";
import { newId } from "../server/lib/ids";
import { aStationWithPassword, aTenantWithKey } from "../testing/builders";
import { waitUntil } from "../testing/ocpp";
import { aLiveGateway } from "../testing/live-gateway";
import { logStatements } from "../testing/statement-log";
import { connectsInLine } from "../testing/connects-in-line";

const { sent, transactionsWith } = logStatements();

const gw = aLiveGateway();
const PASSWORD = "new-charger-stmts-1";
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** The connect of `station` with its BootNotification riding along (ocpp/new-charger-boot.test.ts). */
async function connectAndBootRiding(
  t: { tenantId: number; key: string },
  station: { id: number; name: string },
) {
  const { ahead, chargers, answers } = await connectsInLine(gw, {
    tenant: t,
    password: PASSWORD,
    waiting: [{ station, protocol: "ocpp1.6" }],
    firstCalls: ([charger]) =>
      charger!.call("BootNotification", {
        chargePointVendor: "Few",
        chargePointModel: "Statements",
      }) as Promise<{ status: string }>,
  });
  expect(answers.status).toBe("Accepted");
  return { charger: chargers[0]!, others: ahead.chargers };
}

/** The transactions that recorded a connect with a boot riding along. */
function connectTransaction() {
  return transactionsWith(/^WITH c AS \( SELECT \* FROM unnest/).filter((tx) =>
    tx.some((s) => /^WITH booted AS/.test(s)),
  );
}

describe("a new charger's connect and boot, statement by statement (issue 29, point 5)", () => {
  it("one transaction of seven statements: no arming a station without a list or profiles needs, no second lock", async () => {
    sent.clear();
    const t = await aTenantWithKey();
    const station = await aStationWithPassword(t, PASSWORD);
    const { charger, others } = await connectAndBootRiding(t, station);
    const row = await db().station.findUniqueOrThrow({ where: { id: station.id } });
    expect(row).toMatchObject({ bootVendor: "Few", bootModel: "Statements" });
    const [tx, ...more] = connectTransaction();
    expect(more).toEqual([]);
    // BEGIN; the stations locked in id order; the connects; what the boots need; the boots and
    // their records; the events (the counter, last); COMMIT. (Before: the list syncs armed, the
    // stations locked again for the boots and the profile re-sends armed, three statements more,
    // each a round trip while the batch's stations are locked.)
    expect(tx).toEqual([
      "BEGIN",
      expect.stringMatching(/^SELECT id FROM stations WHERE id = ANY\(.*FOR UPDATE$/),
      expect.stringMatching(/^WITH c AS \(/),
      expect.stringMatching(/^SELECT m\.ord/),
      expect.stringMatching(/^WITH booted AS/),
      expect.stringMatching(/^WITH moved AS/),
      "COMMIT",
    ]);
    // Its next call, and a heartbeat, write nothing for `last_seen`: the connect wrote it (the
    // gateway's flush, once a second, used to lock and write every new station's row again).
    await charger.call("StatusNotification", {
      connectorId: 1,
      errorCode: "NoError",
      status: "Available",
      timestamp: new Date().toISOString(),
    });
    await charger.call("Heartbeat", {});
    await sleep(1_500);
    const lastSeenWrites = [...sent.values()]
      .flat()
      .filter((s) => /^UPDATE stations AS s SET last_seen_at/.test(s));
    expect(lastSeenWrites).toEqual([]);
    expect(
      (await db().station.findUniqueOrThrow({ where: { id: station.id } })).lastSeenAt,
    ).not.toBeNull();
    await Promise.all([charger, ...others].map((c) => c.close({ force: true }).catch(() => {})));
  });

  it("a station that keeps a list and has a profile to re-send still gets both armed, in the same transaction", async () => {
    sent.clear();
    const t = await aTenantWithKey();
    const station = await aStationWithPassword(t, PASSWORD);
    await db().station.update({ where: { id: station.id }, data: { localListVersion: 3 } });
    await db().chargingProfile.create({
      data: {
        id: newId("cpr"),
        tenantId: t.tenantId,
        stationId: station.id,
        chargingProfileId: 7,
        evseNumber: 0,
        purpose: "TxDefaultProfile",
        stackLevel: 0,
        profile: { purpose: "TxDefaultProfile", stack_level: 0 },
        state: "installed",
        operationId: "",
      },
    });
    const { charger, others } = await connectAndBootRiding(t, station);
    const [tx, ...more] = connectTransaction();
    expect(more).toEqual([]);
    expect(tx!.filter((s) => /^WITH armed AS \( INSERT INTO jobs/.test(s))).toHaveLength(2);
    await waitUntil(async () => {
      const jobs = await db().job.findMany({
        where: {
          id: { in: [`local_list.sync:${station.id}`, `charging_profiles.resend:${station.id}`] },
        },
      });
      return jobs.length === 2;
    });
    await Promise.all([charger, ...others].map((c) => c.close({ force: true }).catch(() => {})));
  });
});
