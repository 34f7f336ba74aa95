import type { Db, DbTx } from "../db";
import { inTransaction } from "../db/retry";
import { createLocation } from "../locations/create-location";
import { randomBase62 } from "../lib/ids";
import { hashPassword } from "../lib/passwords";
import { configuredVerifierKey, stationVerifier } from "../lib/password-verifier";
import { seal } from "../lib/secret-box";
import { registerStation } from "../stations/register-station";
import { createTariff } from "../tariffs/manage-tariffs";
import { LATEST_VERSION } from "../versions";

/** What every sandbox has (server/sandbox/README.md, Provisioning). */
export const SANDBOX_LOCATION_REFERENCE = "sandbox-depot";
export const SANDBOX_TARIFF_REFERENCE = "sandbox-default";

/**
 * The sandbox's stations: `sbx-<team id>-<suffix>`. Names are unique across the installation
 * (team ids are), and the `sbx-` prefix is reserved for them (a project's station may not take it).
 * Twelve connectors in all, so a workspace can run ten sessions at once (an AC hub of eight EVSEs,
 * a two-EVSE DC charger, a two-connector 1.6 charger); each EVSE has one connector.
 */
export const SANDBOX_STATIONS = [
  { suffix: "ac1", connectors: 8, protocol: "ocpp2.0.1", nominalPowerW: 22_000, current: "AC" },
  { suffix: "dc1", connectors: 2, protocol: "ocpp2.0.1", nominalPowerW: 50_000, current: "DC" },
  { suffix: "v16", connectors: 2, protocol: "ocpp1.6", nominalPowerW: 11_000, current: "AC" },
] as const;

export const sandboxStationName = (teamId: number, suffix: string) => `sbx-${teamId}-${suffix}`;

/**
 * The default tariff: 35 cents per kWh plus 60 cents per hour of charging (an OCPI `TIME`
 * component), so a final bill's `cost_breakdown` shows energy and time. A session that draws no
 * energy costs nothing (spec 9: under 1 Wh is all waiting and bills no time), so it releases.
 */
export const SANDBOX_TARIFF = {
  name: "Sandbox default",
  external_reference: SANDBOX_TARIFF_REFERENCE,
  time_zone: "America/New_York",
  elements: [
    {
      price_components: [
        { type: "ENERGY", price: 0.35, step_size: 1 },
        { type: "TIME", price: 0.6, step_size: 60 },
      ],
    },
  ],
  tariff_alt_text: [{ language: "en", text: "$0.35 per kWh plus $0.60 per hour of charging" }],
};

const SANDBOX_LOCATION = {
  name: "Sandbox depot",
  address: { street: "1 Sandbox Way", city: "Springfield", postal_code: "12345", country: "US" },
  coordinates: { latitude: 40.7128, longitude: -74.006 },
  time_zone: "America/New_York",
  external_reference: SANDBOX_LOCATION_REFERENCE,
};

/**
 * The team's sandbox tenant row, created when missing, in the caller's transaction: under the
 * team's projects lock (the one project creation takes), so concurrent first uses make one, and
 * its name never collides with a project's (`Sandbox`, or `Sandbox (workspace <id>)` when a
 * project took that name). Held to commit. Returns its id.
 */
export async function ensureSandboxTenant(tx: DbTx, teamId: number): Promise<number> {
  const found = await sandboxTenantOf(tx, teamId);
  if (found !== null) return found;
  await tx.$executeRaw`SELECT pg_advisory_xact_lock(hashtext(${`team-projects:${teamId}`}))`;
  const again = await sandboxTenantOf(tx, teamId);
  if (again !== null) return again;
  const clash = await tx.tenant.findFirst({
    where: { teamId, name: "Sandbox" },
    select: { id: true },
  });
  const tenant = await tx.tenant.create({
    data: { teamId, kind: "sandbox", name: clash ? `Sandbox (workspace ${teamId})` : "Sandbox" },
    select: { id: true },
  });
  return tenant.id;
}

async function sandboxTenantOf(tx: DbTx, teamId: number): Promise<number | null> {
  const row = await tx.tenant.findFirst({
    where: { teamId, kind: "sandbox" },
    select: { id: true },
  });
  return row?.id ?? null;
}

