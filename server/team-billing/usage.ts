import type { Db, DbTx } from "../db";
import { apiRequestsByMonth } from "./api-requests";
import { inTransaction } from "../db/retry";
import { defineCronJob } from "../jobs/define-job";
import { followCalls, newCall } from "./billing-calls";
import { billableChargers, PLAN } from "./plan";
import { teamBilling } from "./stripe-billing";

/** The first day of `date`'s month (UTC). */
export const monthOf = (date: Date) =>
  new Date(Date.UTC(date.getUTCFullYear(), date.getUTCMonth(), 1));
const nextMonth = (month: Date) =>
  new Date(Date.UTC(month.getUTCFullYear(), month.getUTCMonth() + 1, 1));
const monthLabel = (month: Date) => month.toISOString().slice(0, 7);

export type Usage = { activeChargers: number; chargingSessions: number; energyWh: number };

/**
 * A team's usage in a month, from the service's own records: transactions started in the month
 * at stations of the team's projects (sandbox chargers never count). An active charger is a
 * station with at least one; energy is what those transactions delivered. API requests are
 * read apart (`apiRequestsByMonth`): they are shown, not billed.
 */
export async function computeUsage(db: DbTx, teamId: number, month: Date): Promise<Usage> {
  const [row] = await db.$queryRaw<{ stations: bigint; sessions: bigint; energy: bigint }[]>`
    SELECT count(DISTINCT t.station_id) AS stations, count(*) AS sessions,
           COALESCE(sum(t.energy_wh), 0)::bigint AS energy
    FROM transactions t JOIN tenants n ON n.id = t.tenant_id
    WHERE n.team_id = ${teamId} AND n.kind = 'project'
      AND t.started_at >= ${month} AND t.started_at < ${nextMonth(month)}`;
  return {
    activeChargers: Number(row?.stations ?? 0),
    chargingSessions: Number(row?.sessions ?? 0),
    energyWh: Number(row?.energy ?? 0),
  };
}

/**
 * Records the month's usage (a `team_usage` row) and, for a team with a Subscription, reports
 * what its meter has not been told yet: one journaled `meter_event` call per increase of the
 * month's billable chargers, in the transaction that raises `billable_reported`, so each usage
 * record is sent once (its call's id is the Idempotency-Key and the meter event's identifier;
 * a runner that dies mid-call is followed by one asking again with the same key).
 */
export async function recordUsage(db: Db, teamId: number, month: Date, now: Date) {
  const usage = await computeUsage(db, teamId, month);
  return inTransaction(db, async (tx) => {
    await tx.$executeRaw`
      INSERT INTO team_usage (team_id, month, active_chargers, charging_sessions, energy_wh, computed_at)
      VALUES (${teamId}, ${month}::date, ${usage.activeChargers}, ${usage.chargingSessions}, ${usage.energyWh}, ${now})
      ON CONFLICT (team_id, month) DO UPDATE SET
        active_chargers = GREATEST(team_usage.active_chargers, EXCLUDED.active_chargers),
        charging_sessions = GREATEST(team_usage.charging_sessions, EXCLUDED.charging_sessions),
        energy_wh = GREATEST(team_usage.energy_wh, EXCLUDED.energy_wh),
        computed_at = EXCLUDED.computed_at`;
    const [locked] = await tx.$queryRaw<{ active_chargers: number; billable_reported: number }[]>`
      SELECT active_chargers, billable_reported FROM team_usage
      WHERE team_id = ${teamId} AND month = ${month}::date FOR UPDATE`;
    const profile = await tx.teamBilling.findUnique({ where: { teamId } });
    if (!locked || !profile?.subscriptionRef || !profile.customerRef) return null;
    const billable = billableChargers(locked.active_chargers);
    const delta = billable - locked.billable_reported;
    if (delta <= 0) return null;
    // inside the month it measures (Stripe puts an event in the period of its timestamp)
    const timestamp = new Date(Math.min(now.getTime(), nextMonth(month).getTime() - 1_000));
    const call = await newCall(tx, {
      teamId,
      kind: "meter_event",
      request: { value: delta, timestamp: timestamp.toISOString(), month: monthLabel(month) },
      month,
      value: delta,
    });
    await tx.$executeRaw`
      UPDATE team_usage SET billable_reported = ${billable}
      WHERE team_id = ${teamId} AND month = ${month}::date`;
    return call;
  });
}

