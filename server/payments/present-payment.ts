import type { Payment, PaymentAttempt } from "../generated/prisma/client";
import type { AttemptKind, AttemptStatus, PaymentResource, PaymentStatus } from "./payment-schema";

/** What a payment is read with: its journal, oldest first. */
export const paymentInclude = { attempts: { orderBy: { createdAt: "asc" } } } as const;
export type PaymentRow = Payment & { attempts: PaymentAttempt[] };

/** The reason a pending payment cannot fund anything until it is reconciled. */
export const INCOMPLETE_AUTHORIZATION = "incomplete_authorization";
/** The reason a captured payment needs a person: the processor failed its refund after taking it. */
export const REFUND_FAILED = "refund_failed";

/**
 * A payment as /v1, events and webhooks show it. `next_action` is derived: a pending payment
 * whose authorization is incomplete (the processor holds less than the amount) or whose
 * authorize call's outcome is unknown must be reconciled; one with a checkout URL is waiting
 * for the payer.
 */
export function presentPayment(payment: PaymentRow): PaymentResource {
  return {
    id: payment.id,
    tenant_id: payment.tenantId,
    bill_id: payment.billId,
    service: payment.service === "card" ? "card" : "simulator",
    status: payment.status as PaymentStatus,
    currency: "USD",
    amount_minor: payment.amountMinor,
    captured_minor: payment.capturedMinor,
    refunded_minor: payment.refundedMinor,
    next_action: nextAction(payment),
    return_url: payment.returnUrl,
    needs_reconciliation: payment.needsReconciliation,
    reconciliation_reason: payment.reconciliationReason,
    authorized_at: iso(payment.authorizedAt),
    captured_at: iso(payment.capturedAt),
    released_at: iso(payment.releasedAt),
    refunded_at: iso(payment.refundedAt),
    expires_at: iso(payment.expiresAt),
    attempts: payment.attempts.map((a) => ({
      id: a.id,
      kind: a.kind as AttemptKind,
      status: a.status as AttemptStatus,
      amount_minor: a.amountMinor,
      error: attemptError(a.error),
      created_at: a.createdAt.toISOString(),
      completed_at: iso(a.completedAt),
    })),
    created_at: payment.createdAt.toISOString(),
    updated_at: payment.updatedAt.toISOString(),
  };
}

function nextAction(payment: PaymentRow): PaymentResource["next_action"] {
  if (payment.status !== "pending") return null;
  const authorizeUnknown = payment.attempts.some(
    (a) => a.kind === "authorize" && a.status === "unknown",
  );
  if (authorizeUnknown || payment.reconciliationReason === INCOMPLETE_AUTHORIZATION)
    return { type: "reconcile", reason: INCOMPLETE_AUTHORIZATION };
  return payment.checkoutUrl ? { type: "redirect", url: payment.checkoutUrl } : null;
}

function attemptError(value: unknown): PaymentResource["attempts"][number]["error"] {
  if (typeof value !== "object" || value === null) return null;
  const e = value as { kind?: unknown; code?: unknown; message?: unknown };
  return {
    kind: typeof e.kind === "string" ? e.kind : "unknown",
    code: typeof e.code === "string" ? e.code : null,
    message: typeof e.message === "string" ? e.message : "",
  };
}

const iso = (d: Date | null) => d?.toISOString() ?? null;
