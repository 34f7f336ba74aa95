import type { DbTx } from "../db";

/** How a charger names a connector: 1.6 by its number; 2.x by EVSE (and connector within it). */
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
