import type { SettlementReport } from "../generated/prisma/client";
import type { ReportKind, ReportOutcome } from "./session-schema";

export type OperationState = {
  kind: ReportKind;
  operation_reference: string;
  outcome: ReportOutcome;
  amount_minor: number;
};

export const isTerminal = (outcome: string) => outcome === "succeeded" || outcome === "failed";
export const operationKey = (kind: string, reference: string) => `${kind}\u0000${reference}`;

/**
 * Each reported money operation's current state, from its reports in the order received: a
 * terminal outcome (`succeeded`, `failed`) is final; before one, the latest report stands
 * (`pending` and `unknown` move on to a terminal one).
 */
export function operationStates(reports: readonly SettlementReport[]) {
  const states = new Map<string, OperationState>();
  for (const r of reports) {
    const key = operationKey(r.kind, r.operationReference);
    const current = states.get(key);
    if (current && isTerminal(current.outcome)) continue;
    states.set(key, {
      kind: r.kind as ReportKind,
      operation_reference: r.operationReference,
      outcome: r.outcome as ReportOutcome,
      amount_minor: r.amountMinor,
    });
  }
  return states;
}

const sum = (states: Iterable<OperationState>, keep: (s: OperationState) => boolean) =>
  [...states].filter(keep).reduce((total, s) => total + s.amount_minor, 0);

/** What the reports say was collected: succeeded captures and refunds. */
export function settledTotals(states: Map<string, OperationState>) {
  const values = [...states.values()];
  return {
    captured: sum(values, (s) => s.kind === "capture" && s.outcome === "succeeded"),
    refunded: sum(values, (s) => s.kind === "refund" && s.outcome === "succeeded"),
    /** captures that are or may be taken: everything but failed ones */
    capturesInPlay: sum(values, (s) => s.kind === "capture" && s.outcome !== "failed"),
    refundsInPlay: sum(values, (s) => s.kind === "refund" && s.outcome !== "failed"),
  };
}
