import type { DbTx } from "../db";
import { lockStation } from "../db/locks";
import { lockBillRow } from "../bills/lock-bill";
import { billTariff, priceBillSession } from "../bills/price-bill";
import { transactionSession } from "../bills/transaction-session";
import { owningGateway } from "../charging/gateways";
import { kwhFromWh } from "../charging/kwh-from-wh";
import { isPricingError, pricingSummary } from "../pricing";
import { tariffSnapshot } from "../tariffs/tariff-snapshot";
import type { BillStatus } from "../bills/bill-schema";
import type { OperationStatus } from "../operations/operation-schema";
import type { PaymentStatus } from "../payments/payment-schema";
import type { SandboxSessionResource, SandboxSessionStatus } from "./session-schema";

const include = {
  advances: { where: { status: "pending" }, select: { energyWh: true } },
} as const;

/** Everything a sandbox session's record and status are made of, read in a few statements. */
export async function loadSessionFacts(db: DbTx, where: { id: string; tenantId?: number }) {
  const row = await db.sandboxSession.findFirst({ where, include });
  if (!row) return null;
  const [station, connector, charger, version, bill, payment, transaction, operations, online] =
    await Promise.all([
      db.station.findUniqueOrThrow({
        where: { id: row.stationId },
        select: { id: true, name: true },
      }),
      db.connector.findUniqueOrThrow({
        where: { id: row.connectorId },
        select: {
          id: true,
          connectorNumber: true,
          status: true,
          evse: { select: { evseNumber: true } },
        },
      }),
      db.sandboxCharger.findUnique({
        where: { stationId: row.stationId },
        select: { protocol: true },
      }),
      db.tariffVersion.findUniqueOrThrow({
        where: { tariffId_version: { tariffId: row.tariffId, version: row.tariffVersion } },
      }),
      db.bill.findUniqueOrThrow({ where: { id: row.billId } }),
      row.paymentId ? db.payment.findUnique({ where: { id: row.paymentId } }) : null,
      row.transactionId ? db.transaction.findUnique({ where: { id: row.transactionId } }) : null,
      db.operation.findMany({
        where: {
          id: { in: [row.startOperationId, row.stopOperationId].filter((x): x is string => !!x) },
        },
        select: { id: true, status: true },
      }),
      owningGateway(db, row.stationId),
    ]);
  const sample = transaction
    ? await db.meterSample.findFirst({
        where: { transactionId: transaction.id },
        orderBy: [{ sampledAt: "desc" }, { id: "desc" }],
        select: { powerKw: true, socPercent: true },
      })
    : null;
  return {
    row,
    station: { ...station, protocol: charger?.protocol ?? "ocpp2.0.1", online: online !== null },
    connector,
    version,
    bill,
    payment,
    transaction,
    sample,
    operation: (id: string | null) => operations.find((o) => o.id === id) ?? null,
    pendingWh: row.advances.reduce((sum, a) => sum + a.energyWh, 0),
  };
}
export type SessionFacts = NonNullable<Awaited<ReturnType<typeof loadSessionFacts>>>;

/** Payment statuses of a settled session: the hold was captured or released (and maybe refunded). */
const SETTLED_PAYMENT = ["captured", "released", "refunding", "refunded"];

/**
 * The status the facts say the session is in (server/sandbox/README.md, Statuses). `failed` and
 * `refunded` are final; `settled` moves on only to `refunded`, once the refund succeeded.
 */
export function deriveStatus(f: SessionFacts): SandboxSessionStatus {
  const stored = f.row.status as SandboxSessionStatus;
  if (stored === "failed" || stored === "refunded") return stored;
  const paid = f.payment?.status ?? "";
  if (stored === "settled") return paid === "refunded" ? "refunded" : "settled";
  if (f.bill.status === "final" && SETTLED_PAYMENT.includes(paid)) return "settled";
  if (f.transaction?.endedAt || f.row.stopOperationId) return "stopping";
  if (f.bill.transactionId !== null) return "charging";
  return "starting";
}

/**
 * Locks a session for a change, in the lock order (ARCHITECTURE.md, Locks): its station row, its
 * bill row, then the session row. Null when the tenant has no such session.
 */
