import type { Db } from "../db";
import { inTransaction } from "../db/retry";
import { createOperation } from "../operations/create-operation";
import { stationTransactionStatus } from "../operations/kinds/transaction-status";

/**
 * A 2.x charger reconnected: for each transaction of the station the service still has open, a
 * `station.transaction_status` operation (OCPP GetTransactionStatus), written in one transaction
 * and addressed to the gateway that holds the socket. The gateway sends them (the usual claim:
 * once) and answers the charger's queued messages only after they settle. Returns their ids.
 */
export async function askTransactionStatus({
  db,
  station,
  gatewayId,
}: {
  db: Db;
  station: { id: number; tenantId: number };
  gatewayId: string;
}): Promise<string[]> {
  const open = await db.transaction.findMany({
    where: { stationId: station.id, tenantId: station.tenantId, endedAt: null },
    select: { id: true, reference: true },
    orderBy: { id: "asc" },
  });
  if (!open.length) return [];
  return inTransaction(db, async (tx) => {
    const ids: string[] = [];
    for (const t of open) {
      const operation = await createOperation({
        db: tx,
        tenantId: station.tenantId,
        stationId: station.id,
        apiKeyId: null,
        scope: stationTransactionStatus.scope,
        action: "get_transaction_status",
        request: { transaction_id: t.id, reference: t.reference },
        gatewayId,
      });
      ids.push(operation.id);
    }
    return ids;
  });
}
