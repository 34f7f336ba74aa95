import { aBill, aTariff, anAuthorizedPayment, chargingTokenOf } from "../server/bills/testing";
import { db } from "../server/db";
import { call, idem } from "../server/testing/api";
import { aStation, aTenantWithKey } from "../server/testing/builders";
import { aCharger, waitUntil } from "./testing";

const PASSWORD = "bills-charger-pass-01";

export type Received = { method: string; params: Record<string, unknown> };
type Answer = (params: Record<string, unknown>) => Promise<Record<string, unknown>>;

/**
 * A tenant with a real ocpp-rpc charger (strict mode) connected to the test gateway, a tariff and
 * a `csms` bill on connector 1 whose card payment is authorized. The charger records every call
 * the service makes and answers starts as `answerStart` says (default Accepted), stops Accepted,
 * CostUpdated with its empty answer.
 */
export async function aChargerWithBill(options: {
  url: string;
  protocol: "ocpp1.6" | "ocpp2.0.1";
  tariff?: Record<string, unknown>;
  holdMinor?: number;
  answerStart?: Answer;
}) {
  const t = await aTenantWithKey();
  const station = await aStation(t.tenantId, t.key, { connector_count: 2 });
  await call("PUT", `/v1/tenants/${t.tenantId}/stations/${station.id}/credentials`, {
    key: t.key,
    body: { password: PASSWORD },
    idempotencyKey: idem(),
  });
  const charger = aCharger({
    url: options.url,
    identity: station.name,
    password: PASSWORD,
    protocol: options.protocol,
  });
  const received: Received[] = [];
  const answering = (method: string, answer: Answer) =>
    charger.handle(method, ({ params }) => {
      const given = (params ?? {}) as Record<string, unknown>;
      received.push({ method, params: given });
      return answer(given);
    });
  const accepted: Answer = () => Promise.resolve({ status: "Accepted" });
  const v16 = options.protocol === "ocpp1.6";
  answering(
    v16 ? "RemoteStartTransaction" : "RequestStartTransaction",
    options.answerStart ?? accepted,
  );
  answering(v16 ? "RemoteStopTransaction" : "RequestStopTransaction", accepted);
  if (!v16) answering("CostUpdated", () => Promise.resolve({}));
  await charger.connect();
  await waitUntil(
    async () =>
      (await db().station.findUniqueOrThrow({ where: { id: station.id } })).gatewayId !== null,
  );
  const tariff = await aTariff(t.tenantId, t.key, options.tariff ?? { rate_minor_per_kwh: 35 });
  const bill = await aBill(t.tenantId, t.key, {
    station_id: station.id,
    connector_id: station.connectors[0]!.id,
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
  return {
    ...t,
    station,
    charger,
    received,
    bill,
    token: await chargingTokenOf(bill.id),
    readBill,
    calls: (method: string) => received.filter((r) => r.method === method),
    close: () => charger.close({ force: true }),
  };
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