/**
 * The team's sandbox, provisioned on first use: its tenant, one location ("Sandbox depot"), three
 * stations (`SANDBOX_STATIONS`) each with a generated OCPP password (stored as production
 * passwords are: scrypt hash and keyed verifier; and sealed under SECRET_KEY in its
 * `sandbox_chargers` row, for the virtual charger) and the default tariff. One statement when it
 * exists; otherwise one transaction under the team's projects lock, which completes whatever a
 * partial earlier provisioning (or the migration that moved the workspace events) left. Returns the
 * sandbox tenant's id.
 */
export async function ensureSandbox(db: Db, teamId: number): Promise<number> {
  const [ready] = await db.$queryRaw<{ id: number }[]>`
    SELECT t.id FROM tenants t
     WHERE t.team_id = ${teamId} AND t.kind = 'sandbox'
       AND (SELECT count(*) FROM sandbox_chargers c WHERE c.tenant_id = t.id) = ${SANDBOX_STATIONS.length}
       AND EXISTS (SELECT 1 FROM tariffs f WHERE f.tenant_id = t.id
                    AND f.external_reference = ${SANDBOX_TARIFF_REFERENCE})`;
  if (ready) return ready.id;
  // scrypt outside the transaction: three hashes are the slow part
  const passwords = await Promise.all(
    SANDBOX_STATIONS.map(async () => {
      const password = randomBase62(32);
      return { password, hash: await hashPassword(password) };
    }),
  );
  return inTransaction(db, async (tx) => {
    const tenantId = await ensureSandboxTenant(tx, teamId);
    await tx.$executeRaw`SELECT pg_advisory_xact_lock(hashtext(${`team-projects:${teamId}`}))`;
    const location =
      (await tx.location.findFirst({
        where: { tenantId, externalReference: SANDBOX_LOCATION_REFERENCE },
        select: { id: true },
      })) ?? (await createLocation({ tenantId, input: SANDBOX_LOCATION, db: tx }));
    const tariff = await tx.tariff.findFirst({
      where: { tenantId, externalReference: SANDBOX_TARIFF_REFERENCE },
      select: { id: true },
    });
    if (!tariff)
      await createTariff({ tenantId, body: SANDBOX_TARIFF, version: LATEST_VERSION, db: tx });
    const existing = await tx.sandboxCharger.findMany({
      where: { tenantId },
      select: { stationId: true },
    });
    const have = new Set(
      (
        await tx.station.findMany({
          where: { id: { in: existing.map((c) => c.stationId) } },
          select: { name: true },
        })
      ).map((s) => s.name),
    );
    const key = configuredVerifierKey();
    for (const [i, spec] of SANDBOX_STATIONS.entries()) {
      const name = await freeName(tx, sandboxStationName(teamId, spec.suffix), have);
      if (name === null) continue;
      const { password, hash } = passwords[i]!;
      const station = await registerStation({
        tenantId,
        input: { name, location_id: location.id, connector_count: spec.connectors },
        db: tx,
      });
      await tx.station.update({
        where: { id: station.id },
        data: {
          passwordHash: hash,
          passwordVerifier: key
            ? stationVerifier(key, station.id, hash, Buffer.from(password))
            : null,
        },
      });
      await tx.sandboxCharger.create({
        data: {
          stationId: station.id,
          tenantId,
          passwordSealed: seal(password),
          nominalPowerW: spec.nominalPowerW,
          protocol: spec.protocol,
        },
      });
    }
    return tenantId;
  });
}

/**
 * The station name to register, or null when the sandbox already has that station. A name a
 * station outside this sandbox holds (registered before `sbx-` was reserved) gets a suffix.
 */
async function freeName(tx: DbTx, wanted: string, have: Set<string>): Promise<string | null> {
  if (have.has(wanted) || [...have].some((n) => n.startsWith(`${wanted}-`))) return null;
  let name = wanted;
  while (
    await tx.station.findUnique({ where: { nameKey: name.toLowerCase() }, select: { id: true } })
  )
    name = `${wanted}-${randomBase62(4).toLowerCase()}`;
  return name;
}
