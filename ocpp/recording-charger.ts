import { db } from "../server/db";
import { call, idem } from "../server/testing/api";
import { aStation, aTenantWithKey } from "../server/testing/builders";
import { aCharger, waitUntil } from "./testing";

export type Received = { method: string; params: Record<string, unknown> };
export type Answer = (params: Record<string, unknown>) => Promise<Record<string, unknown>>;

/**
 * A tenant with a two-connector station and a real ocpp-rpc charger (strict mode) connected to
 * the test gateway as that station. The charger records every call the service makes and answers
 * starts as `answerStart` says (default Accepted), stops Accepted, and (2.x) CostUpdated with its
 * empty answer.
 */
export async function aRecordingCharger(options: {
  url: string;
  protocol: "ocpp1.6" | "ocpp2.0.1";
  password: string;
  answerStart?: Answer;
}) {
  const t = await aTenantWithKey();
  const station = await aStation(t.tenantId, t.key, { connector_count: 2 });
  await call("PUT", `/v1/tenants/${t.tenantId}/stations/${station.id}/credentials`, {
    key: t.key,
    body: { password: options.password },
    idempotencyKey: idem(),
  });
  const charger = aCharger({
    url: options.url,
    identity: station.name,
    password: options.password,
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
  return {
    ...t,
    station,
    charger,
    received,
    calls: (method: string) => received.filter((r) => r.method === method),
    close: () => charger.close({ force: true }),
  };
}
