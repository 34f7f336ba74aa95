import type { PaymentAccount } from "../../generated/prisma/client";
import type { PaymentAccountResource, StoredAccountStatus } from "./account-schema";

/** The tenant's payment account as /v1 shows it; no row reads as `not_connected`. */
export function presentPaymentAccount(
  tenantId: number,
  row: PaymentAccount | null,
): PaymentAccountResource {
  if (!row) {
    return {
      tenant_id: tenantId,
      provider: "stripe",
      status: "not_connected",
      account_ref: null,
      charges_enabled: false,
      details_submitted: false,
      requirements_due: [],
      connected_by_user_id: null,
      connected_at: null,
      disconnected_at: null,
      updated_at: null,
    };
  }
  return {
    tenant_id: row.tenantId,
    provider: "stripe",
    status: row.status as StoredAccountStatus,
    account_ref: row.accountRef,
    charges_enabled: row.chargesEnabled,
    details_submitted: row.detailsSubmitted,
    requirements_due: row.requirementsDue,
    connected_by_user_id: row.connectedByUserId,
    connected_at: row.connectedAt.toISOString(),
    disconnected_at: row.disconnectedAt?.toISOString() ?? null,
    updated_at: row.updatedAt.toISOString(),
  };
}
