import { describe, expect, it } from "vitest";
import { db } from "../server/db";
import { call } from "../testing/api";
import { aStationWithPassword, aTenantWithKey } from "../testing/builders";
import { aConnectedCharger } from "../testing/ocpp";
import { aLiveGateway } from "../testing/live-gateway";

const gw = aLiveGateway();

const PASSWORD = "exponent-pass-0001";

async function aChargerRecordingFrames(protocol: "ocpp1.6" | "ocpp2.0.1") {
  const t = await aTenantWithKey();
  const station = await aStationWithPassword(t, PASSWORD);
  // every frame the charger sends, as text: the exponent forms must really be on the wire
  const sent: string[] = [];
  const charger = await aConnectedCharger(gw, station, PASSWORD, protocol, (charger) => {
    charger.on("message", ({ message, outbound }: { message: string; outbound: boolean }) => {
      if (outbound) sent.push(String(message));
    });
  });
  return { t, station, charger, sent };
}

/** The stored samples of a transaction, oldest first, as the API's decimal strings. */
async function samplesOf(transactionId: number) {
  const rows = await db().meterSample.findMany({
    where: { transactionId },
    orderBy: { sampledAt: "asc" },
  });
  return rows.map((r) => ({
    energy_wh: r.energyWh === null ? null : Number(r.energyWh),
    power_kw: r.powerKw,
    current_a: r.currentA,
    voltage_v: r.voltageV,
    soc_percent: r.socPercent,
  }));
}

const at = (s: number) => new Date(Date.now() - 60_000 + s * 1000).toISOString();

/**
 * Readings in exponent notation (OCPP 1.6 `value` is a decimal string, 2.x a JSON number that
 * JSON writes as 5.960464477539063e-8 or 1e+21) are read exactly and rounded once to the three
 * decimals kept (server/charger-reports/meter-values.ts): a current of 6e-8 A is "0.000"; a reading of
 * 10^15 or more in its unit is unreadable (null). The message is answered and recorded either way.
 */
describe("meter readings in exponent notation, from strict chargers", () => {
  it("1.6: decimal strings with exponents", async () => {
    const { t, charger } = await aChargerRecordingFrames("ocpp1.6");
    try {
      const started = (await charger.call("StartTransaction", {
        connectorId: 1,
        idTag: "EXP",
        meterStart: 10_000,
        timestamp: at(0),
      })) as { transactionId: number };
      const reading = (s: number, energy: string) => ({
        connectorId: 1,
        transactionId: started.transactionId,
        meterValue: [
          {
            timestamp: at(s),
            sampledValue: [
              { value: energy, context: "Sample.Periodic" },
              { value: "5.960464477539063e-8", measurand: "Current.Import", unit: "A" },
              { value: "7.2e3", measurand: "Power.Active.Import", unit: "W" },
              { value: "2.30E+2", measurand: "Voltage", unit: "V" },
              { value: "1e-300", measurand: "SoC", unit: "Percent" },
            ],
          },
        ],
      });
      expect(await charger.call("MeterValues", reading(10, "1.2345E4"))).toEqual({});
      expect(await charger.call("MeterValues", reading(20, "1e21"))).toEqual({});
      expect(await samplesOf(started.transactionId)).toEqual([
        {
          energy_wh: 12_345,
          power_kw: "7.200",
          current_a: "0.000",
          voltage_v: "230.000",
          soc_percent: "0.000",
        },
        {
          energy_wh: null, // 10^21 Wh: unreadable, the rest of the sample kept
          power_kw: "7.200",
          current_a: "0.000",
          voltage_v: "230.000",
          soc_percent: "0.000",
        },
      ]);
      const tx = await call(
        "GET",
        `/v1/tenants/${t.tenantId}/transactions/${started.transactionId}`,
        {
          key: t.key,
        },
      );
      expect(tx.body).toMatchObject({ status: "active", energy_wh: 2_345, energy_kwh: "2.345" });
    } finally {
      await charger.close({ force: true });
    }
  });

  it("2.0.1: JSON numbers written in exponent form", async () => {
    const { t, station, charger, sent } = await aChargerRecordingFrames("ocpp2.0.1");
    try {
      const reference = `exp-${station.id}`;
      const meterValue = (s: number, context: string) => [
        {
          timestamp: at(s),
          sampledValue: [
            // 1.2345e-7 × 10^11 Wh = 12,345 Wh, 1.0000e-7 × 10^11 = 10,000 Wh
            {
              value: s === 0 ? 1e-7 : 1.2345e-7,
              context,
              measurand: "Energy.Active.Import.Register",
              unitOfMeasure: { unit: "Wh", multiplier: 11 },
            },
            { value: 5.960464477539063e-8, context, measurand: "Current.Import" },
            { value: 1e21, context, measurand: "Power.Active.Import" },
            { value: 1e-300, context, measurand: "SoC", unitOfMeasure: { unit: "Percent" } },
          ],
        },
      ];
      const base = {
        transactionInfo: { transactionId: reference },
        evse: { id: 1, connectorId: 1 },
      };
      expect(
        await charger.call("TransactionEvent", {
          ...base,
          eventType: "Started",
          timestamp: at(0),
          triggerReason: "Authorized",
          seqNo: 0,
          idToken: { idToken: "EXP", type: "ISO14443" },
          meterValue: meterValue(0, "Transaction.Begin"),
        }),
      ).toMatchObject({});
      await charger.call("TransactionEvent", {
        ...base,
        eventType: "Updated",
        timestamp: at(10),
        triggerReason: "MeterValuePeriodic",
        seqNo: 1,
        meterValue: meterValue(10, "Sample.Periodic"),
      });
      const wire = sent.join("\n");
      for (const form of ["1e-7", "1.2345e-7", "5.960464477539063e-8", "1e+21", "1e-300"])
        expect(wire).toContain(form);
      const tx = await db().transaction.findUniqueOrThrow({
        where: { stationId_reference: { stationId: station.id, reference } },
      });
      expect(await samplesOf(tx.id)).toEqual([
        {
          energy_wh: 10_000,
          power_kw: null, // 10^21 W is 10^18 kW: unreadable
          current_a: "0.000",
          voltage_v: null,
          soc_percent: "0.000",
        },
        {
          energy_wh: 12_345,
          power_kw: null,
          current_a: "0.000",
          voltage_v: null,
          soc_percent: "0.000",
        },
      ]);
      const api = await call("GET", `/v1/tenants/${t.tenantId}/transactions/${tx.id}`, {
        key: t.key,
      });
      expect(api.body).toMatchObject({ meter_start_wh: 10_000, energy_wh: 2_345 });
    } finally {
      await charger.close({ force: true });
    }
  });
});
