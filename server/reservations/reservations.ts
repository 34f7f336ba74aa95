import type { TenantPrincipal } from "../access/caller";
import type { ChargerContext } from "../charging/connections";
import type { Db, DbTx } from "../db";
import { lockStation } from "../db/locks";
import { inTransaction } from "../db/retry";
import { appendEvent } from "../events/append-event";
import { DomainError, fieldError, notFound } from "../errors";
import type { Connector, Evse, Reservation } from "../generated/prisma/client";
import { createOperation } from "../operations/create-operation";
import {
  OPEN_RESERVATION_STATUSES,
  type CreateReservationInput,
  type ReservationResource,
  type ReservationStatus,
} from "./reservation-schema";

export type ReservationRow = Reservation & { connector: Connector & { evse: Evse } };

/** The longest a reservation may be asked for. */
export const MAX_RESERVATION_MS = 7 * 86_400_000;

export function presentReservation(r: ReservationRow): ReservationResource {
  return {
    id: r.id,
    station_id: r.stationId,
    connector_id: r.connectorId,
    evse_number: r.connector.evse.evseNumber,
    connector_number: r.connector.connectorNumber,
    token: r.token,
    connector_type: r.connectorType,
    expires_at: r.expiresAt.toISOString(),
    status: r.status as ReservationStatus,
    reserve_operation_id: r.reserveOperationId,
    cancel_operation_id: r.cancelOperationId,
    transaction_id: r.transactionId,
    accepted_at: r.acceptedAt?.toISOString() ?? null,
    ended_at: r.endedAt?.toISOString() ?? null,
    created_at: r.createdAt.toISOString(),
  };
}

const withConnector = { connector: { include: { evse: true } } } as const;

/**
 * Moves a reservation to `status` (only from an open one, `requested` or `accepted`, unless
 * `from` says otherwise) and appends `reservation.status_changed`; nothing when it is not in a
 * state it may leave that way (an answer after expiry, a second use). Locks: the caller holds the
 * station row (a charger message's transaction, an operation's completion, the sweep).
 */
export async function setReservationStatus(
  tx: DbTx,
  reservationId: number,
  status: ReservationStatus,
  extra: { transactionId?: number; at?: Date; from?: readonly ReservationStatus[] } = {},
): Promise<ReservationRow | null> {
  const at = extra.at ?? new Date();
  const current = await tx.reservation.findUnique({ where: { id: reservationId } });
  const from = extra.from ?? OPEN_RESERVATION_STATUSES;
  if (!current || !from.includes(current.status as ReservationStatus)) return null;
  if (current.status === status) return null;
  const open = OPEN_RESERVATION_STATUSES.includes(status);
  const row = await tx.reservation.update({
    where: { id: reservationId },
    data: {
      status,
      ...(status === "accepted" ? { acceptedAt: at } : {}),
      ...(!open ? { endedAt: at } : {}),
      ...(extra.transactionId !== undefined ? { transactionId: extra.transactionId } : {}),
    },
    include: withConnector,
  });
  await appendEvent({
    db: tx,
    tenantId: row.tenantId,
    type: "reservation.status_changed",
    resourceId: row.id,
    station: { id: row.stationId, occurredAt: null },
    data: {
      reservation_id: row.id,
      station_id: row.stationId,
      connector_id: row.connectorId,
      status,
      previous_status: current.status,
      reservation: presentReservation(row),
    },
  });
  return row;
}

/**
 * Reserves a connector for a token until `expires_at`, as a `station.reservation` operation
 * (`./operation-kinds/reserve.ts`): the reservation is written `requested` in the request's
 * transaction and follows the charger's answer. One open reservation per connector (409
 * `connector_reserved`).
 */
export async function createReservation({
  db,
  tenantId,
  stationId,
  input,
  principal,
  now = new Date(),
}: {
  db: DbTx;
  tenantId: number;
  stationId: number;
  input: CreateReservationInput;
  principal: TenantPrincipal;
  now?: Date;
}) {
  const station = await db.station.findFirst({
    where: { id: stationId, tenantId },
    select: { id: true, protocol: true },
  });
  if (!station) throw notFound("station");
  await lockStation(db, stationId);
  const connector = await db.connector.findFirst({
    where: { id: input.connector_id, stationId },
  });
  if (!connector)
    throw new DomainError("connector_not_found", "The station has no such connector.", {
      fields: [{ field: "connector_id", message: "is not a connector of this station" }],
    });
  const expiresAt = new Date(input.expires_at);
  if (
    expiresAt.getTime() <= now.getTime() ||
    expiresAt.getTime() - now.getTime() > MAX_RESERVATION_MS
  )
    throw fieldError(
      "validation_failed",
      "expires_at must be in the future, at most 7 days ahead.",
      [{ field: "expires_at", message: "must be in the future, at most 7 days ahead" }],
    );
  if (input.connector_type && station.protocol === "ocpp1.6")
    throw fieldError("validation_failed", "OCPP 1.6 ReserveNow has no connector type.", [
      { field: "connector_type", message: "is OCPP 2.x only" },
    ]);
  const open = await db.reservation.findFirst({
    where: {
      connectorId: connector.id,
      status: { in: [...OPEN_RESERVATION_STATUSES] },
      expiresAt: { gt: now },
    },
  });
  if (open)
    throw new DomainError("connector_reserved", "The connector already has an open reservation.", {
      reservation_id: open.id,
    });
  const reservation = await db.reservation.create({
    data: {
      tenantId,
      stationId,
      connectorId: connector.id,
      token: input.token,
      connectorType: input.connector_type ?? null,
      expiresAt,
      status: "requested",
    },
  });
  const operation = await createOperation({
    db,
    tenantId,
    stationId,
    apiKeyId: principal.actorId,
    scope: "station.reservation",
    action: "reserve",
    request: { reservation_id: reservation.id },
  });
  await db.reservation.update({
    where: { id: reservation.id },
    data: { reserveOperationId: operation.id },
  });
  return operation;
}

