import { describe, expect, it, vi } from "vitest";
import { db } from "../db";
import { hashPassword, verifyPassword } from "../lib/passwords";
import { aStation, aTenantWithKey } from "../../testing/builders";
import { authenticateStation } from "../charging/authenticate-station";
import type { ChargerContext } from "../charging/connections";
import { UnknownConnector } from "../charging/find-connector";
import { stationBooted } from "./station-booted";
import { statusReported } from "./status-reported";
import { tokenPresented } from "./token-presented";
import { transactionEnded } from "./transaction-ended";
import { transactionStarted } from "./transaction-started";
import { transactionUpdated } from "./transaction-updated";

/** A registered station (two connectors, each on its own EVSE) as a charger of `protocol`. */
async function aCharger(protocol: "ocpp1.6" | "ocpp2.0.1") {
  const t = await aTenantWithKey();
  const station = await aStation(t.tenantId, t.key, { connector_count: 2 });
  const charger: ChargerContext = { stationId: station.id, tenantId: t.tenantId, protocol };
  const events = async (type: string) =>
    (await db().event.findMany({ where: { tenantId: t.tenantId, type } })).map(
      (e) => e.data as Record<string, unknown>,
    );
  return { ...t, station, charger, events };
}

const at = (s: number) => new Date(Date.UTC(2026, 0, 1, 12, 0, s));
const reading = (s: number, wh: number) => [
  { timestamp: at(s).toISOString(), sampledValue: [{ value: String(wh) }] },
];

describe("authenticateStation", () => {
  it("finds the station by name (any case) whose password it is; every refusal costs one check", async () => {
    const s = await aCharger("ocpp1.6");
    const hash = await hashPassword("right-password-0001");
    await db().station.update({ where: { id: s.station.id }, data: { passwordHash: hash } });
    const bare = await aStation(s.tenantId, s.key, { connector_count: 1 }); // no password
    const verify = vi.fn(verifyPassword);
    const attempt = (name: string, password: string) =>
      authenticateStation({ db: db(), name, password: Buffer.from(password), verify });

    expect(await attempt(s.station.name.toUpperCase(), "right-password-0001")).toEqual({
      stationId: s.station.id,
      tenantId: s.tenantId,
      name: s.station.name,
    });
    expect(await attempt(s.station.name, "wrong-password-0001")).toBeNull();
    expect(await attempt("no-such-station", "right-password-0001")).toBeNull();
    expect(await attempt(bare.name, "")).toBeNull();
    expect(verify).toHaveBeenCalledTimes(4);
    // unknown names and stations without a password are checked against a hash all the same
    expect(verify.mock.calls.slice(2).map(([, h]) => h.startsWith("scrypt$"))).toEqual([
      true,
      true,
    ]);
  });
});

describe("station facts", () => {
  it("stationBooted records identity and station.booted", async () => {
    const s = await aCharger("ocpp2.0.1");
    await stationBooted(
      db(),
      s.charger,
      { vendor: "Acme", model: "X1", serial: "SN-1", firmwareVersion: "1.2" },
      at(0),
    );
    const row = await db().station.findUniqueOrThrow({ where: { id: s.station.id } });
    expect(row).toMatchObject({
      bootVendor: "Acme",
      bootModel: "X1",
      serial: "SN-1",
      firmwareVersion: "1.2",
      bootedAt: at(0),
      lastSeenAt: at(0),
    });
    expect(await s.events("station.booted")).toEqual([
      expect.objectContaining({ protocol: "ocpp2.0.1", vendor: "Acme", boot_status: "Accepted" }),
    ]);
  });

  it("statusReported finds the connector by 1.6 number or 2.x EVSE and connector", async () => {
    const v16 = await aCharger("ocpp1.6");
    const v2 = await aCharger("ocpp2.0.1");
    const none = { errorCode: null, info: null, vendorId: null, vendorErrorCode: null };
    await statusReported(db(), v16.charger, {
      connectorNumber: 2,
      ocppStatus: "Unavailable",
      ...none,
      errorCode: "NoError",
      timestamp: at(0),
    });
    await statusReported(db(), v2.charger, {
      evseNumber: 2,
      evseConnectorNumber: 1,
      ocppStatus: "Unavailable",
      ...none,
      timestamp: at(0),
    });
    for (const s of [v16, v2])
      expect(await s.events("connector.status_changed")).toEqual([
        expect.objectContaining({
          connector_id: s.station.connectors[1]!.id,
          status: "Unavailable",
        }),
      ]);
  });

  it("tokenPresented judges a token by the tenant's authorization mode", async () => {
    const s = await aCharger("ocpp1.6");
    expect(await tokenPresented(db(), s.charger, "ANY-TOKEN")).toBe("Accepted");
    await db().tenant.update({
      where: { id: s.tenantId },
      data: { authorizationMode: "known_tokens" },
    });
    expect(await tokenPresented(db(), s.charger, "ANY-TOKEN")).toBe("Invalid");
  });
});

