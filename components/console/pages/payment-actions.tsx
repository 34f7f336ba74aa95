"use client";

import { useState } from "react";
import { ConfirmDialog } from "../confirm-dialog";
import { useProject } from "../context";
import { useV1Mutation, type V1 } from "../hooks";
import { newRequestKey, useTRPC } from "../trpc";
import { Button } from "../ui";
import { SETTLED, actionRules, consequence, plainError, type PaymentAction } from "./payment-rules";

type Bill = V1["getBill"];
type Payment = V1["getPayment"];

const LABELS: Record<PaymentAction, { button: string; title: string; confirm: string }> = {
  capture: { button: "Capture…", title: "Capture the final bill?", confirm: "Capture now" },
  release: { button: "Release…", title: "Release the hold?", confirm: "Release now" },
  refund: { button: "Refund…", title: "Refund the payment?", confirm: "Refund now" },
};

/** A refused call in plain words, with the API's code for support. */
export function PlainError({ error }: { error: unknown }) {
  const { text, code } = plainError(error);
  return (
    <p
      role="alert"
      data-testid="payment-error"
      className="rounded-md border border-red-200 bg-red-50 p-3 text-sm text-red-800 dark:border-red-900 dark:bg-red-950 dark:text-red-200"
    >
      {text}
      {code ? <code className="ml-2 text-xs">({code})</code> : null}
    </p>
  );
}

/**
 * Capture, release and refund, each behind a confirmation that states the amount. A button the
 * payment's status or the role forbids is disabled and says why; a refusal the bill's state
 * predicts is said beside it and in the dialog, and the API decides (see `actionRules`); any
 * refusal is shown in plain words. One Idempotency-Key per confirmed action: made when the dialog opens, so pressing
 * confirm again after a lost answer replays the same call instead of making a second one.
 */
export function PaymentActions({
  tenantId,
  bill,
  payment,
}: {
  tenantId: number;
  bill: Bill;
  payment: Payment;
}) {
  const trpc = useTRPC();
  const project = useProject(tenantId);
  const mutations = {
    capture: useV1Mutation(trpc.v1.capturePayment),
    release: useV1Mutation(trpc.v1.releasePayment),
    refund: useV1Mutation(trpc.v1.refundPayment),
  };
  const [open, setOpen] = useState<{ action: PaymentAction; key: string } | null>(null);
  const rules = actionRules(bill, payment, project.denied);
  const running = open ? mutations[open.action] : null;
  // A role without the scope does not get the action at all (as /v1 would refuse it).
  const offered = (["capture", "release", "refund"] as const).filter(
    (a) => !(a === "refund" ? project.denied("billing:refund") : project.denied("billing:write")),
  );
  if (project.loading) return null;
  if (SETTLED.includes(payment.status))
    return (
      <p className="mt-4 text-sm text-slate-600 dark:text-slate-400" data-testid="payment-actions">
        The payment is {payment.status}: there is nothing more to capture, release or refund.
      </p>
    );
  return (
    <div className="mt-4" data-testid="payment-actions">
      {offered.length === 0 ? (
        <p className="text-sm text-slate-600 dark:text-slate-400">
          {project.denied("billing:write")}
        </p>
      ) : (
        <div className="flex flex-wrap gap-2">
          {offered.map((action) => (
            <Button
              key={action}
              variant={action === "capture" ? "primary" : "secondary"}
              disabledReason={rules[action].blocked}
              aria-describedby={
                rules[action].blocked || rules[action].refusal ? `why-${action}` : undefined
              }
              onClick={() => {
                mutations[action].reset();
                setOpen({ action, key: newRequestKey() });
              }}
            >
              {LABELS[action].button}
            </Button>
          ))}
        </div>
      )}
      <ul className="mt-2 space-y-1 text-xs text-slate-600 dark:text-slate-400">
        {offered.map((a) => {
          const why = rules[a].blocked ?? rules[a].refusal;
          return why ? (
            <li key={a} id={`why-${a}`} data-testid={`why-not-${a}`}>
              {LABELS[a].button.replace("…", "")}
              {rules[a].blocked ? "" : " (the service will refuse it now)"}: {why}
            </li>
          ) : null;
        })}
      </ul>
      {open && running ? (
        <ConfirmDialog
          open
          title={LABELS[open.action].title}
          confirmLabel={LABELS[open.action].confirm}
          danger={open.action !== "capture"}
          busy={running.isPending}
          error={running.error ? <PlainError error={running.error} /> : null}
          onCancel={() => setOpen(null)}
          onConfirm={() =>
            void running
              .run({
                params: { tenant_id: tenantId, payment_id: payment.id },
                idempotencyKey: open.key,
              })
              .then(
                () => setOpen(null),
                () => undefined,
              )
          }
        >
          <p data-testid="confirm-consequence">{consequence(open.action, bill, payment)}</p>
          {rules[open.action].refusal ? (
            <p className="mt-2 text-amber-800 dark:text-amber-200">
              As this page last read the bill: {rules[open.action].refusal}
            </p>
          ) : null}
        </ConfirmDialog>
      ) : null}
    </div>
  );
}