/**
 * Cancels an open reservation, as a `station.reservation_cancel` operation (CancelReservation):
 * `canceled` when the charger accepts. A reservation no longer open is 409 `reservation_closed`.
 */
export async function cancelReservation({
  db,
  tenantId,
  stationId,
  reservationId,
  principal,
}: {
  db: DbTx;
  tenantId: number;
  stationId: number;
  reservationId: number;
  principal: TenantPrincipal;
}) {
  const station = await db.station.findFirst({ where: { id: stationId, tenantId } });
  if (!station) throw notFound("station");
  await lockStation(db, stationId);
  const reservation = await db.reservation.findFirst({
    where: { id: reservationId, stationId, tenantId },
  });
  if (!reservation) throw notFound("reservation");
  if (!OPEN_RESERVATION_STATUSES.includes(reservation.status as ReservationStatus))
    throw new DomainError("reservation_closed", `The reservation is ${reservation.status}.`, {
      status: reservation.status,
    });
  const operation = await createOperation({
    db,
    tenantId,
    stationId,
    apiKeyId: principal.actorId,
    scope: "station.reservation_cancel",
    action: "cancel_reservation",
    request: { reservation_id: reservation.id },
  });
  await db.reservation.update({
    where: { id: reservation.id },
    data: { cancelOperationId: operation.id },
  });
  return operation;
}

export async function listReservations(db: DbTx, tenantId: number, stationId: number) {
  const station = await db.station.findFirst({ where: { id: stationId, tenantId } });
  if (!station) throw notFound("station");
  const rows = await db.reservation.findMany({
    where: { stationId, tenantId },
    orderBy: { id: "desc" },
    take: 100,
    include: withConnector,
  });
  return { data: rows.map(presentReservation) };
}

/**
 * A transaction started on a reservation (1.6 StartTransaction's `reservationId`, 2.x
 * TransactionEvent's): the reservation is `used` by it, when it is this station's and open (an
 * expired one the charger still honoured is `used` too: the charger's word wins).
 */
export async function reservationUsed(
  tx: DbTx,
  charger: ChargerContext,
  reservationId: number,
  transactionId: number,
  at: Date,
) {
  await lockStation(tx, charger.stationId);
  const reservation = await tx.reservation.findFirst({
    where: { id: reservationId, stationId: charger.stationId },
  });
  if (!reservation) return;
  await setReservationStatus(tx, reservation.id, "used", {
    transactionId,
    at,
    from: [...OPEN_RESERVATION_STATUSES, "expired"],
  });
}

/** 2.x ReservationStatusUpdate: `Expired` → expired, `Removed` → canceled (by the charger). */
export async function reservationStatusUpdated(
  tx: DbTx,
  charger: ChargerContext,
  reservationId: number,
  update: string,
) {
  await lockStation(tx, charger.stationId);
  const reservation = await tx.reservation.findFirst({
    where: { id: reservationId, stationId: charger.stationId },
  });
  if (!reservation) return;
  await setReservationStatus(tx, reservation.id, update === "Expired" ? "expired" : "canceled");
}

/**
 * Expires every open reservation past its `expires_at` (the sweep: the charger's own expiry is
 * not reported by 1.6). One transaction per reservation, station row first.
 */
export async function expireReservations(db: Db, now = new Date()) {
  const due = await db.reservation.findMany({
    where: { status: { in: [...OPEN_RESERVATION_STATUSES] }, expiresAt: { lte: now } },
    select: { id: true, stationId: true, expiresAt: true },
    take: 500,
  });
  for (const r of due)
    await inTransaction(db, async (tx) => {
      await lockStation(tx, r.stationId);
      await setReservationStatus(tx, r.id, "expired", { at: r.expiresAt });
    });
  return due.length;
}
