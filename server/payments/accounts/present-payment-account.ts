import type { DbTx } from "../../db";
import type { PaymentAccount, PaymentAccountAttempt } from "../../generated/prisma/client";
import type {
  AccountAttemptResource,
  PaymentAccountResource,
  StoredAccountStatus,
} from "./account-schema";

/** The tenant's payment account as stored now, with its journal, as /v1 shows it. */
export async function readPaymentAccount(
  db: DbTx,
  tenantId: number,
): Promise<PaymentAccountResource> {
  const [row, attempts] = await Promise.all([
    db.paymentAccount.findUnique({ where: { tenantId } }),
    db.paymentAccountAttempt.findMany({
      where: { tenantId },
      orderBy: { createdAt: "desc" },
      take: 10,
    }),
  ]);
  return presentPaymentAccount(tenantId, row, attempts);
}

/** The tenant's payment account as /v1 shows it; no row reads as `not_connected`. */
export function presentPaymentAccount(
  tenantId: number,
  row: PaymentAccount | null,
  attempts: PaymentAccountAttempt[] = [],
): PaymentAccountResource {
  const journal = attempts.map(presentAttempt);
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
      attempts: journal,
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
    attempts: journal,
  };
}

function presentAttempt(a: PaymentAccountAttempt): AccountAttemptResource {
  const error = a.error as { kind?: unknown; code?: unknown; message?: unknown } | null;
  return {
    id: a.id,
    kind: a.kind as AccountAttemptResource["kind"],
    status: a.status as AccountAttemptResource["status"],
    account_ref: a.accountRef,
    error:
      error && typeof error === "object"
        ? {
            kind: typeof error.kind === "string" ? error.kind : "unknown",
            code: typeof error.code === "string" ? error.code : null,
            message: typeof error.message === "string" ? error.message : "",
          }
        : null,
    created_at: a.createdAt.toISOString(),
    completed_at: a.completedAt?.toISOString() ?? null,
  };
}
