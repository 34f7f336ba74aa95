import { describe, expect, it } from "vitest";
import { db } from "../server/db";
import { aStationWithPassword, aTenantWithKey } from "../testing/builders";
import { PROTOCOLS, type Protocol } from "./protocol/validators";
import { aCharger, aRawCharger } from "../testing/ocpp";
import { aLiveGateway } from "../testing/live-gateway";

const gw = aLiveGateway();

const PASSWORD = "bad-input-password-01";

async function aStationFor(protocol: Protocol) {
  const t = await aTenantWithKey();
  const station = await aStationWithPassword(t, PASSWORD);
  const options = { url: gw.url, identity: station.name, password: PASSWORD, protocol };
  const recorded = async () => ({
    transactions: await db().transaction.count({ where: { stationId: station.id } }),
    messages: await db().chargerMessage.count({ where: { stationId: station.id } }),
    // what the charger's messages could have logged (not the API's own events, not connecting)
    events: await db().event.count({
      where: {
        stationId: station.id,
        NOT: {
          type: { in: ["station.connected", "station.credentials_changed", "operation.completed"] },
        },
      },
    }),
  });
  const nothing = { transactions: 0, messages: 0, events: 0 };
  return { ...t, station, options, recorded, nothing };
}

/** The CALLERROR code a call was answered with (ocpp-rpc keeps the wire's spelling). */
async function codeOf(promise: Promise<unknown>): Promise<string> {
  try {
    await promise;
  } catch (error) {
    const code = (error as { rpcErrorCode?: string }).rpcErrorCode;
    if (code) return code;
    throw error;
  }
  throw new Error("expected a CALLERROR");
}

const at = () => new Date().toISOString();

