"use client";

import { useState, type ReactNode } from "react";
import { ConfirmDialog } from "./confirm-dialog";
import { Button, ErrorBox } from "./ui";

/**
 * A button for an irreversible or disruptive change: it opens a confirmation that names the
 * effect, and the change is sent only on confirm (Cancel or Escape sends nothing). The dialog
 * stays open while the change runs and shows the API's refusal where the person acted.
 * `run` gets the request key made when the dialog opened, so confirming again after a lost
 * answer replays rather than repeats.
 */
export function ConfirmButton({
  label,
  title,
  confirmLabel,
  children,
  run,
  danger = true,
  variant,
  disabledReason,
  ariaLabel,
  describedBy,
  testId,
}: {
  label: ReactNode;
  title: string;
  confirmLabel: string;
  /** what will happen, in words */
  children: ReactNode;
  run: (requestKey: string) => Promise<unknown>;
  danger?: boolean;
  variant?: "primary" | "secondary" | "danger";
  disabledReason?: string | null;
  ariaLabel?: string;
  /** the id of words beside the button (why it is disabled, say) */
  describedBy?: string;
  testId?: string;
}) {
  const [open, setOpen] = useState(false);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const [key, setKey] = useState("");
  return (
    <>
      <Button
        variant={variant ?? (danger ? "danger" : "secondary")}
        disabledReason={disabledReason}
        aria-label={ariaLabel}
        aria-describedby={describedBy}
        data-testid={testId}
        onClick={() => {
          setError(null);
          setKey(`console-${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 12)}`);
          setOpen(true);
        }}
      >
        {label}
      </Button>
      <ConfirmDialog
        open={open}
        title={title}
        confirmLabel={confirmLabel}
        danger={danger}
        busy={busy}
        error={error ? <ErrorBox error={error} /> : undefined}
        onCancel={() => setOpen(false)}
        onConfirm={() => {
          setBusy(true);
          setError(null);
          run(key).then(
            () => {
              setBusy(false);
              setOpen(false);
            },
            (e: unknown) => {
              setBusy(false);
              setError(e);
            },
          );
        }}
      >
        {children}
      </ConfirmDialog>
    </>
  );
}
