import type { DbTx } from "../db";
import type { Transaction } from "../generated/prisma/client";
import type { ChargerContext } from "../charging/connections";
import type { ConnectorRef } from "../charging/find-connector";
import { transactionStarted, type TransactionStart } from "./transaction-started";

/** How a charger names the transaction a message is about; each version has its own ways. */
export type TransactionRef =
  /**
   * By transactionId: 1.6 the one the service assigned, 2.x the charger's own. With `firstSeen`
   * (2.x: any TransactionEvent may be the first one to arrive) a transaction not recorded yet is
   * started with it; without, the message is about nothing the service knows.
   */
  | { reference: string; firstSeen?: Omit<TransactionStart, "reference"> }
  /** the transaction in progress on a connector (1.6 MeterValues) or EVSE (2.x MeterValues) */
  | { inProgressOn: ConnectorRef };

export async function findTransaction(
  tx: DbTx,
  charger: ChargerContext,
  ref: TransactionRef,
): Promise<Transaction | null> {
  const stationId = charger.stationId;
  if ("inProgressOn" in ref) {
    const on = ref.inProgressOn;
    return tx.transaction.findFirst({
      where: {
        stationId,
        endedAt: null,
        connector:
          "connectorNumber" in on
            ? { connectorNumber: on.connectorNumber }
            : {
                evse: { evseNumber: on.evseNumber },
                ...(on.evseConnectorNumber ? { evseConnectorNumber: on.evseConnectorNumber } : {}),
              },
      },
    });
  }
  const found = await tx.transaction.findUnique({
    where: { stationId_reference: { stationId, reference: ref.reference } },
  });
  if (found || !ref.firstSeen) return found;
  return transactionStarted(tx, charger, { ...ref.firstSeen, reference: ref.reference });
}
