import { expect, it } from "vitest";
import { call } from "../testing/api";
import { aStationWithPassword, aTenantWithKey } from "../testing/builders";
import { aConnectedCharger } from "../testing/ocpp";
import { aLiveGateway } from "../testing/live-gateway";

const gw = aLiveGateway();

it("records lifetime energy registers beyond 32 bits (a busy DC charger's meter after a few years)", async () => {
  const t = await aTenantWithKey();
  const station = await aStationWithPassword(t, "big-register-pass-1");
  const charger = await aConnectedCharger(gw, station, "big-register-pass-1", "ocpp1.6");
  try {
    const start = 3_000_000_000; // 3,000 MWh, past 2^31 Wh
    const begun = (await charger.call("StartTransaction", {
      connectorId: 1,
      idTag: "BIG",
      meterStart: start,
      timestamp: new Date().toISOString(),
    })) as { transactionId: number };
    await charger.call("MeterValues", {
      connectorId: 1,
      transactionId: begun.transactionId,
      meterValue: [
        { timestamp: new Date().toISOString(), sampledValue: [{ value: String(start + 12_345) }] },
      ],
    });
    await charger.call("StopTransaction", {
      transactionId: begun.transactionId,
      meterStop: start + 20_000,
      timestamp: new Date().toISOString(),
    });
    const tx = await call("GET", `/v1/tenants/${t.tenantId}/transactions/${begun.transactionId}`, {
      key: t.key,
    });
    expect(tx.body).toMatchObject({
      meter_start_wh: start,
      meter_stop_wh: start + 20_000,
      energy_wh: 20_000,
      energy_kwh: "20.000",
    });
  } finally {
    await charger.close({ force: true });
  }
});
