import { z } from "zod";
import { authorizePayment } from "../../payments/authorize-payment";
import { PAYMENT_WAIT_MS, awaitPaymentAttempts } from "../../payments/await-attempts";
import { capturePayment } from "../../payments/capture-payment";
import { getPayment } from "../../payments/get-payment";
import { listPayments } from "../../payments/list-payments";
import { listPaymentServices } from "../../payments/payment-services";
import {
  authorizePaymentBody,
  listPaymentsQuery,
  paymentIdSchema,
  paymentSchema,
  paymentServicesSchema,
} from "../../payments/payment-schema";
import { refundPayment } from "../../payments/refund-payment";
import { releasePayment } from "../../payments/release-payment";
import { idParam, tenantParams } from "../params";
import { defineRoute } from "../route";

const tag = "Payments";
const paymentParams = z.object({ tenant_id: idParam, payment_id: paymentIdSchema });

/** The payment's states, for the route descriptions (and so for /v1/openapi.json). */
const STATES = `
Payment statuses (they only move forward; each change is an event):

| Status | Moved by | Next | Event |
| --- | --- | --- | --- |
| \`pending\` | the processor holds the full amount (its webhook, or a read of the intent; never the checkout redirect) | \`authorized\` | \`payment.authorized\` |
| \`pending\` | the checkout expired or was abandoned; the authorize call was refused | \`failed\` | \`payment.failed\` |
| \`pending\` | the processor holds less than the amount or nothing yet (3-D Secure unfinished, a payment still processing), or the authorize call's outcome is unknown | \`pending\` with \`next_action\` \`{type: reconcile, reason: incomplete_authorization}\` | \`payment.reconciliation_required\` |
| \`authorized\` | POST …/capture, final bill above zero | \`capturing\` → \`captured\` (\`captured_minor\` = the final bill) | \`payment.captured\` |
| \`authorized\` | POST …/capture of a zero final bill, or POST …/release | \`releasing\` → \`released\` | \`payment.released\` |
| \`authorized\` | the hold lapsed (about 7 days) | \`expired\` | \`payment.expired\` |
| \`captured\` | POST …/refund (full, once) | \`refunding\` → \`refunded\` | \`payment.refunded\` |
| \`refunded\` | the processor failed the refund after taking it (Stripe's \`refund.failed\`, \`charge.refund.updated\`; the money stayed with the merchant) | \`captured\` (\`refunded_minor\` 0) with \`needs_reconciliation\` (\`refund_failed\`): refund again, or pay back otherwise | \`payment.refund_failed\` |

Statuses move forward only, but for a refund the processor fails after taking it. Each processor call is journaled in \`attempts\`; its id is the processor's idempotency key. An uncertain outcome (a timeout, a 5xx, a key Stripe says was used with other parameters) is asked again with the same key or settled by reading the processor, never repeated blind, until it settles: past its job's tries, a sweep gives it a new job every 10 minutes. One unknown for 23 hours sets \`needs_reconciliation\` (\`unknown_outcome_23h\`, \`payment.reconciliation_required\`) and is still asked. The answer waits up to ${PAYMENT_WAIT_MS} ms for the call, however slow the processor (the call goes on after it); a \`capturing\`, \`releasing\` or \`refunding\` payment is read again later. An authorized hold's \`expires_at\` is the processor's own capture deadline when it gives one (Stripe: the charge's \`capture_before\`), else 7 days.
`.trim();

