import type { UserCaller } from "../access/caller";
import { requireTeam, requireTeamRead, teamAccess } from "../access/team-access";
import type { DbTx } from "../db";
import { DomainError } from "../errors";
import type { TeamBilling } from "../generated/prisma/client";
import type { BillingProfile } from "./billing-schema";
import { PLAN } from "./plan";
import { hasBillingMethod } from "./standing";
import { teamBilling } from "./stripe-billing";

/** Reads: owners, admins and the billing role (platform staff too). 404 for non-members. */
export async function requireBillingReader(db: DbTx, caller: UserCaller, teamId: number) {
  const access = await teamAccess(db, caller, teamId);
  requireTeamRead(access, "readBilling", "read the team's billing");
}

/** Card and bank account: signed-in owners and the billing role only (not staff, not keys). */
export async function requireBillingManager(db: DbTx, caller: UserCaller, teamId: number) {
  const access = await teamAccess(db, caller, teamId);
  requireTeam(access, "manageBilling", "manage the team's payment methods");
}

/** The team's billing row, made on first use, locked for the caller's transaction. */
export async function lockProfile(tx: DbTx, teamId: number): Promise<TeamBilling> {
  await tx.$executeRaw`INSERT INTO team_billing (team_id) VALUES (${teamId}) ON CONFLICT (team_id) DO NOTHING`;
  const rows = await tx.$queryRaw<{ team_id: number }[]>`
    SELECT team_id FROM team_billing WHERE team_id = ${teamId} FOR UPDATE`;
  if (rows.length === 0) throw new Error(`team_billing row of team ${teamId} vanished`);
  return tx.teamBilling.findUniqueOrThrow({ where: { teamId } });
}

export function requireOn() {
  const config = teamBilling();
  if (!config)
    throw new DomainError(
      "team_billing_off",
      "Team billing is off in this service (no STRIPE_SECRET_KEY, STRIPE_BILLING_WEBHOOK_SECRET and STRIPE_BILLING_PRICE_ID): there is nothing to pay and nothing is limited.",
      { reason: "team billing is not configured" },
    );
  return config;
}

type Card = { ref: string; brand: string; last4: string; exp_month: number; exp_year: number };
type Bank = { ref: string; bank_name: string; last4: string; account_type: string };

export async function readProfile(db: DbTx, teamId: number): Promise<BillingProfile> {
  const [row, calls] = await Promise.all([
    db.teamBilling.findUnique({ where: { teamId } }),
    db.teamBillingCall.findMany({
      where: { teamId, kind: { not: "meter_event" } },
      orderBy: { createdAt: "desc" },
      take: 10,
    }),
  ]);
  const config = teamBilling();
  const card = (row?.card ?? null) as Card | null;
  const bank = (row?.bankAccount ?? null) as Bank | null;
  const status = (row?.status ?? "active") as BillingProfile["status"];
  const withMethod = row ? hasBillingMethod(row) : false;
  return {
    team_id: teamId,
    enabled: config !== null,
    plan: PLAN,
    status,
    past_due_since: row?.pastDueSince?.toISOString() ?? null,
    suspended_at: row?.suspendedAt?.toISOString() ?? null,
    grace_days: config?.graceDays ?? null,
    invoicing_mode: row?.invoicingMode === "send_invoice" ? "send_invoice" : "automatic",
    card: card
      ? {
          id: card.ref,
          brand: card.brand,
          last4: card.last4,
          exp_month: card.exp_month,
          exp_year: card.exp_year,
        }
      : null,
    bank_account: bank
      ? {
          id: bank.ref,
          bank_name: bank.bank_name,
          last4: bank.last4,
          account_type: bank.account_type,
        }
      : null,
    default_method:
      row?.defaultMethodRef && card?.ref === row.defaultMethodRef
        ? "card"
        : row?.defaultMethodRef && bank?.ref === row.defaultMethodRef
          ? "bank_account"
          : null,
    pending_setups: { card: Boolean(row?.cardSetupRef), bank_account: Boolean(row?.bankSetupRef) },
    project_limit: !config || withMethod ? PLAN.max_projects : PLAN.included_projects,
    what_to_do: !config
      ? null
      : status === "suspended"
        ? "Suspended: pay the open invoice (GET …/billing/invoices has its link) or put a working card or bank account on file. New projects and stations are refused (402 billing_suspended) until then; chargers keep charging."
        : status === "past_due"
          ? `An invoice is overdue: pay it or update the card or bank account on file within ${config.graceDays} days of it falling due, or new projects and stations will be refused.`
          : !withMethod
            ? `No card or bank account on file: ${PLAN.included_projects} projects and ${PLAN.included_active_chargers} active chargers a month are free; put one on file for more.`
            : null,
    calls: calls.map((c) => {
      const error = c.error as { kind?: string; message?: string } | null;
      return {
        id: c.id,
        kind: c.kind as BillingProfile["calls"][number]["kind"],
        status: c.status as BillingProfile["calls"][number]["status"],
        error: error ? { kind: error.kind ?? "unknown", message: error.message ?? "" } : null,
        created_at: c.createdAt.toISOString(),
        completed_at: c.completedAt?.toISOString() ?? null,
      };
    }),
  };
}
