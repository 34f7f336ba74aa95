import { describe, expect, it } from "vitest";
import { db } from "../server/db";
import { call, idem } from "../testing/api";
import { aStation, aTenantWithKey, anotherKey } from "../testing/builders";
import { aLiveGateway } from "../testing/live-gateway";
import { aRecordingCharger, type Answer } from "../testing/recording-charger";
import { waitUntil } from "../testing/ocpp";

const gw = aLiveGateway();

/**
 * A two-connector station with a strict ocpp-rpc charger (its own schemas check every call the
 * service makes, and ours every answer), answering the smart-charging calls as `answers` says.
 */
async function setup(protocol: "ocpp1.6" | "ocpp2.0.1", answers: Record<string, Answer>) {
  const c = await aRecordingCharger({
    url: gw.url,
    protocol,
    password: "profiles-pass-0001",
    answers,
  });
  const operator = await anotherKey(c.tenantId, ["stations:read", "stations:control"]);
  const reader = await anotherKey(c.tenantId, ["stations:read"]);
  const base = `/v1/tenants/${c.tenantId}/stations/${c.station.id}`;
  const station = (await call("GET", base, { key: c.key })).body;
  const connectors = station.connectors as { id: number; evse_number: number }[];
  const post = (path: string, body: Record<string, unknown>, key = operator) =>
    call("POST", `${base}${path}`, { key, body, idempotencyKey: idem() });
  const list = async (all = false) =>
    (await call("GET", `${base}/charging-profiles${all ? "?all=true" : ""}`, { key: reader })).body
      .data as Record<string, any>[];
  return { ...c, operator, reader, base, connectors, post, list };
}

const status = (s: string) => () => Promise.resolve({ status: s });
const start = new Date(Date.now() + 60_000).toISOString().replace(/\.\d+Z$/, "Z");

