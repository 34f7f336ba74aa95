import { db as defaultDb, type DbTx } from "../db";
import { DomainError } from "../errors";
import { isUniqueViolation } from "../lib/unique-violation";
import { externalReferenceTaken } from "../locations/create-location";
import { requireTenantNotSuspended } from "../team-billing/standing";
import { readyDomainBase } from "../ocpp-domains/ready-domain";
import { presentStation, stationInclude } from "./present-station";
import { loadChargerUrls } from "./charger-urls";
import type { RegisterStationInput } from "./station-schema";

export type RegisterStationOptions = { tenantId: number; input: RegisterStationInput; db?: DbTx };

export const stationNameTaken = (name: string) =>
  new DomainError("station_name_taken", "A station with this name is already registered.", {
    field: "name",
    value: name,
  });

export const locationNotFound = (id: number) =>
  new DomainError("location_not_found", "location_id names no location of this tenant.", {
    fields: [{ field: "location_id", message: "names no location of this tenant" }],
    location_id: id,
  });

/**
 * Registers a station with one EVSE per connector (EVSE n holds connector n). Names are globally
 * unique regardless of case, because they are the chargers' connection identities.
 */
export async function registerStation({
  tenantId,
  input,
  db = defaultDb(),
}: RegisterStationOptions) {
  const location = await db.location.findFirst({
    where: { id: input.location_id, tenantId },
    select: { id: true },
  });
  if (!location) throw locationNotFound(input.location_id);
  // a new charger is a new cost: refused while the team's billing is suspended (402)
  await requireTenantNotSuspended(db, tenantId);
  const nameKey = input.name.toLowerCase();
  if (await db.station.findUnique({ where: { nameKey }, select: { id: true } }))
    throw stationNameTaken(input.name);
  if (input.external_reference !== undefined) {
    const taken = await db.station.findFirst({
      where: { tenantId, externalReference: input.external_reference },
      select: { id: true },
    });
    if (taken) throw externalReferenceTaken(input.external_reference);
  }
  try {
    const station = await db.station.create({
      data: {
        tenantId,
        locationId: input.location_id,
        name: input.name,
        nameKey,
        externalReference: input.external_reference ?? null,
        serial: input.serial ?? null,
      },
    });
    for (let n = 1; n <= input.connector_count; n++) {
      await db.evse.create({
        data: {
          tenantId,
          stationId: station.id,
          evseNumber: n,
          connectors: {
            create: { tenantId, stationId: station.id, connectorNumber: n, evseConnectorNumber: 1 },
          },
        },
      });
    }
    const row = await db.station.findUniqueOrThrow({
      where: { id: station.id },
      include: stationInclude,
    });
    return presentStation(
      row,
      [],
      await loadChargerUrls(db, tenantId),
      await readyDomainBase(db, tenantId),
    );
  } catch (error) {
    if (isUniqueViolation(error, "name_key")) throw stationNameTaken(input.name);
    if (isUniqueViolation(error, "external_reference"))
      throw externalReferenceTaken(input.external_reference);
    throw error;
  }
}
