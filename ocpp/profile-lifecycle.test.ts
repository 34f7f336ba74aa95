import { describe, expect, it } from "vitest";
import { profileResendJob } from "../server/charging-profiles/resend-after-boot";
import { db } from "../server/db";
import { call, idem } from "../testing/api";
import { aLiveGateway } from "../testing/live-gateway";
import { waitUntil } from "../testing/ocpp";
import { aRecordingCharger, type Answer } from "../testing/recording-charger";

// The re-send runs on the gateway's job runner, as in the ocpp process (server/background-jobs.ts).
const gw = aLiveGateway({ jobs: [profileResendJob] });

async function setup(protocol: "ocpp1.6" | "ocpp2.0.1", answerSet: Answer) {
  const c = await aRecordingCharger({
    url: gw.url,
    protocol,
    password: "lifecycle-pass-001",
    answers: { SetChargingProfile: answerSet },
  });
  const base = `/v1/tenants/${c.tenantId}/stations/${c.station.id}`;
  const station = (await call("GET", base, { key: c.key })).body;
  const connectors = station.connectors as { id: number }[];
  const post = (body: Record<string, unknown>) =>
    call("POST", `${base}/charging-profiles`, { key: c.key, body, idempotencyKey: idem() });
  const list = async (all = false) =>
    (await call("GET", `${base}/charging-profiles${all ? "?all=true" : ""}`, { key: c.key })).body
      .data as Record<string, any>[];
  const sets = () => c.calls("SetChargingProfile").map((r) => r.params);
  return { ...c, base, connectors, post, list, sets };
}

const accepted = () => Promise.resolve({ status: "Accepted" });
const boot16 = { chargePointVendor: "Acme", chargePointModel: "Wall-1" };

describe("charging profiles after a reboot (OCPP 1.6)", () => {
  it("sets the API's ChargePointMax and TxDefault profiles again after a BootNotification, and nothing after a plain reconnect", async () => {
    const answers = ["Accepted", "Accepted", "Rejected"];
    const s = await setup("ocpp1.6", () =>
      Promise.resolve({ status: answers.shift() ?? "Accepted" }),
    );
    try {
      const max = await s.post({
        purpose: "ChargePointMaxProfile",
        stack_level: 0,
        kind: "Relative",
        schedule: { unit: "W", periods: [{ start: 0, limit: 22000 }] },
      });
      const txDefault = await s.post({
        connector_id: s.connectors[1]!.id,
        purpose: "TxDefaultProfile",
        stack_level: 1,
        kind: "Relative",
        schedule: { unit: "A", periods: [{ start: 0, limit: 16 }] },
      });
      const refused = await s.post({
        purpose: "TxDefaultProfile",
        stack_level: 3,
        kind: "Relative",
        schedule: { unit: "A", periods: [{ start: 0, limit: 8 }] },
      });
      expect([max.body.status, txDefault.body.status, refused.body.status]).toEqual([
        "succeeded",
        "succeeded",
        "rejected",
      ]);
      // a site limit's profile, believed installed: its allocator re-sends it, not this rule
      const installed = await db().chargingProfile.findFirstOrThrow({
        where: { stationId: s.station.id, chargingProfileId: 1 },
      });
      await db().chargingProfile.create({
        data: {
          id: "cpr_site_limit_test",
          tenantId: s.tenantId,
          stationId: s.station.id,
          chargingProfileId: 50,
          source: "site_limit",
          evseNumber: 0,
          purpose: "ChargePointMaxProfile",
          stackLevel: 5,
          profile: installed.profile as object,
          state: "installed",
          operationId: installed.operationId,
        },
      });
      const before = s.sets();
      expect(before).toHaveLength(3);

      // a plain reconnect (no boot): the charger kept its memory, nothing is sent
      await s.close();
      await (await s.reconnect()).call("Heartbeat", {});
      await new Promise((r) => setTimeout(r, 2_000));
      expect(s.sets()).toHaveLength(3);

      // a reboot: the installed API profiles go again, exactly as first sent, in ID order (each
      // its own operation, written in that order, which the gateway sends a station's in)
      await s.close();
      await (await s.reconnect()).call("BootNotification", boot16);
      await waitUntil(() => s.sets().length === 5);
      expect(s.sets().slice(3)).toEqual([before[0], before[1]]);
      await waitUntil(async () =>
        (await s.list()).every((p: Record<string, any>) => p.state === "installed"),
      );
      const live = await s.list();
      expect(live.map((p) => [p.charging_profile_id, p.source, p.state])).toEqual(
        expect.arrayContaining([
          [1, "api", "installed"],
          [2, "api", "installed"],
          [50, "site_limit", "installed"],
        ]),
      );
      expect(live).toHaveLength(3);
      const resent = await db().operation.findMany({
        where: { stationId: s.station.id, scope: "station.charging_profile_set" },
        orderBy: { createdAt: "asc" },
      });
      expect(resent).toHaveLength(5);
      expect(live.find((p) => p.charging_profile_id === 1)!.operation_id).toBe(resent[3]!.id);
      expect((await s.list(true)).find((p) => p.charging_profile_id === 3)!.state).toBe("rejected");
    } finally {
      await s.close();
    }
  });
});

