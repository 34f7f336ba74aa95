import { z } from "zod";
import type { Db, DbTx } from "../db";
import { inTransaction } from "../db/retry";
import { defineCronJob, defineJob, leaseForCalls, stepBackoff } from "../jobs/define-job";
import { enqueue } from "../jobs/enqueue";
import { STRIPE_CALL_BUDGET_MS } from "../payments/processors/stripe";
import { isProcessorError } from "../payments/processors/types";
import { lockProfile } from "./profile";
import { teamBilling, type InvoiceState } from "./stripe-billing";

const DAY_MS = 86_400_000;

/**
 * Stores an invoice as Stripe shows it now, for the team whose Customer it is (null when none:
 * an invoice of another product of the platform). `overdue_since` is when it became overdue: its
 * first failed automatic payment, or its due date passed unpaid; kept once set while it is open.
 */
export async function storeInvoice(
  tx: DbTx,
  invoice: InvoiceState,
  now: Date,
): Promise<number | null> {
  const profile = await tx.teamBilling.findFirst({
    where: { customerRef: invoice.customerRef },
    select: { teamId: true },
  });
  if (!profile) return null;
  const existing = await tx.teamInvoice.findUnique({ where: { id: invoice.id } });
  const overdue =
    invoice.status === "open" &&
    (invoice.attemptCount > 0 || (invoice.dueAt !== null && invoice.dueAt <= now));
  const overdueSince = overdue
    ? (existing?.overdueSince ?? (invoice.attemptCount > 0 ? now : (invoice.dueAt ?? now)))
    : null;
  const data = {
    teamId: profile.teamId,
    number: invoice.number,
    status: invoice.status,
    amountDueMinor: invoice.amountDueMinor,
    amountPaidMinor: invoice.amountPaidMinor,
    currency: invoice.currency,
    hostedUrl: invoice.hostedUrl,
    pdfUrl: invoice.pdfUrl,
    periodStart: invoice.periodStart,
    periodEnd: invoice.periodEnd,
    dueAt: invoice.dueAt,
    overdueSince,
    createdAt: invoice.createdAt,
  };
  await tx.teamInvoice.upsert({
    where: { id: invoice.id },
    create: { id: invoice.id, ...data },
    update: data,
  });
  return profile.teamId;
}

/**
 * The team's standing from its open invoices, under the profile's lock: none overdue, `active`;
 * the oldest overdue for less than the grace period, `past_due`; for longer, `suspended`. Paying
 * (the invoice is `paid`, or voided) lifts it at once.
 */
export async function updateStanding(tx: DbTx, teamId: number, now: Date, graceDays: number) {
  const row = await lockProfile(tx, teamId);
  // invoices whose due date passed since they were last read become overdue here
  await tx.teamInvoice.updateMany({
    where: { teamId, status: "open", overdueSince: null, dueAt: { lte: now } },
    data: { overdueSince: now },
  });
  const oldest = await tx.teamInvoice.findFirst({
    where: { teamId, status: "open", overdueSince: { not: null } },
    orderBy: { overdueSince: "asc" },
    select: { overdueSince: true },
  });
  const since = oldest?.overdueSince ?? null;
  const status = !since
    ? "active"
    : now.getTime() - since.getTime() >= graceDays * DAY_MS
      ? "suspended"
      : "past_due";
  await tx.teamBilling.update({
    where: { teamId },
    data: {
      status,
      pastDueSince: since,
      suspendedAt: status === "suspended" ? (row.suspendedAt ?? now) : null,
    },
  });
  return status;
}

/**
 * A verified platform webhook about an invoice (server/http/stripe-billing-webhook.ts): reads the
 * invoice again from Stripe (the event's copy may be stale or out of order), stores it and
 * updates the team's standing, then marks the event processed.
 */
export const billingEventJob = defineJob({
  id: "team-billing.event",
  payload: z.object({ event_id: z.string(), invoice_ref: z.string() }),
  retry: { maxAttempts: 8, backoff: stepBackoff([1_000, 5_000, 30_000, 120_000], 600_000) },
  leaseMs: leaseForCalls(1, STRIPE_CALL_BUDGET_MS),
  handler: async ({ event_id, invoice_ref }, ctx) => {
    const config = teamBilling();
    if (!config) return;
    const invoice = await config.stripe.readInvoice(invoice_ref).catch((error: unknown) => {
      if (isProcessorError(error) && error.kind === "not_found") return null;
      throw error;
    });
    const now = ctx.now();
    await inTransaction(ctx.db, async (tx) => {
      if (!(await ctx.holds(tx))) return;
      const owner = invoice
        ? await tx.teamBilling.findFirst({
            where: { customerRef: invoice.customerRef },
            select: { teamId: true },
          })
        : null;
      if (invoice && owner) {
        // the lock order: the team's billing row before its invoices
        await lockProfile(tx, owner.teamId);
        await storeInvoice(tx, invoice, now);
        await updateStanding(tx, owner.teamId, now, config.graceDays);
      }
      await tx.processorEvent.updateMany({ where: { id: event_id }, data: { processedAt: now } });
    });
  },
});

export const enqueueBillingEvent = (tx: DbTx, eventId: string, invoiceRef: string) =>
  enqueue(tx, billingEventJob, { event_id: eventId, invoice_ref: invoiceRef }, { key: eventId });

/**
 * Time alone moves a standing (a due date passes, a grace period ends): every hour, the standing
 * of each team with an open invoice is worked out again.
 */
export const standingSweepJob = defineCronJob({
  id: "team-billing.standing-sweep",
  everyMs: 3_600_000,
  handler: async (_slot, ctx) => {
    await sweepStanding(ctx.db, ctx.now());
  },
});

export async function sweepStanding(db: Db, now: Date) {
  const config = teamBilling();
  if (!config) return;
  const teams = await db.teamInvoice.findMany({
    where: { status: "open" },
    distinct: ["teamId"],
    select: { teamId: true },
  });
  const suspendedWithout = await db.teamBilling.findMany({
    where: { status: { not: "active" } },
    select: { teamId: true },
  });
  const ids = new Set([...teams, ...suspendedWithout].map((t) => t.teamId));
  for (const teamId of ids)
    await inTransaction(db, (tx) => updateStanding(tx, teamId, now, config.graceDays));
}
