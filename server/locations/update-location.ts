import { db as defaultDb, type DbTx } from "../db";
import { notFound } from "../errors";
import { isUniqueViolation } from "../lib/unique-violation";
import { externalReferenceTaken } from "./create-location";
import type { UpdateLocationInput } from "./location-schema";
import { presentLocation } from "./present-location";

export type UpdateLocationOptions = {
  tenantId: number;
  locationId: number;
  input: UpdateLocationInput;
  db?: DbTx;
};

/** Changes the fields given (an address replaced whole); another tenant's location is 404. */
export async function updateLocation({
  tenantId,
  locationId,
  input,
  db = defaultDb(),
}: UpdateLocationOptions) {
  const row = await db.location.findFirst({
    where: { id: locationId, tenantId },
    select: { id: true },
  });
  if (!row) throw notFound("location");
  const ref = input.external_reference;
  if (typeof ref === "string") {
    const taken = await db.location.findFirst({
      where: { tenantId, externalReference: ref, id: { not: locationId } },
      select: { id: true },
    });
    if (taken) throw externalReferenceTaken(ref);
  }
  try {
    const updated = await db.location.update({
      where: { id: locationId },
      data: {
        ...(input.name !== undefined ? { name: input.name } : {}),
        ...(input.address !== undefined ? { address: input.address } : {}),
        ...(input.coordinates !== undefined
          ? { latitude: input.coordinates.latitude, longitude: input.coordinates.longitude }
          : {}),
        ...(input.time_zone !== undefined ? { timeZone: input.time_zone } : {}),
        ...(ref !== undefined ? { externalReference: ref } : {}),
      },
    });
    return presentLocation(updated);
  } catch (error) {
    if (isUniqueViolation(error, "external_reference"))
      throw externalReferenceTaken(ref ?? undefined);
    throw error;
  }
}
