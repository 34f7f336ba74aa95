import type { WorkspacePrincipal } from "../access/caller";
import type { DbTx } from "../db";
import { DomainError, notFound } from "../errors";
import { refundPayment } from "../payments/refund-payment";
import { atomically } from "./atomically";
import { lockSandboxSession, presentSandboxSession, loadSessionFacts } from "./session-facts";
import type { SandboxSessionResource } from "./session-schema";
import { enqueueDrive } from "./session-status";

/**
 * `POST /v1/sessions/{id}/refund`: refunds the settled session's simulator payment in full, once
 * (the production refund: a journaled attempt). Before the session settled: 409
 * `session_not_settled` (stop it and wait for `settled`); a refund asked again under another key,
 * in flight or done: 409 `session_already_refunded` (the same key replays the first answer); a
 * zero session released its hold and captured nothing: 409 `payment_not_captured`.
 */
export async function refundSandboxSession(
  db: DbTx,
  principal: WorkspacePrincipal,
  id: string,
): Promise<SandboxSessionResource> {
  return atomically(db, async (tx) => {
    const facts = await lockSandboxSession(tx, { tenantId: principal.tenantId, id });
    if (!facts) throw notFound("sandbox session");
    const paid = facts.payment?.status;
    if (facts.row.status === "refunded" || paid === "refunding" || paid === "refunded")
      throw new DomainError(
        "session_already_refunded",
        "The session's payment was already refunded (a payment is refunded once, in full); nothing new was started.",
        { session_id: id, status: facts.row.status, payment_status: paid ?? null },
      );
    if (facts.row.status !== "settled" || !facts.payment)
      throw new DomainError(
        "session_not_settled",
        facts.row.status === "failed"
          ? "The session failed to start: nothing was captured, so there is nothing to refund."
          : "Only a settled session is refunded: stop it (POST /v1/sessions/{session_id}/stop) and wait for status settled.",
        { session_id: id, status: facts.row.status },
      );
    await refundPayment({ tenantId: principal.tenantId, paymentId: facts.payment.id, db: tx });
    await enqueueDrive(tx, id, "refund");
    return presentSandboxSession(tx, (await loadSessionFacts(tx, { id }))!);
  });
}
