"use client";

import { useState } from "react";
import { useProject } from "../context";
import { useV1Mutation, type V1 } from "../hooks";
import { newRequestKey, useTRPC } from "../trpc";
import { ConfirmDialog } from "../confirm-dialog";
import { Button, Card, ErrorBox, TextField } from "../ui";
import { money } from "../money";

type Bill = V1["getBill"];

/** "12.345" kWh as whole Wh; null when it is not an amount of energy. */
const whOf = (text: string): number | null => {
  const m = /^(\d{1,7})(?:\.(\d{1,3}))?$/.exec(text.trim());
  return m ? Number(m[1]) * 1000 + Number((m[2] ?? "0").padEnd(3, "0")) : null;
};

/**
 * Fixes the bill's final amount, once: a simulated bill with the energy delivered (and optionally
 * its charging time), a charger's bill with its ended transaction. Shown only while the bill can
 * be finalized; the API's refusals (e.g. a transaction still running) are shown as it gives them.
 */
export function FinalizeBill({ tenantId, bill }: { tenantId: number; bill: Bill }) {
  const trpc = useTRPC();
  const project = useProject(tenantId);
  const finalize = useV1Mutation(trpc.v1.finalizeBill);
  const [energy, setEnergy] = useState("");
  const [minutes, setMinutes] = useState("");
  const [confirming, setConfirming] = useState<{ key: string } | null>(null);
  const simulated = bill.source === "simulated";
  if (bill.status === "final" || (simulated ? bill.status !== "open" : bill.status !== "ended"))
    return null;
  const energyWh = whOf(energy);
  const seconds =
    minutes.trim() === ""
      ? undefined
      : /^\d{1,5}$/.test(minutes.trim())
        ? Number(minutes) * 60
        : null;
  const invalid = !simulated
    ? null
    : energyWh === null
      ? "Enter the energy delivered in kWh (up to three decimals)."
      : seconds === null
        ? "The charging time is whole minutes."
        : null;
  return (
    <Card title="Finalize" testId="finalize-bill">
      <form
        className="grid max-w-xl gap-3 sm:grid-cols-2"
        onSubmit={(e) => {
          e.preventDefault();
          if (invalid) return;
          finalize.reset();
          setConfirming({ key: newRequestKey() });
        }}
      >
        {simulated ? (
          <>
            <TextField
              label="Energy delivered (kWh)"
              inputMode="decimal"
              value={energy}
              onChange={(e) => setEnergy(e.target.value)}
            />
            <TextField
              label="Charging time (minutes, optional)"
              hint="Default 60, from the bill's creation."
              inputMode="numeric"
              value={minutes}
              onChange={(e) => setMinutes(e.target.value)}
            />
          </>
        ) : (
          <p className="text-sm sm:col-span-2">
            The final amount is priced from transaction {bill.transaction_id}&apos;s meter values.
          </p>
        )}
        <div>
          <Button
            type="submit"
            variant="primary"
            disabledReason={
              project.denied("billing:write") ??
              (energy === "" && simulated ? "Enter the energy delivered." : invalid)
            }
            disabled={finalize.isPending}
          >
            Finalize bill
          </Button>
        </div>
      </form>
      <p className="mt-2 text-xs text-slate-600 dark:text-slate-400">
        The final amount never changes once it is fixed.
      </p>
      <ConfirmDialog
        open={confirming !== null}
        title="Finalize this bill?"
        confirmLabel="Finalize bill"
        danger
        busy={finalize.isPending}
        error={finalize.error ? <ErrorBox error={finalize.error} /> : undefined}
        onCancel={() => setConfirming(null)}
        onConfirm={() => {
          const body = simulated
            ? {
                energy_wh: energyWh ?? 0,
                ...(seconds === undefined || seconds === null ? {} : { duration_seconds: seconds }),
              }
            : { transaction_id: bill.transaction_id ?? 0 };
          void finalize
            .run({
              params: { tenant_id: tenantId, bill_id: bill.id },
              body,
              idempotencyKey: confirming?.key ?? newRequestKey(),
            })
            .then(
              () => setConfirming(null),
              () => undefined,
            );
        }}
      >
        <p>
          The final amount is fixed once and for all
          {simulated
            ? ` from ${energy.trim() || "0"} kWh${seconds ? ` over ${minutes.trim()} minutes` : ""}`
            : ` from transaction ${bill.transaction_id ?? ""}'s meter values`}
          : it can never be changed afterwards, and it is what the payment (hold{" "}
          {money(bill.hold_minor, bill.currency)}) captures.
        </p>
      </ConfirmDialog>
    </Card>
  );
}
