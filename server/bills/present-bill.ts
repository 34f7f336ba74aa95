import { kwhFromWh } from "../charging/kwh-from-wh";
import type { Bill, Payment } from "../generated/prisma/client";
import type { BillResource, BillStatus, StopReason } from "./bill-schema";

/** What a bill is read with: its payment's id, service and status. */
export const billInclude = {
  payment: { select: { id: true, service: true, status: true } },
} as const;
export type BillRow = Bill & { payment: Pick<Payment, "id" | "service" | "status"> | null };

/**
 * A bill as /v1, events and webhooks show it. The charging token is not in it, on purpose: it is
 * handed to the charger by the bill's start and nowhere else.
 */
export function presentBill(bill: BillRow): BillResource {
  return {
    id: bill.id,
    tenant_id: bill.tenantId,
    station_id: bill.stationId,
    connector_id: bill.connectorId,
    tariff_id: bill.tariffId,
    tariff_version: bill.tariffVersion,
    source: bill.source === "simulated" ? "simulated" : "csms",
    pricing_group: bill.pricingGroup,
    merchant_validation: bill.merchantValidation,
    billing_version: bill.billingVersion === "elements-v1" ? "elements-v1" : "energy-v1",
    currency: "USD",
    status: bill.status as BillStatus,
    settlement_owner: bill.settlementOwner === "external" ? "external" : "managed",
    session_id: bill.sessionId,
    hold_minor: bill.holdMinor,
    start_operation_id: bill.startOperationId,
    transaction_id: bill.transactionId,
    stop_reason: bill.stopReason as StopReason | null,
    stop_operation_id: bill.stopOperationId,
    cap_attempts: bill.capAttempts,
    needs_reconciliation: bill.holdExceededAt !== null,
    reconciliation_reason: bill.holdExceededAt ? "hold_exceeded" : null,
    hold_exceeded_at: bill.holdExceededAt?.toISOString() ?? null,
    running_cost_minor: bill.runningCostMinor,
    running_priced_at: bill.runningPricedAt?.toISOString() ?? null,
    energy_wh: bill.energyWh,
    energy_kwh: bill.energyWh === null ? null : kwhFromWh(bill.energyWh),
    duration_seconds: bill.durationSeconds,
    subtotal_minor: bill.subtotalMinor,
    total_minor: bill.totalMinor,
    adjustments: (bill.adjustments as BillResource["adjustments"]) ?? null,
    cost_breakdown: (bill.costBreakdown as BillResource["cost_breakdown"]) ?? null,
    price_summary: bill.priceSummary,
    payment: bill.payment,
    finalized_at: bill.finalizedAt?.toISOString() ?? null,
    created_at: bill.createdAt.toISOString(),
    updated_at: bill.updatedAt.toISOString(),
  };
}
