import type { DbTx } from "../db";
import { appendEvent } from "../events/append-event";
import type { Display } from "../generated/prisma/client";
import { presentDisplay } from "./present-display";

/**
 * `display.delivery_changed` (spec section 6) with the full record, in the transaction of the
 * change, as a station event: per station, in the order of the station's other events.
 */
export async function displayChanged(tx: DbTx, row: Display, evseNumber: number) {
  await appendEvent({
    db: tx,
    tenantId: row.tenantId,
    type: "display.delivery_changed",
    resourceId: row.id,
    station: { id: row.stationId, occurredAt: null },
    data: { display: presentDisplay(row, evseNumber) },
  });
}
