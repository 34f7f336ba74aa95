import { createBill } from "../bills/create-bill";
import { db as defaultDb, type DbTx } from "../db";
import { lockStation } from "../db/locks";
import { DomainError } from "../errors";
import { newId } from "../lib/ids";
import { isUniqueViolation } from "../lib/unique-violation";
import { loadSession } from "./session-facts";
import { presentSession } from "./present-session";
import type { CreateSessionInput } from "./session-schema";

export type CreateSessionOptions = {
  tenantId: number;
  actorId: string;
  input: CreateSessionInput;
  db?: DbTx;
};

/**
 * Creates an external charging session (spec section 4, external sessions rule 1) and its bill in
 * one transaction: the bill snapshots the tariff's current version and is settled externally
 * (settlement_owner `external`, so managed payments refuse it). A `csms` session reserves its
 * connector until it is final or canceled: one open physical session per connector (rule 7), 409
 * `connector_session_open` naming the open one. The check runs under the station's lock, and the
 * unique `open_connector_id` holds it even against code that skips the lock.
 */
export async function createSession({
  tenantId,
  actorId,
  input,
  db = defaultDb(),
}: CreateSessionOptions) {
  const physical = input.source === "csms";
  if (physical) await lockStation(db, input.station_id); // a missing station is refused below
  const id = newId("cs");
  if (physical) await requireConnectorFree(db, tenantId, input.connector_id);
  const bill = await createBill({
    tenantId,
    actorId,
    input: {
      station_id: input.station_id,
      connector_id: input.connector_id,
      tariff_id: input.tariff_id,
      source: input.source,
    },
    external: { sessionId: id },
    db,
  });
  try {
    await db.chargingSession.create({
      data: {
        id,
        tenantId,
        stationId: input.station_id,
        connectorId: input.connector_id,
        billId: bill.id,
        source: input.source,
        applicationReference: input.application_reference ?? null,
        processor: input.processor ?? null,
        merchantReference: input.merchant_reference ?? null,
        paymentReference: input.payment_reference ?? null,
        openConnectorId: physical ? input.connector_id : null,
        createdBy: actorId,
      },
    });
  } catch (error) {
    if (isUniqueViolation(error, "open_connector_id"))
      await requireConnectorFree(db, tenantId, input.connector_id);
    throw error;
  }
  return presentSession((await loadSession(db, { id }))!);
}

async function requireConnectorFree(db: DbTx, tenantId: number, connectorId: number) {
  const open = await db.chargingSession.findUnique({
    where: { openConnectorId: connectorId },
    select: { id: true, tenantId: true },
  });
  if (!open) return;
  throw new DomainError(
    "connector_session_open",
    "The connector has an open physical session; finalize or cancel it first.",
    // another tenant's connector is refused earlier (422), so the session named is the tenant's
    open.tenantId === tenantId ? { session_id: open.id } : {},
  );
}
