import type { Fault } from "../generated/prisma/client";

/** A fault as every API field and event shows it (spec section 2). */
export function presentFault(f: Fault) {
  return {
    fault_id: f.id,
    connector_id: f.connectorId,
    evse_number: f.evseNumber,
    error_code: f.errorCode,
    info: f.info,
    vendor_id: f.vendorId,
    vendor_error_code: f.vendorErrorCode,
    ocpp_status: f.ocppStatus,
    opened_at: f.openedAt.toISOString(),
    cleared_at: f.clearedAt?.toISOString() ?? null,
  };
}
