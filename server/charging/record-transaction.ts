import type { DbTx } from "../db";
import type { Transaction } from "../generated/prisma/client";
import type { ChargerContext } from "./connections";

export type ConnectorRef =
  { connectorNumber: number } | { evseNumber: number; evseConnectorNumber?: number };

export async function findConnector(tx: DbTx, stationId: number, ref: ConnectorRef) {
  if ("connectorNumber" in ref)
    return tx.connector.findFirst({ where: { stationId, connectorNumber: ref.connectorNumber } });
  return tx.connector.findFirst({
    where: {
      stationId,
      evse: { evseNumber: ref.evseNumber },
      ...(ref.evseConnectorNumber ? { evseConnectorNumber: ref.evseConnectorNumber } : {}),
    },
    orderBy: { evseConnectorNumber: "asc" },
  });
}

/** A connector the station was not registered with: a transaction on it is not recorded. */
export class UnknownConnector extends Error {
  constructor(readonly ref: ConnectorRef) {
    super(
      "connectorNumber" in ref
        ? `connectorId ${ref.connectorNumber} is not a connector of this station.`
        : `EVSE ${ref.evseNumber}${ref.evseConnectorNumber ? ` connector ${ref.evseConnectorNumber}` : ""} is not a connector of this station.`,
    );
    this.name = "UnknownConnector";
  }
}

/**
 * Starts (or finds) a transaction. A charger that reports the same start twice gets the same
 * transaction: 2.x by its transactionId; 1.6 by connector, token and start time. A named
 * connector the station lacks throws `UnknownConnector` (no transaction without its connector);
 * only a 2.x transaction first seen without `evse` has none.
 */
export async function startTransaction(
  tx: DbTx,
  charger: ChargerContext,
  start: {
    connector: ConnectorRef | null;
    reference?: string;
    idToken: string | null;
    meterStartWh: number | null;
    startedAt: Date | null;
  },
): Promise<Transaction> {
  const connector = start.connector
    ? await findConnector(tx, charger.stationId, start.connector)
    : null;
  if (start.connector && !connector) throw new UnknownConnector(start.connector);
  if (start.reference) {
    const existing = await tx.transaction.findUnique({
      where: { stationId_reference: { stationId: charger.stationId, reference: start.reference } },
    });
    if (existing) return existing;
  } else if (start.startedAt) {
    const existing = await tx.transaction.findFirst({
      where: {
        stationId: charger.stationId,
        connectorId: connector?.id ?? null,
        idToken: start.idToken,
        startedAt: start.startedAt,
      },
    });
    if (existing) return existing;
  }
  const created = await tx.transaction.create({
    data: {
      tenantId: charger.tenantId,
      stationId: charger.stationId,
      connectorId: connector?.id ?? null,
      // 1.6: the service assigns the charger's transactionId; it is this row's ID (set below).
      reference: start.reference ?? `pending-${crypto.randomUUID()}`,
      idToken: start.idToken,
      meterStartWh: start.meterStartWh,
      startedAt: start.startedAt,
    },
  });
  if (start.reference) return created;
  return tx.transaction.update({
    where: { id: created.id },
    data: { reference: String(created.id) },
  });
}

export async function endTransaction(
  tx: DbTx,
  transaction: Transaction,
  end: { meterStopWh: number | null; endedAt: Date; reason: string | null },
) {
  if (transaction.endedAt) return transaction; // reported twice
  const start = transaction.meterStartWh === null ? null : Number(transaction.meterStartWh);
  return tx.transaction.update({
    where: { id: transaction.id },
    data: {
      endedAt: end.endedAt,
      meterStopWh: end.meterStopWh,
      stopReason: end.reason,
      ...(end.meterStopWh !== null && start !== null
        ? { energyWh: Math.max(0, end.meterStopWh - start) }
        : {}),
    },
  });
}
