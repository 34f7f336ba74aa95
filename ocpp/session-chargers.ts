import { aTariff, chargingTokenOf } from "../server/bills/testing";
import { db } from "../server/db";
import { call, idem } from "../server/testing/api";
import { aStation, aTenantWithKey } from "../server/testing/builders";
import { aSession, readSession } from "../server/sessions/testing";
import type { Received } from "./bill-chargers";
import { aCharger, waitUntil } from "./testing";

const PASSWORD = "sessions-charger-pass-1";
type Answer = (params: Record<string, unknown>) => Promise<Record<string, unknown>>;

/**
 * A tenant with a real ocpp-rpc charger (strict mode) connected to the test gateway, a tariff
 * and a `csms` external session on connector 1. The charger records every call the service makes
 * and answers starts as `answerStart` says (default Accepted), stops Accepted.
 */
export async function aChargerWithSession(options: {
  url: string;
  protocol: "ocpp1.6" | "ocpp2.0.1";
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
  const tariff = await aTariff(t.tenantId, t.key, { rate_minor_per_kwh: 35 });
  const session = await aSession(t.tenantId, t.key, {
    station_id: station.id,
    connector_id: station.connectors[0]!.id,
    tariff_id: tariff.id,
    source: "csms",
    application_reference: "booking-1",
  });
  return {
    ...t,
    station,
    charger,
    received,
    session,
    token: await chargingTokenOf(session.bill_id),
    read: () => readSession(t.tenantId, t.key, session.id),
    calls: (method: string) => received.filter((r) => r.method === method),
    close: () => charger.close({ force: true }),
  };
}