export const paymentRoutes = [
  defineRoute({
    method: "POST",
    path: "/v1/tenants/{tenant_id}/payments",
    operationId: "authorizePayment",
    summary: "Authorize a bill's payment",
    description: `Opens the bill's one payment for its hold (\`amount_minor\` = the bill's \`hold_minor\`, $0.50 to $100, USD): \`pending\` with \`next_action\` \`{type: redirect, url}\`, the hosted checkout the payer completes (Stripe Checkout for \`card\`, the product's own page for \`simulator\`), then sent to \`return_url\`. The payment is \`authorized\` once the processor confirms the hold. One payment per bill whatever the key or service: 409 \`payment_exists\` (\`details.payment_id\`). 409 \`simulator_not_allowed\` for a project's \`csms\` bill with the simulator; on a workspace's sandbox tenant every bill is paid by the simulator and \`card\` is 409 \`card_not_in_sandbox\`; 409 \`payment_service_unavailable\` when card payments are not configured (no Stripe keys); 409 \`payment_account_not_ready\` when the project's Stripe account is not connected, active and able to take charges; 409 \`bill_externally_settled\`; 422 \`validation_failed\` for a bill that is not the project's.\n\n${STATES}`,
    tag,
    auth: "tenant",
    scopes: ["billing:write"],
    params: tenantParams,
    body: authorizePaymentBody,
    idempotency: "required",
    status: 201,
    response: paymentSchema,
    errors: [
      "payment_exists",
      "simulator_not_allowed",
      "card_not_in_sandbox",
      "payment_service_unavailable",
      "payment_account_not_ready",
      "bill_externally_settled",
    ],
    handler: async ({ params, body, db, principal }) => ({
      body: await authorizePayment({
        tenantId: params.tenant_id,
        actorId: principal.actorId,
        input: body,
        db,
      }),
    }),
    afterCommit: awaitPaymentAttempts,
  }),
  defineRoute({
    method: "GET",
    path: "/v1/tenants/{tenant_id}/payments",
    operationId: "listPayments",
    summary: "List payments (newest first)",
    description: `Filters \`status\`, \`service\`, \`bill_id\`; continue with \`after\` = \`next_cursor\` (a payment ID). Shows payments as last recorded (read one to reconcile it with the processor).\n\n${STATES}`,
    tag,
    auth: "tenant",
    scopes: ["billing:read"],
    params: tenantParams,
    query: listPaymentsQuery,
    status: 200,
    response: z.object({
      data: z.array(paymentSchema),
      next_cursor: z.string().nullable(),
      has_more: z.boolean(),
    }),
    handler: async ({ params, query, db }) => ({
      body: await listPayments({ tenantId: params.tenant_id, query, db }),
    }),
  }),
  defineRoute({
    method: "GET",
    path: "/v1/tenants/{tenant_id}/payments/{payment_id}",
    operationId: "getPayment",
    summary: "Read a payment (reconciles it with the processor)",
    description: `A \`pending\` or in-flight payment, or an authorized one past its lapse, is first reconciled by reading the processor's intent, and what it shows is recorded (only forward). Another project's payment is 404.\n\n${STATES}`,
    tag,
    auth: "tenant",
    scopes: ["billing:read"],
    params: paymentParams,
    status: 200,
    response: paymentSchema,
    handler: async ({ params, db, rootDb }) => ({
      body: await getPayment({
        tenantId: params.tenant_id,
        paymentId: params.payment_id,
        db,
        reconcileWith: rootDb,
      }),
    }),
  }),
  defineRoute({
    method: "POST",
    path: "/v1/tenants/{tenant_id}/payments/{payment_id}/capture",
    operationId: "capturePayment",
    summary: "Capture the final bill",
    description: `No body: captures exactly the bill's immutable \`total_minor\`, and the rest of the hold is released. A zero final bill releases the hold instead (\`released\`). 409 \`bill_not_final\` before the bill is final; 409 \`bill_exceeds_hold\` when the final bill is above the hold (reconcile with the driver); 409 \`payment_not_authorized\` without an authorized, unflagged hold. Captured once: the same Idempotency-Key replays the first answer (the payment as it is now); a capture asked under a new key once one was asked is 409 with a code naming the payment's state, and starts nothing: \`payment_change_in_progress\` while the call is in flight (\`capturing\`, or \`releasing\` for a zero bill), \`payment_already_captured\`, \`payment_already_refunded\` after a refund, \`payment_already_released\` for a zero bill; \`details.payment_status\`. Two captures at once under different keys: one 200, one 409.\n\n${STATES}`,
    tag,
    auth: "tenant",
    scopes: ["billing:write"],
    params: paymentParams,
    idempotency: "required",
    status: 200,
    response: paymentSchema,
    errors: [
      "bill_not_final",
      "bill_exceeds_hold",
      "payment_not_authorized",
      "payment_change_in_progress",
      "payment_already_captured",
      "payment_already_released",
      "payment_already_refunded",
    ],
    handler: async ({ params, db }) => ({
      body: await capturePayment({ tenantId: params.tenant_id, paymentId: params.payment_id, db }),
    }),
    afterCommit: awaitPaymentAttempts,
  }),
  defineRoute({
    method: "POST",
    path: "/v1/tenants/{tenant_id}/payments/{payment_id}/release",
    operationId: "releasePayment",
    summary: "Release an unused hold",
    description: `No body. Frees an authorized hold the bill does not use. It never stops a charger: 409 \`hold_in_use\` while the bill's start is dispatching, its session charges or has ended and is not final, or it is final with an amount (capture it). 409 \`payment_not_authorized\` without an authorized hold (e.g. one already captured). The same Idempotency-Key replays the first answer (the payment as it is now); a release asked under a new key once one was asked is 409 and starts nothing: \`payment_change_in_progress\` while \`releasing\`, then \`payment_already_released\`; \`details.payment_status\`.\n\n${STATES}`,
    tag,
    auth: "tenant",
    scopes: ["billing:write"],
    params: paymentParams,
    idempotency: "required",
    status: 200,
    response: paymentSchema,
    errors: [
      "hold_in_use",
      "payment_not_authorized",
      "payment_change_in_progress",
      "payment_already_released",
    ],
    handler: async ({ params, db }) => ({
      body: await releasePayment({ tenantId: params.tenant_id, paymentId: params.payment_id, db }),
    }),
    afterCommit: awaitPaymentAttempts,
  }),
  defineRoute({
    method: "POST",
    path: "/v1/tenants/{tenant_id}/payments/{payment_id}/refund",
    operationId: "refundPayment",
    summary: "Refund a captured payment in full",
    description: `No body. Refunds \`captured_minor\` in full, once: the same Idempotency-Key replays the first answer (the payment as it is now); a refund asked under a new key once one was asked is 409 and starts nothing: \`payment_change_in_progress\` while \`refunding\`, then \`payment_already_refunded\`; \`details.payment_status\`. Any other status (not captured yet, released, failed, expired) is 409 \`payment_not_captured\`.\n\n${STATES}`,
    tag,
    auth: "tenant",
    scopes: ["billing:refund"],
    params: paymentParams,
    idempotency: "required",
    status: 200,
    response: paymentSchema,
    errors: ["payment_not_captured", "payment_change_in_progress", "payment_already_refunded"],
    handler: async ({ params, db }) => ({
      body: await refundPayment({ tenantId: params.tenant_id, paymentId: params.payment_id, db }),
    }),
    afterCommit: awaitPaymentAttempts,
  }),
  defineRoute({
    method: "GET",
    path: "/v1/tenants/{tenant_id}/payment-services",
    operationId: "listPaymentServices",
    summary: "Payment services this project can use now",
    description:
      "`card` needs the platform's Stripe keys and the project's connected Stripe account (active, charges enabled); `simulator` is always available and settles `simulated` bills only. `reason` says why a service is unavailable.",
    tag,
    auth: "tenant",
    scopes: ["billing:read"],
    params: tenantParams,
    status: 200,
    response: paymentServicesSchema,
    handler: async ({ params, db }) => ({
      body: await listPaymentServices({ tenantId: params.tenant_id, db }),
    }),
  }),
];
