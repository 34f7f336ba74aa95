import { describe, expect, it } from "vitest";
import { db } from "../server/db";
import { call, idem } from "../testing/api";
import { aStationWithPassword, aTenantWithKey } from "../testing/builders";
import { aConnectedCharger, aCharger, waitUntil } from "../testing/ocpp";
import { aLiveGateway } from "../testing/live-gateway";

const gw = aLiveGateway({ callTimeoutMs: 1500 });

const PASSWORD = "correct-horse-battery-9";

async function aRegisteredStation() {
  const t = await aTenantWithKey();
  const station = await aStationWithPassword(t, PASSWORD, { connector_count: 2 });
  const read = async () =>
    (await call("GET", `/v1/tenants/${t.tenantId}/stations/${station.id}`, { key: t.key })).body;
  const events = async (type?: string) =>
    (
      await db().event.findMany({
        where: { tenantId: t.tenantId, ...(type ? { type } : {}) },
        orderBy: { sequence: "asc" },
      })
    ).map((e) => ({ ...e, data: e.data as any }));
  const command = (body: unknown) =>
    call("POST", `/v1/tenants/${t.tenantId}/stations/${station.id}/commands`, {
      key: t.key,
      body,
      idempotencyKey: idem(),
    });
  return { ...t, station, read, events, command };
}