describe("transaction facts", () => {
  it("transactionStarted: a 1.6 start reported twice is one transaction, its reference its ID; an unknown connector throws", async () => {
    const s = await aCharger("ocpp1.6");
    const start = {
      connector: { connectorNumber: 1 },
      idToken: "T-1",
      meterStartWh: 500,
      startedAt: at(0),
      reportedAt: at(0),
    };
    const first = await transactionStarted(db(), s.charger, start);
    const again = await transactionStarted(db(), s.charger, start);
    expect(again.id).toBe(first.id);
    expect(first).toMatchObject({
      reference: String(first.id),
      connectorId: s.station.connectors[0]!.id,
    });
    await expect(
      transactionStarted(db(), s.charger, { ...start, connector: { connectorNumber: 9 } }),
    ).rejects.toBeInstanceOf(UnknownConnector);
    expect(await db().transaction.count({ where: { stationId: s.station.id } })).toBe(1);
  });

  it("transactionUpdated finds the transaction by reference, by connector (1.6) or by EVSE (2.x); an unknown one records nothing", async () => {
    const v16 = await aCharger("ocpp1.6");
    const t16 = await transactionStarted(db(), v16.charger, {
      connector: { connectorNumber: 2 },
      idToken: "T",
      meterStartWh: 1000,
      startedAt: at(0),
      reportedAt: at(0),
    });
    await transactionUpdated(db(), v16.charger, {
      transaction: { reference: t16.reference },
      meterValues: reading(10, 1200),
    });
    const byConnector = await transactionUpdated(db(), v16.charger, {
      transaction: { inProgressOn: { connectorNumber: 2 } },
      meterValues: reading(20, 1700),
    });
    expect(byConnector).toMatchObject({ id: t16.id, energyWh: 700 });

    const v2 = await aCharger("ocpp2.0.1");
    const firstSeen = {
      connector: { evseNumber: 2, evseConnectorNumber: 1 },
      idToken: null,
      meterStartWh: null,
      startedAt: null,
      reportedAt: at(5),
    };
    const t2 = await transactionUpdated(db(), v2.charger, {
      transaction: { reference: "abc", firstSeen },
      idToken: "LATE-TOKEN",
      meterValues: reading(5, 100),
    });
    expect(t2).toMatchObject({ reference: "abc", idToken: "LATE-TOKEN", startedAt: null });
    const byEvse = await transactionUpdated(db(), v2.charger, {
      transaction: { inProgressOn: { evseNumber: 2 } },
      meterValues: reading(15, 400),
    });
    expect(byEvse).toMatchObject({ id: t2!.id, energyWh: 300 });

    expect(
      await transactionUpdated(db(), v2.charger, {
        transaction: { reference: "never-started" },
        meterValues: reading(20, 500),
      }),
    ).toBeNull();
    expect(await db().transaction.count({ where: { stationId: v2.station.id } })).toBe(1);
  });

  it("transactionEnded closes once: the 1.6 stop reading, or (2.x) the start reading plus the energy metered", async () => {
    const v16 = await aCharger("ocpp1.6");
    const t16 = await transactionStarted(db(), v16.charger, {
      connector: { connectorNumber: 1 },
      idToken: "T",
      meterStartWh: 1000,
      startedAt: at(0),
      reportedAt: at(0),
    });
    const end = {
      transaction: { reference: t16.reference },
      meterValues: [],
      meterStopWh: 4000,
      endedAt: at(60),
      reason: "Local",
    };
    expect(await transactionEnded(db(), v16.charger, end)).toMatchObject({
      energyWh: 3000,
      meterStopWh: 4000n,
      endedAt: at(60),
    });
    // reported twice: nothing changes
    expect(
      await transactionEnded(db(), v16.charger, { ...end, meterStopWh: 9000, endedAt: at(99) }),
    ).toMatchObject({ energyWh: 3000, meterStopWh: 4000n, endedAt: at(60) });

    const v2 = await aCharger("ocpp2.0.1");
    const ended = await transactionEnded(db(), v2.charger, {
      transaction: {
        reference: "xyz",
        firstSeen: {
          connector: { evseNumber: 1 },
          idToken: null,
          meterStartWh: null,
          startedAt: at(0),
          reportedAt: at(0),
        },
      },
      meterValues: [...reading(0, 2000), ...reading(50, 2600)],
      endedAt: at(60),
      reason: "EVDisconnected",
    });
    expect(ended).toMatchObject({
      energyWh: 600,
      meterStopWh: 2600n,
      stopReason: "EVDisconnected",
    });
    expect(
      await transactionEnded(db(), v2.charger, {
        transaction: { reference: "unknown" },
        meterValues: [],
        endedAt: at(60),
        reason: null,
      }),
    ).toBeNull();
  });
});
