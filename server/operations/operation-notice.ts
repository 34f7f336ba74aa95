/**
 * The gateways' wake-up for an operation written `dispatching`: `NOTIFY operations` with the
 * payload `<station id> <operation id>`, sent in the statement that writes the row (delivered at
 * commit). Every gateway hears every notice; carrying the station lets each one that does not hold
 * the station's socket drop it without reading the row. The SQL that sends it is
 * `pg_notify('operations', op.station_id || ' ' || op.id)` (createOperation, the site limits'
 * recompute).
 */
export type OperationNotice = { stationId: number | null; operationId: string };

/** A notice's payload; a bare operation id (the older form) has no station. */
export function parseOperationNotice(payload: string): OperationNotice | null {
  const [first, second, ...rest] = payload.split(" ");
  if (rest.length || !first) return null;
  if (second === undefined) return { stationId: null, operationId: first };
  const stationId = Number(first);
  if (!Number.isSafeInteger(stationId) || !second) return null;
  return { stationId, operationId: second };
}