describe("a TxProfile when its transaction ends", () => {
  it("OCPP 1.6: StopTransaction makes the transaction's TxProfile ended (not live); another transaction's stays installed", async () => {
    const s = await setup("ocpp1.6", accepted);
    try {
      const started = async (connectorId: number, idTag: string) => {
        const { transactionId } = (await s.charger.call("StartTransaction", {
          connectorId,
          idTag,
          meterStart: 0,
          timestamp: new Date().toISOString(),
        })) as { transactionId: number };
        const t = await db().transaction.findFirstOrThrow({
          where: { stationId: s.station.id, reference: String(transactionId) },
        });
        return { reference: transactionId, id: t.id };
      };
      const one = await started(1, "TX-TAG-1");
      const two = await started(2, "TX-TAG-2");
      for (const t of [one, two]) {
        const set = await s.post({
          purpose: "TxProfile",
          stack_level: 1,
          kind: "Relative",
          transaction_id: t.id,
          schedule: { unit: "A", periods: [{ start: 0, limit: 10 }] },
        });
        expect(set.body.status).toBe("succeeded");
      }
      expect((await s.list()).map((p) => p.state)).toEqual(["installed", "installed"]);

      await s.charger.call("StopTransaction", {
        transactionId: one.reference,
        meterStop: 1000,
        timestamp: new Date().toISOString(),
      });
      const live = await s.list();
      expect(live.map((p) => [p.transaction_id, p.state])).toEqual([[two.id, "installed"]]);
      const all = await s.list(true);
      expect(all.find((p) => p.transaction_id === one.id)).toMatchObject({
        purpose: "TxProfile",
        state: "ended",
        charger_status: "Accepted",
      });
    } finally {
      await s.close();
    }
  });

  it("OCPP 2.0.1: TransactionEvent Ended makes its TxProfile ended", async () => {
    const s = await setup("ocpp2.0.1", accepted);
    try {
      const now = () => new Date().toISOString();
      await s.charger.call("TransactionEvent", {
        eventType: "Started",
        timestamp: now(),
        triggerReason: "Authorized",
        seqNo: 0,
        transactionInfo: { transactionId: "tx-ends-1" },
        idToken: { idToken: "TX-TOKEN-1", type: "Central" },
        evse: { id: 1, connectorId: 1 },
      });
      const t = await db().transaction.findFirstOrThrow({
        where: { stationId: s.station.id, reference: "tx-ends-1" },
      });
      const set = await s.post({
        purpose: "TxProfile",
        stack_level: 1,
        kind: "Relative",
        transaction_id: t.id,
        schedule: { unit: "A", periods: [{ start: 0, limit: 10 }] },
      });
      expect(set.body.status).toBe("succeeded");
      expect((await s.list()).map((p) => p.state)).toEqual(["installed"]);
      await s.charger.call("TransactionEvent", {
        eventType: "Ended",
        timestamp: now(),
        triggerReason: "StopAuthorized",
        seqNo: 1,
        transactionInfo: { transactionId: "tx-ends-1", stoppedReason: "Local" },
      });
      expect(await s.list()).toEqual([]);
      expect((await s.list(true))[0]).toMatchObject({ transaction_id: t.id, state: "ended" });
    } finally {
      await s.close();
    }
  });
});
