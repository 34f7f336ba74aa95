import { db } from "../server/db";
import { createApiKey } from "../server/keys/create-api-key";
import { PROJECT_SCOPES, type Scope } from "../server/access/scopes";
import { call, idem } from "./api";

let n = 0;

/** A team with an owner, a tenant in it, and a key for that tenant owned by the owner. */
export async function aTenantWithKey(options: { scopes?: Scope[] } = {}) {
  n += 1;
  const stamp = `${process.pid}-${n}-${Date.now()}`;
  const owner = await db().user.create({ data: { email: `owner-${stamp}@example.test` } });
  const team = await db().team.create({
    data: { name: `Team ${stamp}`, members: { create: { userId: owner.id, role: "owner" } } },
  });
  const tenant = await db().tenant.create({ data: { teamId: team.id, name: `Project ${n}` } });
  const key = await createApiKey({
    tenantId: tenant.id,
    ownerUserId: owner.id,
    scopes: options.scopes ?? [...PROJECT_SCOPES],
  });
  return {
    teamId: team.id,
    tenantId: tenant.id,
    ownerUserId: owner.id,
    key: key.secret,
    keyId: key.id,
  };
}

/** Another key for a tenant, owned by its team's first owner. */
export async function anotherKey(tenantId: number, scopes: Scope[]) {
  const tenant = await db().tenant.findUniqueOrThrow({ where: { id: tenantId } });
  const owner = await db().teamMember.findFirstOrThrow({
    where: { teamId: tenant.teamId, role: "owner" },
  });
  const key = await createApiKey({ tenantId, ownerUserId: owner.userId, scopes });
  return key.secret;
}

export const aLocationBody = (overrides: Record<string, unknown> = {}) => ({
  name: "Depot",
  address: { street: "1 Main St", city: "Springfield", postal_code: "12345", country: "US" },
  coordinates: { latitude: 40.7128, longitude: -74.006 },
  time_zone: "America/New_York",
  ...overrides,
});

export async function aLocation(
  tenantId: number,
  key: string,
  overrides: Record<string, unknown> = {},
) {
  const res = await call("POST", `/v1/tenants/${tenantId}/locations`, {
    key,
    body: aLocationBody(overrides),
    idempotencyKey: idem(),
  });
  if (res.status !== 201) throw new Error(`location create failed: ${JSON.stringify(res.body)}`);
  return res.body as { id: number };
}

let stationCounter = 0;
export const uniqueStationName = (prefix = "ST") =>
  `${prefix}-${process.pid}-${Date.now().toString(36)}-${++stationCounter}`.slice(0, 36);

export async function aStation(
  tenantId: number,
  key: string,
  overrides: Record<string, unknown> = {},
) {
  const location = overrides.location_id
    ? { id: overrides.location_id as number }
    : await aLocation(tenantId, key);
  const res = await call("POST", `/v1/tenants/${tenantId}/stations`, {
    key,
    body: { name: uniqueStationName(), location_id: location.id, connector_count: 2, ...overrides },
    idempotencyKey: idem(),
  });
  if (res.status !== 201) throw new Error(`station create failed: ${JSON.stringify(res.body)}`);
  return res.body as { id: number; name: string; connectors: { id: number }[] };
}

/**
 * A station with a charger password stored through the API (the station is offline, so the
 * credentials operation stores it at once, with its keyed verifier).
 */
export async function aStationWithPassword(
  tenant: { tenantId: number; key: string },
  password: string,
  overrides: Record<string, unknown> = {},
) {
  const station = await aStation(tenant.tenantId, tenant.key, { connector_count: 1, ...overrides });
  const res = await call(
    "PUT",
    `/v1/tenants/${tenant.tenantId}/stations/${station.id}/credentials`,
    { key: tenant.key, body: { password }, idempotencyKey: idem() },
  );
  const body = res.body as { status?: string; result?: { applied?: string } };
  if (res.status !== 202 || body.status !== "succeeded" || body.result?.applied !== "stored")
    throw new Error(`storing the station's password failed: ${JSON.stringify(res.body)}`);
  return station;
}