export async function lockSandboxSession(
  tx: DbTx,
  { tenantId, id }: { tenantId?: number; id: string },
): Promise<SessionFacts | null> {
  const found = await tx.sandboxSession.findFirst({
    where: { id, ...(tenantId === undefined ? {} : { tenantId }) },
    select: { stationId: true, billId: true }, // never change: read before the lock
  });
  if (!found) return null;
  await lockStation(tx, found.stationId);
  await lockBillRow(tx, found.billId);
  await lockSessionRow(tx, id);
  return loadSessionFacts(tx, { id });
}

/** The session row's lock, for a transaction that already holds its station and bill. */
export async function lockSessionRow(tx: DbTx, id: string) {
  await tx.$queryRaw`SELECT id FROM sandbox_sessions WHERE id = ${id} FOR NO KEY UPDATE`;
}

/**
 * What the session has cost so far: the final bill's total; while its transaction runs, the
 * readings so far priced by the engine as finalizing would price them (the bill's tariff version
 * and adjustments); null before it started or while the engine cannot price it yet.
 */
async function runningCost(db: DbTx, f: SessionFacts): Promise<number | null> {
  if (f.bill.status === "final") return f.bill.totalMinor;
  if (!f.transaction) return null;
  try {
    const session = await transactionSession(db, f.transaction);
    return priceBillSession(f.bill, await billTariff(db, f.bill), session).adjusted.total_minor;
  } catch (error) {
    if (isPricingError(error)) return null;
    throw error;
  }
}

const iso = (d: Date | null) => d?.toISOString() ?? null;

/** A sandbox session as /v1, its events and webhooks show it. */
export async function presentSandboxSession(
  db: DbTx,
  f: SessionFacts,
): Promise<SandboxSessionResource> {
  const energyWh = f.transaction?.energyWh ?? 0;
  const op = (id: string | null) => {
    const found = f.operation(id);
    return found ? { id: found.id, status: found.status as OperationStatus } : null;
  };
  const error = f.row.lastError as SandboxSessionResource["last_error"];
  return {
    id: f.row.id,
    tenant_id: f.row.tenantId,
    team_id: f.row.teamId,
    status: f.row.status as SandboxSessionStatus,
    station: {
      id: f.station.id,
      name: f.station.name,
      protocol: f.station.protocol === "ocpp1.6" ? "ocpp1.6" : "ocpp2.0.1",
      online: f.station.online,
    },
    connector: {
      id: f.connector.id,
      evse_number: f.connector.evse.evseNumber,
      connector_number: f.connector.connectorNumber,
      status: f.connector.status,
    },
    tariff: {
      id: f.row.tariffId,
      version: f.row.tariffVersion,
      pricing_summary: pricingSummary(tariffSnapshot(f.version)),
    },
    energy_wh: energyWh,
    energy_kwh: kwhFromWh(energyWh),
    target_wh: f.row.targetWh,
    pending_wh: f.pendingWh,
    elapsed_seconds: f.row.elapsedSeconds,
    power_kw: f.sample?.powerKw ?? null,
    soc_percent: f.sample?.socPercent ?? null,
    cost: { running_minor: await runningCost(db, f), currency: "USD" },
    transaction_id: f.row.transactionId,
    bill: {
      id: f.bill.id,
      status: f.bill.status as BillStatus,
      hold_minor: f.bill.holdMinor,
      total_minor: f.bill.totalMinor,
      price_summary: f.bill.priceSummary,
      cost_breakdown: (f.bill.costBreakdown as Record<string, unknown> | null) ?? null,
    },
    payment: f.payment && {
      id: f.payment.id,
      service: "simulator",
      status: f.payment.status as PaymentStatus,
      amount_minor: f.payment.amountMinor,
      captured_minor: f.payment.capturedMinor,
      refunded_minor: f.payment.refundedMinor,
      checkout_url: f.payment.checkoutUrl,
    },
    start_operation: op(f.row.startOperationId),
    stop_operation: op(f.row.stopOperationId),
    created_by: f.row.createdBy,
    created_at: f.row.createdAt.toISOString(),
    started_at: iso(f.row.startedAt),
    stopped_at: iso(f.row.stoppedAt),
    settled_at: iso(f.row.settledAt),
    refunded_at: iso(f.row.refundedAt),
    last_error: error ?? null,
  };
}