describe.each(["ocpp1.6", "ocpp2.0.1", "ocpp2.1"] as const)("a %s charger", (protocol) => {
  const v16 = protocol === "ocpp1.6";

  it("connects, boots, reports status and a fault, runs a transaction with meter values; every record, read and event follows", async () => {
    const s = await aRegisteredStation();
    const charger = await aConnectedCharger(gw, s.station, PASSWORD, protocol);
    try {
      await waitUntil(async () => (await s.read()).online === true);
      expect(await s.read()).toMatchObject({ online: true, protocol });
      const boot = (await charger.call(
        "BootNotification",
        v16
          ? {
              chargePointVendor: "Acme",
              chargePointModel: "X1",
              chargePointSerialNumber: "SN-1",
              firmwareVersion: "1.2.3",
            }
          : {
              reason: "PowerUp",
              chargingStation: {
                vendorName: "Acme",
                model: "X1",
                serialNumber: "SN-1",
                firmwareVersion: "1.2.3",
              },
            },
      )) as any;
      expect(boot.status).toBe("Accepted");
      expect(boot.interval).toBeGreaterThan(0);
      const afterBoot = await s.read();
      expect(afterBoot.boot).toMatchObject({
        vendor: "Acme",
        model: "X1",
        firmware_version: "1.2.3",
      });
      expect(afterBoot.serial).toBe("SN-1");
      await charger.call("Heartbeat", {});

      const connector = s.station.connectors[0]!;
      const status = (st: string, errorCode = "NoError") =>
        charger.call(
          "StatusNotification",
          v16
            ? { connectorId: 1, errorCode, status: st, timestamp: new Date().toISOString() }
            : {
                timestamp: new Date().toISOString(),
                connectorStatus: st,
                evseId: 1,
                connectorId: 1,
              },
        );
      await status("Available");
      await status("Available"); // repeated: no second event
      expect((await s.read()).connectors[0]).toMatchObject({
        id: connector.id,
        status: "Available",
        ocpp_status: "Available",
      });

      await status("Faulted", "GroundFailure");
      const faulted = await s.read();
      expect(faulted.connectors[0].status).toBe("Faulted");
      expect(faulted.open_faults).toHaveLength(1);
      expect(faulted.open_faults[0]).toMatchObject({
        connector_id: connector.id,
        evse_number: 1,
        error_code: v16 ? "GroundFailure" : null,
        cleared_at: null,
      });
      await status("Available");
      expect((await s.read()).open_faults).toEqual([]);
      const faults = await call(
        "GET",
        `/v1/tenants/${s.tenantId}/stations/${s.station.id}/faults`,
        { key: s.key },
      );
      expect(faults.body.data).toHaveLength(1);
      expect(faults.body.data[0].cleared_at).not.toBeNull();

      // a transaction with meter values
      const t0 = Date.now();
      const at = (sec: number) => new Date(t0 + sec * 1000).toISOString();
      let reference: string;
      if (v16) {
        const start = (await charger.call("StartTransaction", {
          connectorId: 1,
          idTag: "TAG1",
          meterStart: 1000,
          timestamp: at(0),
        })) as any;
        reference = String(start.transactionId);
        expect(start.idTagInfo.status).toBe("Accepted");
        await charger.call("MeterValues", {
          connectorId: 1,
          transactionId: start.transactionId,
          meterValue: [
            {
              timestamp: at(5),
              sampledValue: [{ value: "1.5", unit: "kWh", context: "Sample.Periodic" }],
            },
          ],
        });
        await charger.call("MeterValues", {
          connectorId: 1,
          transactionId: start.transactionId,
          meterValue: [
            {
              timestamp: at(20),
              sampledValue: [
                { value: "2500" },
                { value: "7200", measurand: "Power.Active.Import", unit: "W" },
              ],
            },
          ],
        });
        await charger.call("StopTransaction", {
          transactionId: start.transactionId,
          meterStop: 5000,
          timestamp: at(60),
          reason: "Local",
        });
      } else {
        reference = `tx-${Date.now()}`;
        const base = {
          transactionInfo: { transactionId: reference },
          evse: { id: 1, connectorId: 1 },
        };
        const mv = (sec: number, wh: number, context: string) => [
          {
            timestamp: at(sec),
            sampledValue: [
              {
                value: wh,
                context,
                measurand: "Energy.Active.Import.Register",
                unitOfMeasure: { unit: "Wh", multiplier: 0 },
              },
            ],
          },
        ];
        await charger.call("TransactionEvent", {
          ...base,
          eventType: "Started",
          timestamp: at(0),
          triggerReason: "Authorized",
          seqNo: 0,
          idToken: { idToken: "TAG1", type: "ISO14443" },
          meterValue: mv(0, 1000, "Transaction.Begin"),
        });
        await charger.call("TransactionEvent", {
          ...base,
          eventType: "Updated",
          timestamp: at(5),
          triggerReason: "MeterValuePeriodic",
          seqNo: 1,
          meterValue: mv(5, 1500, "Sample.Periodic"),
        });
        await charger.call("TransactionEvent", {
          ...base,
          eventType: "Updated",
          timestamp: at(20),
          triggerReason: "MeterValuePeriodic",
          seqNo: 2,
          meterValue: mv(20, 2500, "Sample.Periodic"),
        });
        await charger.call("TransactionEvent", {
          ...base,
          eventType: "Ended",
          timestamp: at(60),
          triggerReason: "StopAuthorized",
          seqNo: 3,
          transactionInfo: { transactionId: reference, stoppedReason: "Local" },
          meterValue: mv(60, 5000, "Transaction.End"),
        });
      }
      const list = await call(
        "GET",
        `/v1/tenants/${s.tenantId}/transactions?station_id=${s.station.id}`,
        { key: s.key },
      );
      expect(list.body.data).toHaveLength(1);
      const transaction = list.body.data[0];
      expect(transaction).toMatchObject({
        reference,
        connector_id: connector.id,
        status: "ended",
        energy_wh: 4000,
        energy_kwh: "4.000",
      });
      expect(
        (
          await call("GET", `/v1/tenants/${s.tenantId}/transactions/${transaction.id}`, {
            key: s.key,
          })
        ).body,
      ).toEqual(transaction);

      const events = await s.events();
      const types = events.map((e) => e.type);
      expect(types.slice(0, 3)).toEqual([
        "station.credentials_changed",
        "operation.completed",
        "station.connected",
      ]);
      expect(types.filter((t) => t === "connector.status_changed")).toHaveLength(3); // Available, Faulted, Available
      expect(types).toContain("station.booted");
      expect(types).toContain("station.fault_opened");
      expect(types).toContain("station.fault_cleared");
      const samples = events.filter((e) => e.type === "meter.sampled");
      // 1.6: samples at 5 s and 20 s (first, then 15 s later). 2.x: Begin (0 s), 5 s is within 10 s of it, 20 s, End (60 s).
      expect(samples.map((e) => e.data.sampled_at)).toEqual(
        v16 ? [at(5), at(20)] : [at(0), at(20), at(60)],
      );
      expect(samples.at(-1)!.data).toMatchObject({
        transaction_id: transaction.id,
        transaction_reference: reference,
        connector_id: connector.id,
      });
      // station_sequence counts this station's events one by one
      const stationEvents = events.filter((e) => e.stationId === s.station.id);
      expect(stationEvents.map((e) => e.stationSequence)).toEqual(
        stationEvents.map((_, i) => i + 1),
      );
      const fault = events.find((e) => e.type === "station.fault_opened")!;
      expect(fault.data).toMatchObject({
        connector_id: connector.id,
        error_code: v16 ? "GroundFailure" : null,
        ocpp_status: "Faulted",
      });
    } finally {
      await charger.close({ force: true });
    }
    await waitUntil(async () => (await s.read()).online === false);
    expect((await s.events()).at(-1)!.type).toBe("station.disconnected");
  });

  it("runs commands: answered in the 202, rejected, unknown when the charger never answers, and station_offline", async () => {
    const s = await aRegisteredStation();
    const offline = await s.command({ action: "reset", mode: "soft" });
    expect(offline.status).toBe(202);
    expect(offline.body).toMatchObject({
      status: "rejected",
      result: { error: { code: "station_offline" } },
    });

    const received: { method: string; params: any }[] = [];
    const charger = await aConnectedCharger(gw, s.station, PASSWORD, protocol, (charger) => {
      charger.handle(({ method = "", params }: { method?: string; params?: any }) => {
        received.push({ method, params });
        if (method === "Reset") return Promise.resolve({ status: "Rejected" });
        if (method === "UnlockConnector") return new Promise<Record<string, unknown>>(() => {}); // never answers
        return Promise.resolve({ status: "Accepted" });
      });
    });
    try {
      await waitUntil(async () => (await s.read()).online === true);
      const connector = s.station.connectors[1]!;
      const start = await s.command({
        action: "start",
        connector_id: connector.id,
        token: "DRIVER-42",
      });
      expect(start.status).toBe(202);
      expect(start.body).toMatchObject({
        status: "succeeded",
        action: "start",
        station_id: s.station.id,
      });
      expect(received[0]).toEqual(
        v16
          ? { method: "RemoteStartTransaction", params: { connectorId: 2, idTag: "DRIVER-42" } }
          : {
              method: "RequestStartTransaction",
              params: {
                evseId: 2,
                remoteStartId: expect.any(Number),
                idToken: { idToken: "DRIVER-42", type: "Central" },
              },
            },
      );
      const reset = await s.command({ action: "reset", mode: "hard" });
      expect(reset.body).toMatchObject({
        status: "rejected",
        result: { error: { code: "charger_rejected" } },
      });
      const availability = await s.command({
        action: "availability",
        connector_id: connector.id,
        mode: "inoperative",
      });
      expect(availability.body.status).toBe("succeeded");
      expect(received.at(-1)!.method).toBe("ChangeAvailability");

      const unlock = await s.command({ action: "unlock", connector_id: connector.id });
      expect(["dispatching", "unknown"]).toContain(unlock.body.status);
      await waitUntil(
        async () =>
          (
            await call("GET", `/v1/tenants/${s.tenantId}/operations/${unlock.body.id}`, {
              key: s.key,
            })
          ).body.status !== "dispatching",
      );
      const settled = await call("GET", `/v1/tenants/${s.tenantId}/operations/${unlock.body.id}`, {
        key: s.key,
      });
      expect(settled.body).toMatchObject({
        status: "unknown",
        result: { error: { code: "dispatch_unconfirmed" } },
      });
      expect(received.filter((r) => r.method === "UnlockConnector")).toHaveLength(1);

      // stop: the charger reports a transaction; the command names it by resource ID
      if (v16) {
        await charger.call("StartTransaction", {
          connectorId: 2,
          idTag: "DRIVER-42",
          meterStart: 0,
          timestamp: new Date().toISOString(),
        });
      } else {
        await charger.call("TransactionEvent", {
          eventType: "Started",
          timestamp: new Date().toISOString(),
          triggerReason: "RemoteStart",
          seqNo: 0,
          transactionInfo: { transactionId: "remote-tx-1" },
          evse: { id: 2, connectorId: 1 },
          idToken: { idToken: "DRIVER-42", type: "Central" },
        });
      }
      const tx = (await db().transaction.findFirst({ where: { stationId: s.station.id } }))!;
      const stop = await s.command({ action: "stop", transaction_id: tx.id });
      expect(stop.body.status).toBe("succeeded");
      expect(received.at(-1)).toEqual(
        v16
          ? { method: "RemoteStopTransaction", params: { transactionId: tx.id } }
          : { method: "RequestStopTransaction", params: { transactionId: "remote-tx-1" } },
      );
      await db().transaction.update({ where: { id: tx.id }, data: { endedAt: new Date() } });
      const ended = await s.command({ action: "stop", transaction_id: tx.id });
      expect(ended.status).toBe(409);
      expect(ended.body.error.code).toBe("transaction_ended");

      const bad = await s.command({ action: "unlock", connector_id: 999999 });
      expect(bad.status).toBe(422);
      expect(bad.body.error.code).toBe("connector_not_found");
      const extra = await s.command({ action: "reset", mode: "soft", token: "x" });
      expect(extra.status).toBe(422);

      const completed = (await s.events("operation.completed")).map((e) => e.data.operation.id);
      expect(completed).toEqual(
        expect.arrayContaining([offline.body.id, start.body.id, reset.body.id, unlock.body.id]),
      );
      const ops = await call(
        "GET",
        `/v1/tenants/${s.tenantId}/operations?station_id=${s.station.id}`,
        { key: s.key },
      );
      expect(ops.body.data.map((o: { id: string }) => o.id)).toContain(start.body.id);
    } finally {
      await charger.close({ force: true });
    }
  });
});

