"use client";

import { useEffect, useId, useRef, type ReactNode } from "react";
import { Button } from "./ui";

/**
 * A modal confirmation (the browser's own `<dialog>`: focus stays inside, Escape cancels) that
 * says what will happen before it happens. `busy` keeps it open and its buttons disabled while
 * the change runs; `error` shows why it was refused, in the dialog, so the person sees it where
 * they acted. `confirmDisabledReason` keeps the confirm button disabled, saying why (e.g. a box to
 * tick first).
 */
export function ConfirmDialog({
  open,
  title,
  children,
  confirmLabel,
  cancelLabel = "Cancel",
  danger = false,
  busy = false,
  error,
  confirmDisabledReason,
  onConfirm,
  onCancel,
}: {
  open: boolean;
  title: string;
  children: ReactNode;
  confirmLabel: string;
  /** the button that closes without acting ("Cancel"; say "Keep …" when the action is a cancel) */
  cancelLabel?: string;
  danger?: boolean;
  busy?: boolean;
  error?: ReactNode;
  confirmDisabledReason?: string | null;
  onConfirm: () => void;
  onCancel: () => void;
}) {
  const ref = useRef<HTMLDialogElement>(null);
  const titleId = useId();
  const bodyId = useId();
  useEffect(() => {
    const dialog = ref.current;
    if (!dialog) return;
    if (open && !dialog.open) dialog.showModal();
    if (!open && dialog.open) dialog.close();
  }, [open]);
  return (
    <dialog
      ref={ref}
      aria-labelledby={titleId}
      aria-describedby={bodyId}
      onCancel={(e) => {
        e.preventDefault();
        if (!busy) onCancel();
      }}
      className="m-auto w-full max-w-md rounded-lg border border-slate-200 bg-white p-5 text-slate-900 shadow-xl backdrop:bg-slate-900/40 dark:border-slate-800 dark:bg-slate-900 dark:text-slate-100"
    >
      <h2 id={titleId} className="text-lg font-semibold">
        {title}
      </h2>
      <div id={bodyId} className="mt-2 text-sm">
        {children}
      </div>
      {error ? <div className="mt-3">{error}</div> : null}
      <div className="mt-5 flex justify-end gap-2">
        <Button onClick={onCancel} disabled={busy}>
          {cancelLabel}
        </Button>
        <Button
          variant={danger ? "danger" : "primary"}
          onClick={onConfirm}
          disabled={busy}
          disabledReason={confirmDisabledReason}
        >
          {busy ? "Working…" : confirmLabel}
        </Button>
      </div>
    </dialog>
  );
}
