/** The connector statuses of spec section 3. */
export const CONNECTOR_STATUSES = [
  "Available",
  "Preparing",
  "Charging",
  "SuspendedEV",
  "SuspendedEVSE",
  "Finishing",
  "Reserved",
  "Unavailable",
  "Faulted",
] as const;
export type ConnectorStatus = (typeof CONNECTOR_STATUSES)[number];

/**
 * OCPP 1.6 statuses map one to one; OCPP 2.x `Occupied` becomes `Charging` while the connector
 * has an active transaction, otherwise `Preparing`; any other value reads as `Unavailable`.
 */
export function normalizeStatus(
  protocol: string,
  ocppStatus: string,
  hasActiveTransaction: boolean,
): ConnectorStatus {
  if (protocol !== "ocpp1.6" && ocppStatus === "Occupied")
    return hasActiveTransaction ? "Charging" : "Preparing";
  const known = (CONNECTOR_STATUSES as readonly string[]).includes(ocppStatus);
  if (protocol === "ocpp1.6") return known ? (ocppStatus as ConnectorStatus) : "Unavailable";
  return ["Available", "Reserved", "Unavailable", "Faulted"].includes(ocppStatus)
    ? (ocppStatus as ConnectorStatus)
    : "Unavailable";
}

export type FaultReport = { errorCode: string | null; ocppStatus: string };

/**
 * Whether a status notification reports a fault (spec section 3): an OCPP 1.6 `errorCode` other
 * than `NoError`, or status `Faulted`. OCPP 2.x has no error code.
 */
export function isFault(report: FaultReport): boolean {
  return (
    (report.errorCode !== null && report.errorCode !== "NoError") || report.ocppStatus === "Faulted"
  );
}

/**
 * The fault table: a fault opens on a faulty report; a later clean report for the same connector
 * clears it; a different error code clears it and opens a new one; the same one keeps it open.
 */
export function faultTransition(
  open: { errorCode: string | null } | null,
  report: FaultReport,
): { clear: boolean; open: boolean } {
  const faulty = isFault(report);
  if (!open) return { clear: false, open: faulty };
  if (!faulty) return { clear: true, open: false };
  const code = report.errorCode === "NoError" ? null : report.errorCode;
  if (code !== open.errorCode) return { clear: true, open: true };
  return { clear: false, open: false };
}
