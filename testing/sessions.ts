import { aTariff } from "./bills";
import { call, idem } from "./api";
import { aStation, aTenantWithKey } from "./builders";

/** A project with a two-connector station and a simple 35 c/kWh tariff; `base` names them. */
export async function aSessionProject() {
  const t = await aTenantWithKey();
  const station = await aStation(t.tenantId, t.key, { connector_count: 2 });
  const tariff = await aTariff(t.tenantId, t.key, { rate_minor_per_kwh: 35 });
  const base = {
    station_id: station.id,
    connector_id: station.connectors[0]!.id,
    tariff_id: tariff.id,
  };
  return { ...t, station, tariff, base };
}

export const sessionsPath = (tenantId: number) => `/v1/tenants/${tenantId}/charging-sessions`;

/** Creates a session through /v1 and returns the answer. */
export function createSession(tenantId: number, key: string, body: Record<string, unknown>) {
  return call("POST", sessionsPath(tenantId), { key, body, idempotencyKey: idem() });
}

/** A session made through /v1; throws unless it was created. */
export async function aSession(tenantId: number, key: string, body: Record<string, unknown>) {
  const res = await createSession(tenantId, key, body);
  if (res.status !== 201) throw new Error(`session create failed: ${JSON.stringify(res.body)}`);
  return res.body as { id: string; bill_id: string; status: string };
}

/** POST …/charging-sessions/{id}/<verb> with a fresh key unless one is given. */
export const sessionVerb = (
  tenantId: number,
  key: string,
  sessionId: string,
  verb: "start" | "stop" | "finalize" | "cancel" | "settlement-reports",
  body?: unknown,
  idempotencyKey = idem(),
) =>
  call("POST", `${sessionsPath(tenantId)}/${sessionId}/${verb}`, {
    key,
    ...(body === undefined ? {} : { body }),
    idempotencyKey,
  });

export const readSession = async (tenantId: number, key: string, sessionId: string) =>
  (await call("GET", `${sessionsPath(tenantId)}/${sessionId}`, { key })).body as {
    status: string;
    [field: string]: unknown;
  };

type StatusEvent = { resource_id: string; data: { previous_status: string; status: string } };

/** The tenant's `charging_session.status_changed` events, as [previous, status] pairs, in order. */
export async function statusMoves(tenantId: number, key: string, sessionId: string) {
  const res = await call(
    "GET",
    `/v1/tenants/${tenantId}/events?limit=100&type=charging_session.status_changed`,
    { key },
  );
  const events = (res.body as { data: StatusEvent[] }).data;
  return events
    .filter((e) => e.resource_id === sessionId)
    .map((e) => [e.data.previous_status, e.data.status]);
}
