import { DomainError } from "../errors";

/**
 * A bill whose settlement an external charging session owns (settlement_owner `external`, issue
 * 14) is never paid, started or finalized through this service's managed flow: the application
 * settles it and reports what happened on the session. 409 `bill_externally_settled`, with the
 * session to use. The payments service calls this holding the bill's lock, before it creates an
 * authorization, captures, releases or refunds anything for the bill.
 */
export function requireManagedSettlement(bill: {
  id: string;
  settlementOwner: string;
  sessionId: string | null;
}) {
  if (bill.settlementOwner !== "external") return;
  throw new DomainError(
    "bill_externally_settled",
    "The bill is settled by its external charging session; use the session's routes.",
    { bill_id: bill.id, session_id: bill.sessionId },
  );
}
