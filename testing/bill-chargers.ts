import { aBill, aTariff, anAuthorizedPayment, chargingTokenOf } from "./bills";
import { call } from "./api";
import { aRecordingCharger, type Answer } from "./recording-charger";

const PASSWORD = "bills-charger-pass-01";

export type { Received } from "./recording-charger";

/**
 * A recording charger (`aRecordingCharger`), a tariff and a `csms` bill on connector 1 whose card
 * payment is authorized.
 */
export async function aChargerWithBill(options: {
  url: string;
  protocol: "ocpp1.6" | "ocpp2.0.1";
  tariff?: Record<string, unknown>;
  holdMinor?: number;
  answerStart?: Answer;
  answerStop?: Answer;
  answers?: Record<string, Answer>;
}) {
  const t = await aRecordingCharger({ ...options, password: PASSWORD });
  const tariff = await aTariff(t.tenantId, t.key, options.tariff ?? { rate_minor_per_kwh: 35 });
  const bill = await aBill(t.tenantId, t.key, {
    station_id: t.station.id,
    connector_id: t.station.connectors[0]!.id,
    tariff_id: tariff.id,
    source: "csms",
    ...(options.holdMinor ? { hold_minor: options.holdMinor } : {}),
  });
  await anAuthorizedPayment(bill.id);
  const readBill = async () =>
    (await call("GET", `/v1/tenants/${t.tenantId}/bills/${bill.id}`, { key: t.key })).body as {
      status: string;
      transaction_id: number | null;
      [field: string]: unknown;
    };
  return { ...t, bill, token: await chargingTokenOf(bill.id), readBill };
}

/** A charger timestamp, `s` seconds into a fixed session. */
export const at = (s: number) => new Date(Date.UTC(2026, 5, 1, 12, 0, s)).toISOString();

/** One energy register reading (Wh) at `s`; 1.6 sends values as strings, 2.x as numbers. */
export const reading = (s: number, wh: number, protocol: "ocpp1.6" | "ocpp2.0.1" = "ocpp1.6") => ({
  timestamp: at(s),
  sampledValue: [
    {
      value: protocol === "ocpp1.6" ? String(wh) : wh,
      measurand: "Energy.Active.Import.Register",
    },
  ],
});