describe("charging profiles with OCPP 1.6", () => {
  it("sets profiles exactly as SetChargingProfile requires, records Accepted and Rejected, replaces by stack level, and lists what is believed installed", async () => {
    const answers: string[] = ["Accepted", "Rejected", "Accepted"];
    const s = await setup("ocpp1.6", {
      SetChargingProfile: () => Promise.resolve({ status: answers.shift()! }),
    });
    try {
      const max = await s.post("/charging-profiles", {
        purpose: "ChargePointMaxProfile",
        stack_level: 0,
        kind: "Absolute",
        valid_to: "2099-01-01T00:00:00Z",
        schedule: { unit: "W", start, periods: [{ start: 0, limit: 11000 }] },
      });
      expect(max.status).toBe(202);
      expect(max.body).toMatchObject({
        scope: "station.charging_profile_set",
        status: "succeeded",
        result: { charger_status: "Accepted" },
      });
      expect(s.calls("SetChargingProfile")[0]!.params).toEqual({
        connectorId: 0,
        csChargingProfiles: {
          chargingProfileId: 1,
          stackLevel: 0,
          chargingProfilePurpose: "ChargePointMaxProfile",
          chargingProfileKind: "Absolute",
          validTo: "2099-01-01T00:00:00Z",
          chargingSchedule: {
            startSchedule: start,
            chargingRateUnit: "W",
            chargingSchedulePeriod: [{ startPeriod: 0, limit: 11000 }],
          },
        },
      });

      // a TxDefaultProfile on connector 2, refused by the charger: recorded, not believed installed
      const connector2 = s.connectors[1]!;
      const refused = await s.post("/charging-profiles", {
        connector_id: connector2.id,
        purpose: "TxDefaultProfile",
        stack_level: 1,
        kind: "Recurring",
        recurrency: "Daily",
        schedule: {
          unit: "A",
          start,
          duration: 86400,
          min_rate: 6,
          periods: [
            { start: 0, limit: 32, phases: 3 },
            { start: 28800, limit: 16.5 },
          ],
        },
      });
      expect(refused.body).toMatchObject({
        status: "rejected",
        result: { charger_status: "Rejected", error: { code: "charger_rejected" } },
      });
      expect(s.calls("SetChargingProfile")[1]!.params).toEqual({
        connectorId: 2,
        csChargingProfiles: {
          chargingProfileId: 2,
          stackLevel: 1,
          chargingProfilePurpose: "TxDefaultProfile",
          chargingProfileKind: "Recurring",
          recurrencyKind: "Daily",
          chargingSchedule: {
            startSchedule: start,
            duration: 86400,
            chargingRateUnit: "A",
            chargingSchedulePeriod: [
              { startPeriod: 0, limit: 32, numberPhases: 3 },
              { startPeriod: 28800, limit: 16.5 },
            ],
            minChargingRate: 6,
          },
        },
      });

      // the same purpose and stack level again: the first is replaced
      const second = await s.post("/charging-profiles", {
        purpose: "ChargePointMaxProfile",
        stack_level: 0,
        kind: "Relative",
        schedule: { unit: "W", periods: [{ start: 0, limit: 7400 }] },
      });
      expect(second.body.status).toBe("succeeded");
      const believed = await s.list();
      expect(believed).toHaveLength(1);
      expect(believed[0]).toMatchObject({
        charging_profile_id: 3,
        purpose: "ChargePointMaxProfile",
        evse_number: 0,
        connector_id: null,
        state: "installed",
        charger_status: "Accepted",
        operation_id: second.body.id,
        schedule: { unit: "W", periods: [{ start: 0, limit: 7400 }] },
      });
      const all = await s.list(true);
      expect(Object.fromEntries(all.map((p) => [p.charging_profile_id, p.state]))).toEqual({
        1: "replaced",
        2: "rejected",
        3: "installed",
      });
      expect(all.find((p) => p.charging_profile_id === 2)).toMatchObject({
        connector_id: connector2.id,
        evse_number: connector2.evse_number,
        charger_status: "Rejected",
        operation_id: refused.body.id,
        kind: "Recurring",
        recurrency: "Daily",
      });
    } finally {
      await s.close();
    }
  });

  it("refuses a profile 1.6 does not allow with 422 naming each field, sending nothing; a TxProfile takes its transaction's connector", async () => {
    const s = await setup("ocpp1.6", { SetChargingProfile: status("Accepted") });
    try {
      const bad = await s.post("/charging-profiles", {
        connector_id: s.connectors[0]!.id,
        purpose: "ChargePointMaxProfile",
        stack_level: 0,
        kind: "Recurring",
        schedule: {
          unit: "A",
          periods: [
            { start: 60, limit: 16.05 },
            { start: 30, limit: 10 },
          ],
        },
      });
      expect(bad.status).toBe(422);
      expect(bad.body.error.code).toBe("validation_failed");
      expect(bad.body.error.details.fields).toEqual(
        expect.arrayContaining([
          {
            location: "body",
            field: "schedule.periods.0.start",
            message: expect.stringContaining("must be 0"),
          },
          {
            location: "body",
            field: "schedule.periods.1.start",
            message: expect.stringContaining("later"),
          },
          { location: "body", field: "recurrency", message: expect.stringContaining("required") },
          {
            location: "body",
            field: "schedule.start",
            message: expect.stringContaining("required"),
          },
          {
            location: "body",
            field: "connector_id",
            message: expect.stringContaining("whole station"),
          },
          {
            location: "body",
            field: "schedule.periods.0.limit",
            message: "must be a multiple of 0.1 for OCPP 1.6",
          },
        ]),
      );
      expect(bad.body.error.message).toContain("schedule.periods.0.limit");
      const strange = await s.post("/charging-profiles", {
        purpose: "ChargingStationExternalConstraints",
        stack_level: 0,
        kind: "Absolute",
        schedule: { unit: "A", periods: [{ start: 0, limit: 10 }] },
      });
      expect(strange.status).toBe(422);
      const otherConnector = await s.post("/charging-profiles", {
        connector_id: 999_999,
        purpose: "TxDefaultProfile",
        stack_level: 0,
        kind: "Relative",
        schedule: { unit: "A", periods: [{ start: 0, limit: 10 }] },
      });
      expect(otherConnector.status).toBe(422);
      expect(otherConnector.body.error.details.fields).toEqual([
        { location: "body", field: "connector_id", message: "is not a connector of this station" },
      ]);
      expect(s.calls("SetChargingProfile")).toHaveLength(0);
      expect(await s.list(true)).toEqual([]);

      const { transactionId } = (await s.charger.call("StartTransaction", {
        connectorId: 1,
        idTag: "PROFILE-TAG",
        meterStart: 0,
        timestamp: new Date().toISOString(),
      })) as { transactionId: number };
      let tx: { id: number } | null = null;
      await waitUntil(async () => {
        tx = await db().transaction.findFirst({
          where: { stationId: s.station.id, reference: String(transactionId) },
        });
        return tx !== null;
      });
      const txProfile = await s.post("/charging-profiles", {
        purpose: "TxProfile",
        stack_level: 2,
        kind: "Relative",
        transaction_id: tx!.id,
        schedule: { unit: "A", periods: [{ start: 0, limit: 10.5, phases: 1 }] },
      });
      expect(txProfile.body.status).toBe("succeeded");
      expect(s.calls("SetChargingProfile")[0]!.params).toEqual({
        connectorId: 1,
        csChargingProfiles: {
          chargingProfileId: 1,
          transactionId,
          stackLevel: 2,
          chargingProfilePurpose: "TxProfile",
          chargingProfileKind: "Relative",
          chargingSchedule: {
            chargingRateUnit: "A",
            chargingSchedulePeriod: [{ startPeriod: 0, limit: 10.5, numberPhases: 1 }],
          },
        },
      });
      expect((await s.list())[0]).toMatchObject({
        purpose: "TxProfile",
        transaction_id: tx!.id,
        connector_id: s.connectors[0]!.id,
        state: "installed",
      });
    } finally {
      await s.close();
    }
  });

  it("clears by ID and by criteria (Accepted and Unknown both clear), and reads a composite schedule", async () => {
    const clears: string[] = ["Accepted", "Unknown"];
    const s = await setup("ocpp1.6", {
      SetChargingProfile: status("Accepted"),
      ClearChargingProfile: () => Promise.resolve({ status: clears.shift()! }),
      GetCompositeSchedule: (p) =>
        Promise.resolve(
          p.connectorId === 2
            ? { status: "Rejected" }
            : {
                status: "Accepted",
                connectorId: 1,
                scheduleStart: start,
                chargingSchedule: {
                  duration: 3600,
                  chargingRateUnit: "A",
                  chargingSchedulePeriod: [
                    { startPeriod: 0, limit: 16 },
                    { startPeriod: 1800, limit: 10, numberPhases: 1 },
                  ],
                },
              },
        ),
    });
    try {
      const profile = (connector: number, purpose = "TxDefaultProfile") =>
        s.post("/charging-profiles", {
          connector_id: s.connectors[connector]!.id,
          purpose,
          stack_level: 0,
          kind: "Relative",
          schedule: { unit: "A", periods: [{ start: 0, limit: 20 }] },
        });
      await profile(0);
      await profile(1);
      const [first, second] = (await s.list()).sort(
        (a, b) => a.charging_profile_id - b.charging_profile_id,
      );
      const byId = await s.post("/charging-profiles/clear", { profile_id: first!.id });
      expect(byId.body).toMatchObject({
        scope: "station.charging_profile_clear",
        status: "succeeded",
        result: { charger_status: "Accepted" },
      });
      expect(s.calls("ClearChargingProfile")[0]!.params).toEqual({ id: 1 });
      const byCriteria = await s.post("/charging-profiles/clear", {
        connector_id: s.connectors[1]!.id,
        purpose: "TxDefaultProfile",
        stack_level: 0,
      });
      expect(byCriteria.body).toMatchObject({
        status: "succeeded",
        result: { charger_status: "Unknown" },
      });
      expect(s.calls("ClearChargingProfile")[1]!.params).toEqual({
        connectorId: 2,
        chargingProfilePurpose: "TxDefaultProfile",
        stackLevel: 0,
      });
      expect(await s.list()).toEqual([]);
      const cleared = await s.list(true);
      expect(cleared.find((p) => p.id === first!.id)).toMatchObject({
        state: "cleared",
        charger_status: "Accepted",
        operation_id: byId.body.id,
      });
      expect(cleared.find((p) => p.id === second!.id)).toMatchObject({
        state: "cleared",
        charger_status: "Unknown",
      });
      const both = await s.post("/charging-profiles/clear", {
        profile_id: first!.id,
        purpose: "TxProfile",
      });
      expect(both.status).toBe(422);

      const composite = await s.post("/composite-schedule", {
        connector_id: s.connectors[0]!.id,
        duration: 3600,
        unit: "A",
      });
      expect(composite.body).toMatchObject({
        scope: "station.composite_schedule",
        status: "succeeded",
        result: {
          charger_status: "Accepted",
          schedule: {
            start,
            duration: 3600,
            unit: "A",
            periods: [
              { start: 0, limit: 16 },
              { start: 1800, limit: 10, phases: 1 },
            ],
          },
        },
      });
      expect(s.calls("GetCompositeSchedule")[0]!.params).toEqual({
        connectorId: 1,
        duration: 3600,
        chargingRateUnit: "A",
      });
      const rejected = await s.post("/composite-schedule", {
        evse_number: s.connectors[1]!.evse_number,
        duration: 60,
      });
      expect(rejected.body).toMatchObject({
        status: "rejected",
        result: { charger_status: "Rejected" },
      });
      expect(s.calls("GetCompositeSchedule")[1]!.params).toEqual({ connectorId: 2, duration: 60 });
      // reading needs stations:control
      const readOnly = await s.post("/composite-schedule", { duration: 60 }, s.reader);
      expect(readOnly.status).toBe(403);
    } finally {
      await s.close();
    }
  });
});

