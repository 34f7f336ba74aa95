import { db } from "../server/db";
import { call, idem } from "./api";
import { aStation, aTenantWithKey } from "./builders";
import { aConnectedCharger, waitUntil } from "./ocpp";

export type Received = { method: string; params: Record<string, unknown> };
export type Answer = (params: Record<string, unknown>) => Promise<Record<string, unknown>>;

/**
 * A tenant with a two-connector station and a real ocpp-rpc charger (strict mode) connected to
 * the test gateway as that station. The charger records every call the service makes and answers
 * starts as `answerStart` says (default Accepted), stops as `answerStop` says (default Accepted),
 * and (2.x) CostUpdated with its empty answer; `answers` adds or replaces others by action.
 * `reconnect` connects the same charger again (a new socket, the same handlers and record),
 * optionally to another gateway's URL.
 */
export async function aRecordingCharger(options: {
  url: string;
  protocol: "ocpp1.6" | "ocpp2.0.1";
  password: string;
  answerStart?: Answer;
  answerStop?: Answer;
  answers?: Record<string, Answer>;
}) {
  const t = await aTenantWithKey();
  const station = await aStation(t.tenantId, t.key, { connector_count: 2 });
  await call("PUT", `/v1/tenants/${t.tenantId}/stations/${station.id}/credentials`, {
    key: t.key,
    body: { password: options.password },
    idempotencyKey: idem(),
  });
  const received: Received[] = [];
  const accepted: Answer = () => Promise.resolve({ status: "Accepted" });
  const v16 = options.protocol === "ocpp1.6";
  const answers: Record<string, Answer> = {
    [v16 ? "RemoteStartTransaction" : "RequestStartTransaction"]: options.answerStart ?? accepted,
    [v16 ? "RemoteStopTransaction" : "RequestStopTransaction"]: options.answerStop ?? accepted,
    ...(v16 ? {} : { CostUpdated: () => Promise.resolve({}) }),
    ...options.answers,
  };
  const connected = async (url: string) => {
    const charger = await aConnectedCharger(
      { url },
      station,
      options.password,
      options.protocol,
      (charger) => {
        for (const [method, answer] of Object.entries(answers))
          charger.handle(method, ({ params }) => {
            const given = (params ?? {}) as Record<string, unknown>;
            received.push({ method, params: given });
            return answer(given);
          });
      },
    );
    await waitUntil(
      async () =>
        (await db().station.findUniqueOrThrow({ where: { id: station.id } })).gatewayId !== null,
    );
    return charger;
  };
  let charger = await connected(options.url);
  return {
    ...t,
    station,
    charger,
    received,
    calls: (method: string) => received.filter((r) => r.method === method),
    /** a new socket for the same charger (the earlier one closed first); answers the new client */
    reconnect: async (url = options.url) => (charger = await connected(url)),
    close: () => charger.close({ force: true }),
  };
}
