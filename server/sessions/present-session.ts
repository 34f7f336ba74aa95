import { kwhFromWh } from "../charging/kwh-from-wh";
import type { SettlementReport } from "../generated/prisma/client";
import type { OperationStatus } from "../operations/operation-schema";
import { deriveStatus, reconciliationReasons, type SessionFacts } from "./session-facts";
import type { ReportResource, SessionResource } from "./session-schema";
import { operationStates, settledTotals } from "./settlement-state";

type Usage = NonNullable<SessionResource["usage"]>;

/** The usage a session shows: fixed once final, else live from its matched transaction. */
function usageOf({ row }: SessionFacts): SessionResource["usage"] {
  if (row.finalUsage) return row.finalUsage as Usage;
  const t = row.bill.transaction;
  if (!t) return null;
  return {
    transaction_id: t.id,
    started_at: t.startedAt?.toISOString() ?? null,
    ended_at: t.endedAt?.toISOString() ?? null,
    energy_wh: t.energyWh,
    energy_kwh: kwhFromWh(t.energyWh),
    running_cost_minor: row.bill.runningCostMinor,
    priced_at: row.bill.runningPricedAt?.toISOString() ?? null,
    final: false,
  };
}

/** The usage fixed at finalization: the bill's energy, and its transaction (csms) or none. */
export function finalUsageOf(facts: SessionFacts): Usage {
  const { bill } = facts.row;
  const t = bill.transaction;
  const energy = bill.energyWh ?? 0;
  return {
    transaction_id: bill.transactionId,
    started_at: t?.startedAt?.toISOString() ?? null,
    ended_at: t?.endedAt?.toISOString() ?? null,
    energy_wh: energy,
    energy_kwh: kwhFromWh(energy),
    running_cost_minor: bill.totalMinor,
    priced_at: t?.endedAt?.toISOString() ?? bill.finalizedAt?.toISOString() ?? null,
    final: true,
  };
}

const opRef = (op: { id: string; status: string } | null) =>
  op ? { id: op.id, status: op.status as OperationStatus } : null;

/** A session as /v1, events and the console show it (never its bill's charging token). */
export function presentSession(facts: SessionFacts): SessionResource {
  const { row } = facts;
  const totals = settledTotals(operationStates(row.reports));
  const total = row.bill.totalMinor;
  const reasons = reconciliationReasons(facts);
  return {
    id: row.id,
    tenant_id: row.tenantId,
    station_id: row.stationId,
    connector_id: row.connectorId,
    tariff_id: row.bill.tariffId,
    tariff_version: row.bill.tariffVersion,
    source: row.source === "simulated" ? "simulated" : "csms",
    application_reference: row.applicationReference,
    processor: row.processor,
    merchant_reference: row.merchantReference,
    payment_reference: row.paymentReference,
    status: deriveStatus(facts),
    funding_confirmed: row.fundingConfirmed,
    bill_id: row.billId,
    start_operation: opRef(facts.start),
    stop_operation: opRef(facts.stop),
    usage: usageOf(facts),
    currency: "USD",
    total_minor: total,
    captured_minor: totals.captured,
    refunded_minor: totals.refunded,
    uncollected_minor: total === null ? null : Math.max(0, total - totals.captured),
    net_minor: totals.captured - totals.refunded,
    needs_reconciliation: reasons.length > 0,
    reconciliation_reasons: reasons,
    canceled_at: row.canceledAt?.toISOString() ?? null,
    finalized_at: row.bill.finalizedAt?.toISOString() ?? null,
    created_at: row.createdAt.toISOString(),
    updated_at: row.updatedAt.toISOString(),
  };
}

export function presentReport(r: SettlementReport): ReportResource {
  return {
    id: r.id,
    session_id: r.sessionId,
    kind: r.kind as ReportResource["kind"],
    operation_reference: r.operationReference,
    outcome: r.outcome as ReportResource["outcome"],
    amount_minor: r.amountMinor,
    currency: "USD",
    actor_id: r.actorId,
    received_at: r.receivedAt.toISOString(),
  };
}