describe("refusals", () => {
  it("refuses unknown names, bad passwords and unknown subprotocols before the upgrade; nothing stored; the gateway keeps serving", async () => {
    const s = await aRegisteredStation();
    const attempts = [
      aCharger({
        url: gw.url,
        identity: "no-such-station",
        password: PASSWORD,
        protocol: "ocpp1.6",
      }),
      aCharger({
        url: gw.url,
        identity: s.station.name,
        password: "wrong-password-123",
        protocol: "ocpp1.6",
      }),
      aCharger({ url: gw.url, identity: s.station.name, protocol: "ocpp2.0.1" }),
    ];
    for (const charger of attempts) await expect(charger.connect()).rejects.toThrow();
    const { RPCClient } = await import("ocpp-rpc");
    const wrongProtocol = new RPCClient(<ConstructorParameters<typeof RPCClient>[0]>{
      endpoint: gw.url,
      identity: s.station.name,
      password: PASSWORD,
      protocols: ["ocpp1.5"],
      reconnect: false,
    });
    await expect(wrongProtocol.connect()).rejects.toThrow();
    expect((await s.read()).online).toBe(false);
    expect(await s.events("station.connected")).toEqual([]);

    const good = await aConnectedCharger(gw, s.station, PASSWORD, "ocpp1.6");
    try {
      // malformed frames and schema violations get OCPP errors; the connection stays up
      good.sendRaw("this is not json");
      good.sendRaw(JSON.stringify([2, "m1", "StatusNotification", { connectorId: "one" }]));
      await expect(
        good.call("BootNotification", { chargePointVendor: "Acme", chargePointModel: "X" }),
      ).resolves.toMatchObject({ status: "Accepted" });
      expect(await s.events("connector.status_changed")).toEqual([]);
    } finally {
      await good.close({ force: true });
    }
  });

  it("a retried charger message is applied once", async () => {
    const s = await aRegisteredStation();
    const answers: string[] = [];
    const charger = await aConnectedCharger(gw, s.station, PASSWORD, "ocpp1.6", (charger) => {
      charger.on("message", ({ message, outbound }: { message: string; outbound: boolean }) => {
        if (!outbound) answers.push(String(message));
      });
    });
    try {
      // A retry after a lost answer carries the same message id; a second report of the same start
      // under a new id is the same transaction too.
      const timestamp = new Date().toISOString();
      const frame = (id: string) =>
        JSON.stringify([
          2,
          id,
          "StartTransaction",
          { connectorId: 1, idTag: "T", meterStart: 0, timestamp },
        ]);
      const answerTo = async (id: string, count: number) => {
        await waitUntil(() => answers.filter((a) => a.includes(`"${id}"`)).length === count);
        return JSON.parse(answers.filter((a) => a.includes(`"${id}"`)).at(-1)!)[2]
          .transactionId as number;
      };
      charger.sendRaw(frame("retry-1"));
      const first = await answerTo("retry-1", 1);
      charger.sendRaw(frame("retry-1"));
      expect(await answerTo("retry-1", 2)).toBe(first);
      charger.sendRaw(frame("again-2"));
      expect(await answerTo("again-2", 1)).toBe(first);
      expect(await db().transaction.count({ where: { stationId: s.station.id } })).toBe(1);
    } finally {
      await charger.close({ force: true });
    }
  });

  it("closes a connection that sends an oversize frame; nothing stored; the gateway keeps serving", async () => {
    const s = await aRegisteredStation();
    const charger = await aConnectedCharger(gw, s.station, PASSWORD, "ocpp1.6");
    const closed = new Promise((resolve) => charger.once("close", resolve));
    charger.sendRaw(
      JSON.stringify([2, "big", "DataTransfer", { vendorId: "x", data: "y".repeat(300 * 1024) }]),
    );
    await closed;
    expect(await db().chargerMessage.count({ where: { stationId: s.station.id } })).toBe(0);
    const next = await aConnectedCharger(gw, s.station, PASSWORD, "ocpp1.6");
    await expect(next.call("Heartbeat", {})).resolves.toHaveProperty("currentTime");
    await next.close({ force: true });
  });

  it("answers actions the core does not record with schema-valid replies, and unknown actions NotImplemented", async () => {
    const s = await aRegisteredStation();
    const charger = await aConnectedCharger(gw, s.station, PASSWORD, "ocpp2.0.1");
    try {
      await expect(
        charger.call("NotifyEvent", {
          generatedAt: new Date().toISOString(),
          seqNo: 0,
          eventData: [
            {
              eventId: 1,
              timestamp: new Date().toISOString(),
              trigger: "Alerting",
              actualValue: "1",
              eventNotificationType: "HardWiredNotification",
              component: { name: "X" },
              variable: { name: "Y" },
            },
          ],
        }),
      ).resolves.toEqual({});
      await expect(
        charger.call("SecurityEventNotification", {
          type: "StartupOfTheDevice",
          timestamp: new Date().toISOString(),
        }),
      ).resolves.toEqual({});
      await expect(
        charger.call("SignCertificate", { csr: "-----BEGIN CERTIFICATE REQUEST-----" }),
      ).resolves.toHaveProperty("status");
      await expect(charger.call("DataTransfer", { vendorId: "acme" })).resolves.toEqual({
        status: "UnknownVendorId",
      });
      const replies: string[] = [];
      charger.on("message", ({ message, outbound }: { message: string; outbound: boolean }) => {
        if (!outbound) replies.push(String(message));
      });
      charger.sendRaw(JSON.stringify([2, "unknown-1", "MakeCoffee", {}]));
      await waitUntil(() => Promise.resolve(replies.some((r) => r.includes("unknown-1"))));
      expect(JSON.parse(replies.find((r) => r.includes("unknown-1"))!)).toEqual([
        4,
        "unknown-1",
        "NotImplemented",
        expect.any(String),
        expect.anything(),
      ]);
    } finally {
      await charger.close({ force: true });
    }
  });

  it("deleting a connected station disconnects it", async () => {
    const s = await aRegisteredStation();
    const charger = await aConnectedCharger(gw, s.station, PASSWORD, "ocpp1.6");
    await waitUntil(async () => (await s.read()).online === true);
    const closed = new Promise((resolve) => charger.once("close", resolve));
    const del = await call("DELETE", `/v1/tenants/${s.tenantId}/stations/${s.station.id}`, {
      key: s.key,
      idempotencyKey: idem(),
    });
    expect(del.status).toBe(200);
    await closed;
    await expect(
      aCharger({
        url: gw.url,
        identity: s.station.name,
        password: PASSWORD,
        protocol: "ocpp1.6",
      }).connect(),
    ).rejects.toThrow();
  });
});