/**
 * Every 15 minutes (ocpp process's runner): each billed team's usage this month, and last month's
 * in the first three days of a month (late transactions of its last hours), reported.
 */
export const usageJob = defineCronJob({
  id: "team-billing.usage",
  everyMs: 15 * 60_000,
  handler: async (_slot, ctx) => {
    await recordAllUsage(ctx.db, ctx.now());
    await followCalls(ctx.db, ctx.now());
  },
});

export async function recordAllUsage(db: Db, now: Date) {
  if (!teamBilling()) return;
  const current = monthOf(now);
  const months = [current];
  if (now.getTime() - current.getTime() < 3 * 86_400_000)
    months.push(monthOf(new Date(current.getTime() - 1)));
  // teams with a billing profile, and every team whose projects charged in these months
  const teams = await db.$queryRaw<{ team_id: number }[]>`
    SELECT team_id FROM team_billing
    UNION
    SELECT DISTINCT n.team_id FROM transactions t JOIN tenants n ON n.id = t.tenant_id
    WHERE n.kind = 'project' AND t.started_at >= ${months.at(-1)!} AND t.started_at <= ${now}`;
  for (const { team_id } of teams)
    for (const month of months) await recordUsage(db, team_id, month, now);
}

/** The team's usage by month, newest first: this month's live, earlier ones as recorded. */
export async function listUsage(db: DbTx, teamId: number, now = new Date()) {
  const current = monthOf(now);
  const [live, rows] = await Promise.all([
    computeUsage(db, teamId, current),
    db.teamUsage.findMany({ where: { teamId }, orderBy: { month: "desc" }, take: 12 }),
  ]);
  const oldest = rows.reduce((m, r) => (r.month < m ? r.month : m), current);
  const requests = await apiRequestsByMonth(db, teamId, oldest);
  const present = (month: Date, u: Usage, reported: number, computedAt: Date) => {
    const billable = billableChargers(u.activeChargers);
    return {
      month: monthLabel(month),
      active_chargers: u.activeChargers,
      charging_sessions: u.chargingSessions,
      energy_wh: u.energyWh,
      energy_kwh: (u.energyWh / 1000).toFixed(3),
      api_requests: requests.get(monthLabel(month)) ?? 0,
      billable_active_chargers: billable,
      reported_active_chargers: reported,
      estimated_minor: billable * PLAN.price_per_active_charger_minor,
      computed_at: computedAt.toISOString(),
    };
  };
  const stored = rows.find((r) => r.month.getTime() === current.getTime());
  return [
    present(current, live, stored?.billableReported ?? 0, now),
    ...rows
      .filter((r) => r.month.getTime() !== current.getTime())
      .map((r) =>
        present(
          r.month,
          {
            activeChargers: r.activeChargers,
            chargingSessions: r.chargingSessions,
            energyWh: Number(r.energyWh),
          },
          r.billableReported,
          r.computedAt,
        ),
      ),
  ];
}

export async function listInvoices(db: DbTx, teamId: number) {
  const rows = await db.teamInvoice.findMany({
    where: { teamId },
    orderBy: { createdAt: "desc" },
    take: 24,
  });
  const iso = (d: Date | null) => d?.toISOString() ?? null;
  return rows.map((r) => ({
    id: r.id,
    number: r.number,
    status: r.status as "draft" | "open" | "paid" | "void" | "uncollectible",
    amount_due_minor: r.amountDueMinor,
    amount_paid_minor: r.amountPaidMinor,
    currency: r.currency,
    hosted_url: r.hostedUrl,
    pdf_url: r.pdfUrl,
    period_start: iso(r.periodStart),
    period_end: iso(r.periodEnd),
    due_at: iso(r.dueAt),
    overdue_since: iso(r.overdueSince),
    created_at: r.createdAt.toISOString(),
  }));
}
