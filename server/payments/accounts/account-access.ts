import { requireUser, type TenantPrincipal } from "../../access/caller";
import { projectTeamAccess, requireTeam, requireTeamRead } from "../../access/team-access";
import type { DbTx } from "../../db";
import { DomainError } from "../../errors";

/**
 * Only a person connects, reads or disconnects where the tenant's money lands (spec section 5):
 * API keys get 403 `user_token_required` whatever their scopes, and of the team only owners and
 * admins (and platform admins; platform support may read) pass, else 403 `forbidden`.
 */
export async function requireAccountManager(
  db: DbTx,
  principal: TenantPrincipal,
  kind: "read" | "write",
): Promise<void> {
  const access = await projectTeamAccess(db, requireUser(principal), principal.tenantId);
  const check = kind === "read" ? requireTeamRead : requireTeam;
  check(
    access,
    "managePaymentAccount",
    `${kind === "read" ? "read" : "change"} the payment account`,
  );
  if (kind === "write") {
    const tenant = await db.tenant.findUnique({
      where: { id: principal.tenantId },
      select: { kind: true },
    });
    // no money lands in a sandbox: it takes simulator payments only (server/sandbox/README.md)
    if (tenant?.kind === "sandbox")
      throw new DomainError(
        "forbidden",
        "A sandbox takes simulator payments only: it has no payment account to connect.",
        { tenant_id: principal.tenantId },
      );
  }
}