describe.each(PROTOCOLS)("an %s charger's bad input", (protocol) => {
  const v16 = protocol === "ocpp1.6";
  /** The error codes as this protocol names them. */
  const words = v16
    ? {
        format: "FormationViolation",
        framework: "FormationViolation",
        messageType: "FormationViolation",
        occurrence: "OccurenceConstraintViolation",
      }
    : {
        format: "FormatViolation",
        framework: "RpcFrameworkError",
        messageType: "MessageTypeNotSupported",
        occurrence: "OccurrenceConstraintViolation",
      };
  const bootWithVendor = (vendor: string) =>
    v16
      ? { chargePointVendor: vendor, chargePointModel: "X1" }
      : { reason: "PowerUp", chargingStation: { vendorName: vendor, model: "X1" } };
  const startOn = (connector: number, transactionId = `tx-${connector}`) =>
    v16
      ? [
          "StartTransaction",
          { connectorId: connector, idTag: "T1", meterStart: 0, timestamp: at() },
        ]
      : [
          "TransactionEvent",
          {
            eventType: "Started",
            timestamp: at(),
            triggerReason: "Authorized",
            seqNo: 0,
            transactionInfo: { transactionId },
            evse: { id: connector, connectorId: 1 },
          },
        ];

  it("a transaction on a connector the station lacks is refused with PropertyConstraintViolation; nothing is recorded; the connection stays", async () => {
    const s = await aStationFor(protocol);
    const charger = aCharger(s.options);
    await charger.connect();
    try {
      for (const connector of [2, 0, 7]) {
        const [action, payload] = startOn(connector);
        expect(await codeOf(charger.call(action as string, payload))).toBe(
          "PropertyConstraintViolation",
        );
      }
      expect(await s.recorded()).toEqual(s.nothing);
      await expect(charger.call("Heartbeat", {})).resolves.toHaveProperty("currentTime");
      // the station's real connector still starts one
      const [action, payload] = startOn(1);
      await charger.call(action, payload);
      const recorded = await db().transaction.findMany({ where: { stationId: s.station.id } });
      expect(recorded).toHaveLength(1);
      expect(recorded[0]!.connectorId).toBe(s.station.connectors[0]!.id);
    } finally {
      await charger.close({ force: true });
    }
  });

  it("values the database cannot hold (NUL, a lone surrogate, an integer past int4) are refused with PropertyConstraintViolation before anything is recorded", async () => {
    const s = await aStationFor(protocol);
    const charger = aCharger(s.options);
    await charger.connect();
    try {
      const refusals = [
        ["BootNotification", bootWithVendor("Acme\u0000Inc")],
        ["BootNotification", bootWithVendor("Acme\ud800")],
        v16
          ? [
              "StatusNotification",
              { connectorId: 99999999999, errorCode: "NoError", status: "Available" },
            ]
          : [
              "StatusNotification",
              {
                timestamp: at(),
                connectorStatus: "Available",
                evseId: 99999999999,
                connectorId: 1,
              },
            ],
        startOn(2 ** 31),
      ];
      for (const [action, payload] of refusals)
        expect(await codeOf(charger.call(action as string, payload))).toBe(
          "PropertyConstraintViolation",
        );
      expect(await s.recorded()).toEqual(s.nothing);
      const station = await db().station.findUniqueOrThrow({ where: { id: s.station.id } });
      expect(station.bootVendor).toBeNull();
      await expect(charger.call("Heartbeat", {})).resolves.toHaveProperty("currentTime");
    } finally {
      await charger.close({ force: true });
    }
  });

  it("a value the database itself refuses (energy past int4) is a PropertyConstraintViolation, not InternalError", async () => {
    const s = await aStationFor(protocol);
    const charger = aCharger(s.options);
    await charger.connect();
    try {
      const [action, payload] = startOn(1, "tx-huge");
      const started = (await charger.call(action, payload)) as { transactionId?: number };
      const huge = 3_000_000_000; // Wh delivered in one transaction: more than int4 holds
      const refused = v16
        ? charger.call("StopTransaction", {
            transactionId: started.transactionId,
            meterStop: huge,
            timestamp: at(),
          })
        : charger.call("TransactionEvent", {
            eventType: "Updated",
            timestamp: at(),
            triggerReason: "MeterValuePeriodic",
            seqNo: 1,
            transactionInfo: { transactionId: "tx-huge" },
            meterValue: [
              { timestamp: at(), sampledValue: [{ value: 0, context: "Transaction.Begin" }] },
              { timestamp: at(), sampledValue: [{ value: huge, context: "Sample.Periodic" }] },
            ],
          });
      expect(await codeOf(refused)).toBe("PropertyConstraintViolation");
      const transaction = await db().transaction.findFirstOrThrow({
        where: { stationId: s.station.id },
      });
      expect(transaction.endedAt).toBeNull();
      expect(transaction.energyWh).toBe(0);
      await expect(charger.call("Heartbeat", {})).resolves.toHaveProperty("currentTime");
    } finally {
      await charger.close({ force: true });
    }
  });

  it("malformed frames get CALLERRORs in the protocol's words and the socket stays open: 10,000 nested arrays, a 37-character message ID, not JSON, an unknown message type, schema errors", async () => {
    const s = await aStationFor(protocol);
    const raw = await aRawCharger(s.options);
    try {
      const deep = "[".repeat(10_000) + "]".repeat(10_000);
      const [startAction, startPayload] = startOn(1);
      const longId = "x".repeat(37);
      const cases: [frame: string, id: string, code: string][] = [
        [`[2,"deep-1","Heartbeat",${deep}]`, "deep-1", words.format],
        [`[2,"deep-2","DataTransfer",{"vendorId":"acme","data":${deep}}]`, "deep-2", words.format],
        [JSON.stringify([2, longId, startAction, startPayload]), longId, words.framework],
        ["this is not json", "-1", words.framework],
        [JSON.stringify([7, "type-7", "Heartbeat", {}]), "type-7", words.messageType],
        [JSON.stringify([2, "occurs-1", "Authorize", {}]), "occurs-1", words.occurrence],
        [
          JSON.stringify([2, "format-1", "BootNotification", bootWithVendor("v".repeat(100))]),
          "format-1",
          words.format,
        ],
      ];
      for (const [frame, id, code] of cases) {
        const answer = await raw.exchange(frame, id);
        expect({ frame: frame.slice(0, 40), answer: answer.slice(0, 3) }).toEqual({
          frame: frame.slice(0, 40),
          answer: [4, id, code],
        });
        expect(raw.isOpen()).toBe(true);
      }
      // 36 characters is the limit, not over it
      const id36 = "y".repeat(36);
      expect(await raw.exchange(JSON.stringify([2, id36, "Heartbeat", {}]), id36)).toMatchObject([
        3,
        id36,
        { currentTime: expect.any(String) },
      ]);
      expect(await s.recorded()).toEqual(s.nothing);
    } finally {
      raw.close();
    }
  });
});
