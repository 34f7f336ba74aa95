/**
 * Connector status and the fault table of spec section 3, as pure decisions: no database, no
 * clock. The caller (status-reported) looks up the connector and its open fault, asks here what
 * changes, and writes the result and its events.
 */

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

const isConnectorStatus = (value: string): value is ConnectorStatus =>
  (CONNECTOR_STATUSES as readonly string[]).includes(value);

/** OCPP 2.x `ConnectorStatusEnumType` values other than `Occupied` that are also spec values. */
const V2_AS_IS: readonly string[] = ["Available", "Reserved", "Unavailable", "Faulted"];

/**
 * The normalized status of a connector (spec section 3). OCPP 1.6 statuses map one to one.
 * OCPP 2.x `Occupied` is `Charging` while the connector has an active transaction, otherwise
 * `Preparing`; `Available`, `Reserved`, `Unavailable` and `Faulted` keep their name. Anything
 * else (a value neither protocol defines for its version) reads as `Unavailable`.
 * `protocol` is the negotiated subprotocol; anything but `ocpp1.6` is treated as 2.x.
 */
export function normalizeStatus(
  protocol: string,
  ocppStatus: string,
  hasActiveTransaction: boolean,
): ConnectorStatus {
  if (protocol === "ocpp1.6") return isConnectorStatus(ocppStatus) ? ocppStatus : "Unavailable";
  if (ocppStatus === "Occupied") return hasActiveTransaction ? "Charging" : "Preparing";
  return V2_AS_IS.includes(ocppStatus) ? (ocppStatus as ConnectorStatus) : "Unavailable";
}

/** One StatusNotification as the fault table needs it. */
export type StatusNotification = {
  /** negotiated subprotocol: `ocpp1.6`, `ocpp2.0.1` or `ocpp2.1` */
  protocol: string;
  /** OCPP 1.6 `connectorId`; 0 addresses the whole station. Not used for 2.x. */
  connectorNumber?: number | null;
  /**
   * OCPP 2.x `evseId` (0 addresses the whole station). For 1.6, the EVSE the connector belongs
   * to when known (reported as the fault's `evse_number`).
   */
  evseNumber?: number | null;
  /** Resource ID of the addressed connector, as the caller resolved it; null for the station. */
  connectorId: number | null;
  /** 1.6 `status` / 2.x `connectorStatus`, as sent */
  ocppStatus: string;
  /** OCPP 1.6 `errorCode`; 2.x has none (ignored there) */
  errorCode?: string | null;
  /** OCPP 1.6 `info`, `vendorId`, `vendorErrorCode` */
  info?: string | null;
  vendorId?: string | null;
  vendorErrorCode?: string | null;
};

/** What the table needs to know of the fault currently open for the same connector (or station). */
export type OpenFault = { errorCode: string | null };

/** A fault to open: the fields of a fault record (spec section 2) that come from the charger. */
export type NewFault = {
  /** null for a whole-station fault (1.6 connector 0, 2.x EVSE 0) */
  connectorId: number | null;
  evseNumber: number | null;
  /** the 1.6 error code; null for 2.x and for a 1.6 `Faulted` with `NoError` */
  errorCode: string | null;
  info: string | null;
  vendorId: string | null;
  vendorErrorCode: string | null;
  ocppStatus: string;
};

/** Clear the open fault (if `clear`), then open `open` (if not null); both can happen at once. */
export type FaultDecision = { clear: boolean; open: NewFault | null };

/** The notification addresses the whole station: 1.6 connector 0, 2.x EVSE 0. */
export function isWholeStation(
  n: Pick<StatusNotification, "protocol" | "connectorNumber" | "evseNumber">,
) {
  return n.protocol === "ocpp1.6" ? n.connectorNumber === 0 : n.evseNumber === 0;
}

/**
 * The error code the fault table compares: the 1.6 `errorCode` unless it is `NoError` (or
 * missing); always null for 2.x, which has no error code.
 */
export function reportedErrorCode(n: Pick<StatusNotification, "protocol" | "errorCode">) {
  if (n.protocol !== "ocpp1.6") return null;
  const code = n.errorCode?.trim();
  return code && code !== "NoError" ? code : null;
}

/**
 * Whether a status notification reports a fault (spec section 3 and section 6 item 7): an
 * OCPP 1.6 `errorCode` other than `NoError`, or status `Faulted` (any version).
 */
export function isFault(n: Pick<StatusNotification, "protocol" | "errorCode" | "ocppStatus">) {
  return reportedErrorCode(n) !== null || n.ocppStatus === "Faulted";
}

/**
 * The fault table of spec section 3, for one connector (or the whole station), given the fault
 * currently open there:
 *
 * | open fault | notification                    | decision                          |
 * | ---------- | ------------------------------- | --------------------------------- |
 * | none       | no fault                        | nothing                           |
 * | none       | fault                           | open                              |
 * | open       | no fault                        | clear                             |
 * | open       | fault, same error code          | nothing (it is still the same one) |
 * | open       | fault, different error code     | clear, and open a new one         |
 *
 * Error codes compare as `reportedErrorCode` gives them, so a 1.6 `Faulted` with `NoError` has
 * code null, and 2.x faults always have null: a 2.x `Faulted` repeated keeps the same fault.
 */
export function faultTransition(open: OpenFault | null, n: StatusNotification): FaultDecision {
  const errorCode = reportedErrorCode(n);
  if (!isFault(n)) return { clear: open !== null, open: null };
  if (open && open.errorCode === errorCode) return { clear: false, open: null };
  const wholeStation = isWholeStation(n);
  return {
    clear: open !== null,
    open: {
      connectorId: wholeStation ? null : n.connectorId,
      evseNumber: wholeStation ? null : (n.evseNumber ?? null),
      errorCode,
      info: n.info ?? null,
      vendorId: n.vendorId ?? null,
      vendorErrorCode: n.vendorErrorCode ?? null,
      ocppStatus: n.ocppStatus,
    },
  };
}
