import type { DbTx } from "../db";
import { DomainError } from "../errors";
import { PLAN } from "./plan";
import { teamBilling } from "./stripe-billing";

/**
 * What team billing limits, read in the caller's transaction. With team billing off nothing is
 * limited beyond the service's own cap of projects.
 */

/** Whether the team may be billed without asking: a card or bank account on file, or invoicing. */
export function hasBillingMethod(profile: {
  card: unknown;
  bankAccount: unknown;
  invoicingMode: string;
}): boolean {
  return Boolean(profile.card || profile.bankAccount) || profile.invoicingMode === "send_invoice";
}

/** How many projects the team may have now. */
export async function projectLimit(tx: DbTx, teamId: number): Promise<number> {
  if (!teamBilling()) return PLAN.max_projects;
  const profile = await tx.teamBilling.findUnique({ where: { teamId } });
  return profile && hasBillingMethod(profile) ? PLAN.max_projects : PLAN.included_projects;
}

/**
 * Refuses a write that creates cost while the team is suspended: 402 `billing_suspended`, with
 * what to do. Which writes call this is listed in server/team-billing/README.md ("Suspension").
 */
export async function requireNotSuspended(tx: DbTx, teamId: number): Promise<void> {
  if (!teamBilling()) return;
  const profile = await tx.teamBilling.findUnique({
    where: { teamId },
    select: { status: true, suspendedAt: true },
  });
  if (profile?.status !== "suspended") return;
  throw new DomainError(
    "billing_suspended",
    "This team's billing is suspended: an invoice is unpaid past its grace period. Pay the open invoice (its link is in GET /v1/teams/{team_id}/billing/invoices) or put a working card or bank account on file; chargers keep charging and reads keep working meanwhile.",
    {
      team_id: teamId,
      suspended_at: profile.suspendedAt?.toISOString() ?? null,
      invoices: `/v1/teams/${teamId}/billing/invoices`,
      payment_method_setup: `/v1/teams/${teamId}/billing/payment-method/setup`,
    },
  );
}

/**
 * `requireNotSuspended` for a project's team. The team's sandbox is no project and costs nothing
 * (its virtual chargers never count), so it is never refused.
 */
export async function requireTenantNotSuspended(tx: DbTx, tenantId: number): Promise<void> {
  if (!teamBilling()) return;
  const tenant = await tx.tenant.findUnique({
    where: { id: tenantId },
    select: { teamId: true, kind: true },
  });
  if (tenant?.kind === "project") await requireNotSuspended(tx, tenant.teamId);
}
