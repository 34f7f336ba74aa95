import { db as defaultDb, type DbTx } from "../db";
import { DomainError } from "../errors";
import { isUniqueViolation } from "../lib/unique-violation";
import type { CreateLocationInput } from "./location-schema";
import { presentLocation } from "./present-location";

export type CreateLocationOptions = { tenantId: number; input: CreateLocationInput; db?: DbTx };

export async function createLocation({ tenantId, input, db = defaultDb() }: CreateLocationOptions) {
  if (input.external_reference !== undefined) {
    const taken = await db.location.findFirst({
      where: { tenantId, externalReference: input.external_reference },
      select: { id: true },
    });
    if (taken) throw externalReferenceTaken(input.external_reference);
  }
  try {
    const row = await db.location.create({
      data: {
        tenantId,
        name: input.name,
        address: input.address,
        latitude: input.coordinates.latitude,
        longitude: input.coordinates.longitude,
        timeZone: input.time_zone,
        externalReference: input.external_reference ?? null,
      },
    });
    return presentLocation(row);
  } catch (error) {
    if (isUniqueViolation(error, "external_reference"))
      throw externalReferenceTaken(input.external_reference);
    throw error;
  }
}

export const externalReferenceTaken = (value: string | undefined) =>
  new DomainError(
    "external_reference_taken",
    "Another resource of this tenant already has this external_reference.",
    {
      field: "external_reference",
      value,
    },
  );
