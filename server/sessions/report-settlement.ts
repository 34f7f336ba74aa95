import { db as defaultDb, type DbTx } from "../db";
import { DomainError, notFound } from "../errors";
import { newId } from "../lib/ids";
import { loadSession, type SessionFacts } from "./session-facts";
import { presentReport, presentSession } from "./present-session";
import type { ReportInput } from "./session-schema";
import {
  isTerminal,
  operationKey,
  operationStates,
  settledTotals,
  type OperationState,
} from "./settlement-state";

export type ReportSettlementOptions = {
  tenantId: number;
  sessionId: string;
  /** who reports (a key or a person), kept on the report */
  actorId: string;
  input: ReportInput;
  db?: DbTx;
};

/**
 * Records what the application says happened to the money of a session (spec section 4, external
 * sessions rule 5; section 3, external settlement outcomes). Reports are append-only assertions
 * with actor and receipt time; they never execute a payment nor change a bill or a payment.
 *
 * - One report per operation (`kind` + `operation_reference`) and outcome, whatever the
 *   Idempotency-Key: the same again returns the historical report (`duplicate: true`) and
 *   changes nothing, even after the operation moved on (a delayed duplicate); the same outcome
 *   with another amount is 409 `settlement_report_conflict`.
 * - `pending` and `unknown` move on to `succeeded` or `failed`; a terminal outcome never changes
 *   (409 `settlement_outcome_final`), nor does its amount.
 * - Captures (all but failed ones) cannot exceed the final bill (409 `session_not_final` before
 *   it is final, `capture_exceeds_bill`); a refund needs a succeeded capture (409
 *   `settlement_capture_missing`) and refunds cannot exceed the succeeded captures (409
 *   `refund_exceeds_captures`).
 *
 * Reports of a session are serialized on its row (no charger-side lock is needed: reports touch
 * nothing a charger's message writes).
 */
export async function reportSettlement({
  tenantId,
  sessionId,
  actorId,
  input,
  db = defaultDb(),
}: ReportSettlementOptions) {
  const locked = await db.$queryRaw<{ id: string }[]>`
    SELECT id FROM charging_sessions WHERE id = ${sessionId} AND tenant_id = ${tenantId}
    FOR NO KEY UPDATE`;
  if (locked.length === 0) throw notFound("charging session");
  const facts = (await loadSession(db, { id: sessionId }))!;
  const states = operationStates(facts.row.reports);
  const key = operationKey(input.kind, input.operation_reference);
  const current = states.get(key);
  const same = facts.row.reports.find(
    (r) =>
      r.kind === input.kind &&
      r.operationReference === input.operation_reference &&
      r.outcome === input.outcome,
  );
  if (same) {
    if (same.amountMinor !== input.amount_minor)
      throw new DomainError(
        "settlement_report_conflict",
        "This operation was already reported with this outcome and another amount.",
        { report: presentReport(same) },
      );
    return answer(facts, presentReport(same), true, current!);
  }
  if (current && isTerminal(current.outcome))
    throw new DomainError(
      "settlement_outcome_final",
      `The operation's outcome is ${current.outcome}: a terminal outcome and its amount never change.`,
      { operation: current },
    );
  requireWithinLimits(facts, states, current, input);
  const report = await db.settlementReport.create({
    data: {
      id: newId("srp"),
      tenantId,
      sessionId,
      kind: input.kind,
      operationReference: input.operation_reference,
      outcome: input.outcome,
      amountMinor: input.amount_minor,
      currency: "USD",
      actorId,
    },
  });
  const after = (await loadSession(db, { id: sessionId }))!;
  return answer(after, presentReport(report), false, operationStates(after.row.reports).get(key)!);
}

function answer(
  facts: SessionFacts,
  report: ReturnType<typeof presentReport>,
  duplicate: boolean,
  operation: OperationState,
) {
  return { report, duplicate, operation, session: presentSession(facts) };
}

/** The money rules, counting this operation's new amount instead of its current one. */
function requireWithinLimits(
  facts: SessionFacts,
  states: Map<string, OperationState>,
  current: OperationState | undefined,
  input: ReportInput,
) {
  const totals = settledTotals(states);
  const mine = current && current.outcome !== "failed" ? current.amount_minor : 0;
  const adds = input.outcome === "failed" ? 0 : input.amount_minor;
  const details = { session_id: facts.row.id, amount_minor: input.amount_minor };
  if (input.kind === "capture") {
    const total = facts.row.bill.totalMinor;
    if (facts.row.bill.status !== "final" || total === null)
      throw new DomainError(
        "session_not_final",
        "A capture is reported against the final bill: finalize the session first.",
        details,
      );
    if (totals.capturesInPlay - mine + adds > total)
      throw new DomainError("capture_exceeds_bill", "Captures cannot exceed the final bill.", {
        ...details,
        total_minor: total,
        captures_minor: totals.capturesInPlay - mine,
      });
  }
  if (input.kind === "refund") {
    if (totals.captured === 0)
      throw new DomainError(
        "settlement_capture_missing",
        "A refund needs its capture: no capture of this session has succeeded.",
        details,
      );
    if (totals.refundsInPlay - mine + adds > totals.captured)
      throw new DomainError("refund_exceeds_captures", "Refunds cannot exceed the captures.", {
        ...details,
        captured_minor: totals.captured,
        refunds_minor: totals.refundsInPlay - mine,
      });
  }
}

/** A session's reports in the order received. */
export async function listReports({
  tenantId,
  sessionId,
  db = defaultDb(),
}: {
  tenantId: number;
  sessionId: string;
  db?: DbTx;
}) {
  const session = await db.chargingSession.findFirst({
    where: { id: sessionId, tenantId },
    include: { reports: { orderBy: [{ receivedAt: "asc" }, { id: "asc" }] } },
  });
  if (!session) throw notFound("charging session");
  return { data: session.reports.map(presentReport) };
}
