import { z } from "zod";
import type { DbTx } from "../db";
import { DomainError, notFound } from "../errors";
import { appendEvent } from "../events/append-event";
import type { Prisma } from "../generated/prisma/client";
import { newId } from "../lib/ids";
import { hashPassword } from "../lib/passwords";
import type { TenantPrincipal } from "../access/caller";
import { completeOperation } from "../operations/complete-operation";
import { owningGateway } from "../charging/gateways";
import { presentOperation } from "../operations/present-operation";

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
 * Sets a station's OCPP connection password, as an operation (spec section 4, credentials rules):
 * offline → stored for the next connection; connected 2.0.1/2.1 → pushed (SetVariables
 * SecurityCtrlr.BasicAuthPassword) and stored once accepted, needs `stations:admin`; connected 1.6
 * → rejected `station_online`. At most 5 changes per station per hour.
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
  const online = gateway !== null && station.protocol !== null;
  if (online && station.protocol !== "ocpp1.6" && !principal.scopes.has("stations:admin")) {
    throw new DomainError(
      "stations_admin_required",
      "Pushing a password to a connected charger needs the stations:admin scope.",
      { required_scopes: ["stations:admin"] },
    );
  }
  const passwordHash = await hashPassword(password);
  const id = newId("op");
  const base = {
    id,
    tenantId,
    apiKeyId: principal.actorId,
    stationId,
    scope: "station.credentials",
    action: "set_password",
    // never the password itself
    request: { password_hash: passwordHash } as Prisma.InputJsonObject,
  };
  if (online && station.protocol === "ocpp1.6") {
    await db.operation.create({ data: { ...base, status: "dispatching" } });
    return (await completeOperation(db, id, {
      status: "rejected",
      result: {
        error: {
          code: "station_online",
          message: "An OCPP 1.6 station's password can be changed only while it is offline.",
          details: {},
        },
      },
    }))!;
  }
  if (!online) {
    await db.station.update({ where: { id: stationId }, data: { passwordHash } });
    await db.operation.create({ data: { ...base, status: "dispatching" } });
    await appendEvent({
      db,
      tenantId,
      type: "station.credentials_changed",
      resourceId: stationId,
      station: { id: stationId, occurredAt: null },
      data: { station_id: stationId, applied: "stored" },
    });
    return (await completeOperation(db, id, {
      status: "succeeded",
      result: { applied: "stored" },
    }))!;
  }
  const call = {
    action: "SetVariables",
    payload: {
      setVariableData: [
        {
          attributeValue: password,
          component: { name: "SecurityCtrlr" },
          variable: { name: "BasicAuthPassword" },
        },
      ],
    },
  };
  const row = await db.operation.create({
    data: { ...base, status: "dispatching", ocppCall: call },
  });
  await db.$executeRaw`SELECT pg_notify('operations', ${id})`;
  return presentOperation(row);
}

/** After a pushed password is accepted: store its hash (called by the gateway, same transaction as the outcome). */
export async function storePushedPassword(
  db: DbTx,
  operation: { tenantId: number; stationId: number | null; request: unknown },
) {
  const hash = (operation.request as { password_hash?: string }).password_hash;
  if (!operation.stationId || !hash) return;
  await db.station.update({ where: { id: operation.stationId }, data: { passwordHash: hash } });
  await appendEvent({
    db,
    tenantId: operation.tenantId,
    type: "station.credentials_changed",
    resourceId: operation.stationId,
    station: { id: operation.stationId, occurredAt: null },
    data: { station_id: operation.stationId, applied: "pushed" },
  });
}