describe("charging profiles with OCPP 2.0.1", () => {
  it("maps names and shapes to 2.0.1 (evseId, chargingSchedule list, ChargingStationMaxProfile), allows what 1.6 does not, and records the charger's reason", async () => {
    const answers: Record<string, unknown>[] = [
      { status: "Accepted" },
      { status: "Rejected", statusInfo: { reasonCode: "TxNotFound" } },
    ];
    const s = await setup("ocpp2.0.1", {
      SetChargingProfile: () => Promise.resolve(answers.shift()!),
    });
    try {
      const max = await s.post("/charging-profiles", {
        purpose: "ChargingStationMaxProfile",
        stack_level: 3,
        kind: "Relative",
        valid_from: "2020-01-01T00:00:00Z",
        schedule: { unit: "A", duration: 7200, periods: [{ start: 0, limit: 16.05, phases: 1 }] },
      });
      expect(max.body).toMatchObject({ status: "succeeded" });
      expect(s.calls("SetChargingProfile")[0]!.params).toEqual({
        evseId: 0,
        chargingProfile: {
          id: 1,
          stackLevel: 3,
          chargingProfilePurpose: "ChargingStationMaxProfile",
          chargingProfileKind: "Relative",
          validFrom: "2020-01-01T00:00:00Z",
          chargingSchedule: [
            {
              id: 1,
              duration: 7200,
              chargingRateUnit: "A",
              chargingSchedulePeriod: [{ startPeriod: 0, limit: 16.05, numberPhases: 1 }],
            },
          ],
        },
      });
      expect((await s.list())[0]).toMatchObject({
        purpose: "ChargePointMaxProfile",
        state: "installed",
      });

      // 2.x: a TxProfile needs its transaction
      const noTx = await s.post("/charging-profiles", {
        evse_number: 1,
        purpose: "TxProfile",
        stack_level: 0,
        kind: "Relative",
        schedule: { unit: "W", periods: [{ start: 0, limit: 3680 }] },
      });
      expect(noTx.status).toBe(422);
      expect(noTx.body.error.details.fields).toEqual([
        {
          location: "body",
          field: "transaction_id",
          message: expect.stringContaining("required for a TxProfile"),
        },
      ]);
      await s.charger.call("TransactionEvent", {
        eventType: "Started",
        timestamp: new Date().toISOString(),
        triggerReason: "CablePluggedIn",
        seqNo: 0,
        transactionInfo: { transactionId: "tx-profile-2x" },
        evse: { id: 1, connectorId: 1 },
      });
      let tx: { id: number } | null = null;
      await waitUntil(async () => {
        tx = await db().transaction.findFirst({
          where: { stationId: s.station.id, reference: "tx-profile-2x" },
        });
        return tx !== null;
      });
      const txProfile = await s.post("/charging-profiles", {
        purpose: "TxProfile",
        stack_level: 0,
        kind: "Relative",
        transaction_id: tx!.id,
        schedule: { unit: "W", periods: [{ start: 0, limit: 3680 }] },
      });
      expect(txProfile.body).toMatchObject({
        status: "rejected",
        result: { charger_status: "Rejected", charger_reason: "TxNotFound" },
      });
      expect(s.calls("SetChargingProfile")[1]!.params).toEqual({
        evseId: 1,
        chargingProfile: {
          id: 2,
          transactionId: "tx-profile-2x",
          stackLevel: 0,
          chargingProfilePurpose: "TxProfile",
          chargingProfileKind: "Relative",
          chargingSchedule: [
            {
              id: 2,
              chargingRateUnit: "W",
              chargingSchedulePeriod: [{ startPeriod: 0, limit: 3680 }],
            },
          ],
        },
      });
      expect((await s.list(true)).find((p) => p.charging_profile_id === 2)).toMatchObject({
        state: "rejected",
        charger_status: "Rejected",
        transaction_id: tx!.id,
      });
    } finally {
      await s.close();
    }
  });

  it("clears by ID and by criteria, and reads the composite schedule of the grid connection", async () => {
    const s = await setup("ocpp2.0.1", {
      SetChargingProfile: status("Accepted"),
      ClearChargingProfile: status("Accepted"),
      GetCompositeSchedule: (p) =>
        Promise.resolve({
          status: "Accepted",
          schedule: {
            evseId: p.evseId,
            duration: p.duration,
            scheduleStart: start,
            chargingRateUnit: "W",
            chargingSchedulePeriod: [{ startPeriod: 0, limit: 22000, numberPhases: 3 }],
          },
        }),
    });
    try {
      const set = await s.post("/charging-profiles", {
        charging_profile_id: 77,
        evse_number: 2,
        purpose: "TxDefaultProfile",
        stack_level: 1,
        kind: "Absolute",
        schedule: { unit: "A", start, periods: [{ start: 0, limit: 32 }] },
      });
      expect(set.body.status).toBe("succeeded");
      expect(s.calls("SetChargingProfile")[0]!.params).toMatchObject({
        evseId: 2,
        chargingProfile: { id: 77 },
      });
      const byOcppId = await s.post("/charging-profiles/clear", { charging_profile_id: 77 });
      expect(byOcppId.body.status).toBe("succeeded");
      expect(s.calls("ClearChargingProfile")[0]!.params).toEqual({ chargingProfileId: 77 });
      expect((await s.list(true))[0]).toMatchObject({ charging_profile_id: 77, state: "cleared" });

      await s.post("/charging-profiles/clear", {
        evse_number: 2,
        purpose: "ChargingStationMaxProfile",
        stack_level: 1,
      });
      expect(s.calls("ClearChargingProfile")[1]!.params).toEqual({
        chargingProfileCriteria: {
          evseId: 2,
          chargingProfilePurpose: "ChargingStationMaxProfile",
          stackLevel: 1,
        },
      });
      await s.post("/charging-profiles/clear", {});
      expect(s.calls("ClearChargingProfile")[2]!.params).toEqual({});

      const composite = await s.post("/composite-schedule", { duration: 900, unit: "W" });
      expect(s.calls("GetCompositeSchedule")[0]!.params).toEqual({
        duration: 900,
        chargingRateUnit: "W",
        evseId: 0,
      });
      expect(composite.body.result.schedule).toEqual({
        start,
        duration: 900,
        unit: "W",
        periods: [{ start: 0, limit: 22000, phases: 3 }],
      });
    } finally {
      await s.close();
    }
  });

  it("asks which profiles the charger holds (GetChargingProfiles) and records its ReportChargingProfiles until the last; 1.6 is refused", async () => {
    const s = await setup("ocpp2.0.1", {
      GetChargingProfiles: (p) =>
        Promise.resolve({ status: p.evseId === 2 ? "NoProfiles" : "Accepted" }),
    });
    try {
      const asked = await s.post("/charging-profiles/report", { purpose: "TxDefaultProfile" });
      expect(asked.body).toMatchObject({
        scope: "station.charging_profiles_report",
        status: "succeeded",
        result: { charger_status: "Accepted" },
      });
      const sent = s.calls("GetChargingProfiles")[0]!.params as { requestId: number };
      expect(sent).toEqual({
        requestId: expect.any(Number),
        chargingProfile: { chargingProfilePurpose: "TxDefaultProfile" },
      });
      const listed = async () =>
        (await call("GET", `${s.base}/charging-profiles`, { key: s.reader })).body.charger_report;
      expect(await listed()).toMatchObject({
        operation_id: asked.body.id,
        state: "waiting",
        profiles: [],
      });
      const profile = (id: number, limit: number) => ({
        id,
        stackLevel: 0,
        chargingProfilePurpose: "TxDefaultProfile",
        chargingProfileKind: "Relative",
        chargingSchedule: [
          { id, chargingRateUnit: "A", chargingSchedulePeriod: [{ startPeriod: 0, limit }] },
        ],
      });
      await s.charger.call("ReportChargingProfiles", {
        requestId: sent.requestId,
        chargingLimitSource: "EMS",
        evseId: 1,
        tbc: true,
        chargingProfile: [profile(501, 20)],
      });
      expect((await listed()).state).toBe("waiting");
      // a report for another request is acknowledged, not kept
      await s.charger.call("ReportChargingProfiles", {
        requestId: sent.requestId + 1,
        chargingLimitSource: "CSO",
        evseId: 1,
        chargingProfile: [profile(9, 1)],
      });
      await s.charger.call("ReportChargingProfiles", {
        requestId: sent.requestId,
        chargingLimitSource: "CSO",
        evseId: 2,
        chargingProfile: [profile(502, 16)],
      });
      expect(await listed()).toMatchObject({
        state: "complete",
        profiles: [
          {
            charging_profile_id: 501,
            evse_number: 1,
            source: "EMS",
            purpose: "TxDefaultProfile",
            schedules: [{ unit: "A", periods: [{ start: 0, limit: 20 }] }],
          },
          { charging_profile_id: 502, evse_number: 2, source: "CSO" },
        ],
      });

      const none = await s.post("/charging-profiles/report", { evse_number: 2 });
      expect(none.body).toMatchObject({
        status: "succeeded",
        result: { charger_status: "NoProfiles" },
      });
      expect(await listed()).toMatchObject({
        operation_id: none.body.id,
        state: "complete",
        profiles: [],
      });
    } finally {
      await s.close();
    }
    const v16 = await setup("ocpp1.6", {});
    try {
      const refused = await v16.post("/charging-profiles/report", {});
      expect(refused.status).toBe(422);
      expect(refused.body.error.message).toContain("OCPP 1.6");
    } finally {
      await v16.close();
    }
  });

  it("an offline station's profile is rejected at once (station_offline) and kept as rejected", async () => {
    const t = await aTenantWithKey();
    const station = await aStation(t.tenantId, t.key, { connector_count: 1 });
    const res = await call(
      "POST",
      `/v1/tenants/${t.tenantId}/stations/${station.id}/charging-profiles`,
      {
        key: t.key,
        idempotencyKey: idem(),
        body: {
          purpose: "TxDefaultProfile",
          stack_level: 0,
          kind: "Relative",
          schedule: { unit: "A", periods: [{ start: 0, limit: 16 }] },
        },
      },
    );
    expect(res.status).toBe(202);
    expect(res.body).toMatchObject({
      status: "rejected",
      result: { error: { code: "station_offline" } },
    });
    const rows = await db().chargingProfile.findMany({ where: { stationId: station.id } });
    expect(rows).toMatchObject([{ state: "rejected", operationId: res.body.id }]);
  });
});
