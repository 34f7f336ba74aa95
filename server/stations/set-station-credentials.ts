import { z } from "zod";
import type { DbTx } from "../db";
import { DomainError, notFound } from "../errors";
import { hashPassword } from "../lib/passwords";
import { configuredVerifierKey, stationVerifier } from "../lib/password-verifier";
import type { TenantPrincipal } from "../access/caller";
import { owningGateway } from "../charging/gateways";
import { createOperation } from "../operations/create-operation";
import { requireNotSandboxStation } from "./delete-station";
import {
  stationCredentials,
  stationOnline,
  type CredentialsApplied,
} from "../operations/kinds/station-credentials";

/** OCPP security profile 1/2 passwords: 16 to 40 characters (OCPP 2.0.1 BasicAuthPassword). */
export const credentialsBody = z.strictObject({
  password: z
    .string()
    .min(16, "must be at least 16 characters")
    .max(40, "must be at most 40 characters")
    .regex(/^[\x21-\x7e]+$/, "must be printable ASCII without spaces"),
});

export const CREDENTIAL_CHANGES_PER_HOUR = 5;

/**
 * Sets a station's OCPP connection password, as a `station.credentials` operation (spec section 4,
 * credentials rules): offline → stored for the next connection; connected 2.0.1/2.1 → pushed
 * (`../operations/kinds/station-credentials.ts`) and stored once accepted, needs `stations:admin`;
 * connected 1.6 → rejected `station_online`. At most 5 changes per station per hour.
 */
export async function setStationCredentials({
  db,
  tenantId,
  stationId,
  password,
  principal,
}: {
  db: DbTx;
  tenantId: number;
  stationId: number;
  password: string;
  principal: TenantPrincipal;
}) {
  const station = await db.station.findFirst({ where: { id: stationId, tenantId } });
  if (!station) throw notFound("station");
  await requireNotSandboxStation(db, stationId, "given another password");
  // Serialize changes of one station so the hourly count holds under concurrency.
  await db.$queryRaw`SELECT id FROM stations WHERE id = ${stationId} FOR UPDATE`;
  const recent = await db.operation.count({
    where: {
      stationId,
      scope: "station.credentials",
      status: { in: ["succeeded", "dispatching"] },
      createdAt: { gt: new Date(Date.now() - 3600_000) },
    },
  });
  if (recent >= CREDENTIAL_CHANGES_PER_HOUR) {
    throw new DomainError(
      "credentials_rate_limited",
      `At most ${CREDENTIAL_CHANGES_PER_HOUR} password changes per station per hour.`,
      { limit: CREDENTIAL_CHANGES_PER_HOUR },
      { retryAfterSeconds: 3600 },
    );
  }
  const gateway = await owningGateway(db, stationId);
  const online = gateway !== null;
  if (online && station.protocol !== "ocpp1.6" && !principal.scopes.has("stations:admin")) {
    throw new DomainError(
      "stations_admin_required",
      "Pushing a password to a connected charger needs the stations:admin scope.",
      { required_scopes: ["stations:admin"] },
    );
  }
  const passwordHash = await hashPassword(password);
  const operation = {
    db,
    tenantId,
    stationId,
    apiKeyId: principal.actorId,
    scope: stationCredentials.scope,
    action: "set_password",
    // never the password itself
    request: { password_hash: passwordHash },
  };
  const applied: CredentialsApplied = "stored";
  // The kind's onSettled stores the hash when the operation succeeds, here or once pushed. A
  // stored password gets its keyed verifier at once, so the charger's first connection needs no
  // scrypt (a pushed one gets it at the charger's first connection with it).
  if (!online) {
    const created = await createOperation({
      ...operation,
      outcome: { status: "succeeded", result: { applied } },
    });
    const key = configuredVerifierKey();
    if (key)
      await db.station.updateMany({
        where: { id: stationId, passwordHash },
        data: {
          passwordVerifier: stationVerifier(key, stationId, passwordHash, Buffer.from(password)),
        },
      });
    return created;
  }
  if (station.protocol === "ocpp1.6")
    return createOperation({
      ...operation,
      outcome: { status: "rejected", result: { error: stationOnline() } },
    });
  return createOperation({ ...operation, secret: password });
}
