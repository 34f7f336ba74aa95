"use client";

import { useEffect, useId, useRef, useState, type ReactNode } from "react";
import { httpStatusOf } from "./trpc";
import { moment } from "./zoned-time";

/** The API's error body (`{ code, message, details }`) as the console receives it. */
export type ApiErrorBody = { code: string; message: string; details: Record<string, unknown> };

/** A JSON object (not an array, not null): what an untyped field of an answer is read as. */
export const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);

/**
 * The API's error body of a failed console call (tRPC's `error.data.apiError`, see
 * server/trpc/init.ts), or null for any other failure (a network error, a dropped connection).
 */
export function apiError(error: unknown): ApiErrorBody | null {
  const api = isRecord(error) && isRecord(error.data) ? error.data.apiError : null;
  if (!isRecord(api) || typeof api.code !== "string" || typeof api.message !== "string") {
    return null;
  }
  return {
    code: api.code,
    message: api.message,
    details: isRecord(api.details) ? api.details : {},
  };
}

/**
 * A refused field's path (`body.address.country`, `elements[0].price_components.0.price`) in words
 * ("Country", "Element 1, price component 1, price"): the part (body, query, path) is dropped, a
 * list's index is the item's number, underscores are spaces. `labels` names a field as its form
 * does (by its last segment or its whole path).
 */
export function fieldWords(path: string, labels: Record<string, string> = {}): string {
  const parts = path.split(/[.[\]]/).filter(Boolean);
  if (["body", "query", "path", "params", "header"].includes(parts[0] ?? "")) parts.shift();
  const joined = parts.join(".");
  const last = parts[parts.length - 1] ?? "";
  const named = labels[joined] ?? labels[last];
  if (named) return named;
  if (parts.length === 0) return "The request";
  const words: string[] = [];
  parts.forEach((part, i) => {
    const next = parts[i + 1];
    if (/^\d+$/.test(part)) return;
    const spaced = part.replace(/_/g, " ");
    if (next !== undefined && /^\d+$/.test(next)) {
      const one = spaced.endsWith("ies")
        ? `${spaced.slice(0, -3)}y`
        : spaced.endsWith("s")
          ? spaced.slice(0, -1)
          : spaced;
      words.push(`${one} ${Number(next) + 1}`);
    } else words.push(spaced);
  });
  const text = words.join(", ");
  return text.charAt(0).toUpperCase() + text.slice(1);
}

/**
 * A failed call in words: the API's message, or, when it refused named fields (whose message
 * names their paths), each field in words with its reason. Never the error's code.
 */
export function errorMessage(error: unknown, labels: Record<string, string> = {}): string {
  const fields = fieldErrors(error);
  if (fields.length > 0)
    return `Check ${fields.length === 1 ? "this field" : "these fields"}: ${fields
      .map((f) => `${fieldWords(f.field, labels)}: ${f.message.replace(/\.$/, "")}`)
      .join("; ")}.`;
  return (
    apiError(error)?.message ??
    (error instanceof Error ? error.message : null) ??
    "Something went wrong."
  );
}

/** Field-level messages from a 422 (`details.fields[]`) or a tariff's `details.errors[]`. */
export function fieldErrors(error: unknown): { field: string; message: string }[] {
  const details = apiError(error)?.details ?? {};
  const list = details.fields ?? details.errors;
  if (!Array.isArray(list)) return [];
  return list.filter(isRecord).map((f) => ({
    field: typeof f.field === "string" ? f.field : typeof f.path === "string" ? f.path : "",
    message: typeof f.message === "string" ? f.message : "",
  }));
}

const base =
  "inline-flex items-center justify-center gap-1 rounded-md px-3 py-1.5 text-sm font-medium focus-visible:ring-2 focus-visible:ring-teal-600 focus-visible:ring-offset-1 focus-visible:outline-none disabled:cursor-not-allowed disabled:opacity-50";
export const buttonStyles = {
  primary: `${base} bg-teal-700 text-white hover:bg-teal-800`,
  secondary: `${base} border border-slate-300 bg-white hover:bg-slate-100 dark:border-slate-700 dark:bg-slate-900 dark:hover:bg-slate-800`,
  danger: `${base} bg-red-700 text-white hover:bg-red-800`,
};

export function Button({
  variant = "secondary",
  disabledReason,
  className = "",
  ...props
}: React.ButtonHTMLAttributes<HTMLButtonElement> & {
  variant?: keyof typeof buttonStyles;
  /** when set, the button is disabled and says why */
  disabledReason?: string | null;
}) {
  return (
    <button
      type="button"
      {...props}
      disabled={Boolean(disabledReason) || props.disabled}
      title={disabledReason ?? props.title}
      className={`${buttonStyles[variant]} ${className}`}
    />
  );
}

export function PageHeader({
  title,
  description,
  actions,
}: {
  title: string;
  description?: ReactNode;
  actions?: ReactNode;
}) {
  return (
    <div className="mb-6 flex flex-wrap items-start justify-between gap-3">
      <div className="min-w-0">
        <h1 className="text-2xl font-semibold tracking-tight break-words">{title}</h1>
        {description ? (
          <p className="mt-1 text-sm text-slate-600 dark:text-slate-400">{description}</p>
        ) : null}
      </div>
      {actions ? <div className="flex flex-wrap gap-2">{actions}</div> : null}
    </div>
  );
}

export function Card({
  title,
  children,
  actions,
  testId,
}: {
  title?: ReactNode;
  children: ReactNode;
  actions?: ReactNode;
  testId?: string;
}) {
  return (
    <section
      data-testid={testId}
      className="mb-6 min-w-0 rounded-lg border border-slate-200 bg-white p-4 shadow-sm dark:border-slate-800 dark:bg-slate-900"
    >
      {title || actions ? (
        <div className="mb-3 flex flex-wrap items-center justify-between gap-2">
          {title ? <h2 className="text-lg font-semibold">{title}</h2> : <span />}
          {actions}
        </div>
      ) : null}
      {children}
    </section>
  );
}

export function Loading({ label = "Loading…" }: { label?: string }) {
  return (
    <div
      role="status"
      aria-busy="true"
      data-testid="loading-state"
      className="flex items-center gap-2 py-6 text-sm text-slate-600 dark:text-slate-300"
    >
      {/* the dot pulses, not the words: faded text falls below the contrast its reader needs */}
      <span aria-hidden="true" className="size-2 animate-pulse rounded-full bg-slate-400" />
      {label}
    </div>
  );
}

export function Empty({ title, children }: { title: string; children?: ReactNode }) {
  return (
    <div
      data-testid="empty-state"
      className="rounded-md border border-dashed border-slate-300 p-6 text-center dark:border-slate-700"
    >
      <p className="font-medium">{title}</p>
      {children ? (
        <div className="mt-2 text-sm text-slate-600 dark:text-slate-400">{children}</div>
      ) : null}
    </div>
  );
}

/**
 * A failed call, said in words: the API's message, or each refused field in words (`fieldWords`).
 * The API's error code is kept in `data-error-code` for debugging and tests, never shown.
 * `labels` names fields as the page's form does.
 */
export function ErrorBox({
  error,
  retry,
  labels,
  teamId,
}: {
  error: unknown;
  retry?: () => void;
  labels?: Record<string, string>;
  /** the team a refused write was for, when the page knows it (to link its Billing page) */
  teamId?: number;
}) {
  const body = apiError(error);
  const fields = fieldErrors(error);
  const billing = billingRefusal(body, teamId);
  return (
    <div
      role="alert"
      data-testid="error-state"
      data-error-code={body?.code}
      className="rounded-md border border-red-200 bg-red-50 p-4 text-sm text-red-800 dark:border-red-900 dark:bg-red-950 dark:text-red-200"
    >
      {fields.length ? (
        <>
          <p>{fields.length === 1 ? "Check this field:" : "Check these fields:"}</p>
          <ul className="mt-2 list-disc pl-5" data-testid="field-errors">
            {fields.map((f, i) => (
              <li key={i} data-field={f.field}>
                <strong>{fieldWords(f.field, labels)}</strong>: {f.message}
              </li>
            ))}
          </ul>
        </>
      ) : billing ? (
        <p>
          {billing.words}{" "}
          <a href={billing.href} className="inline-block py-0.5 font-medium underline">
            Go to the team&apos;s Billing page
          </a>
        </p>
      ) : (
        <p>{errorMessage(error)}</p>
      )}
      {retry ? (
        <Button className="mt-3" onClick={retry}>
          Retry
        </Button>
      ) : null}
    </div>
  );
}

/**
 * A write refused by team billing, in the console's words with the way to the team's Billing page
 * (the API's own message points at /v1 routes): 402 `billing_suspended` names its team; a
 * `project_limit` that a billing method would lift, when the page knows the team.
 */
export function billingRefusal(
  body: ApiErrorBody | null,
  teamId?: number,
): { words: string; href: string } | null {
  if (body?.code === "billing_suspended" && typeof body.details.team_id === "number")
    return {
      words:
        "Refused: this team's billing is suspended, because an invoice is unpaid past its grace period. New projects and stations are refused until it is paid; pay the open invoice or put a working card or bank account on file. Chargers keep charging meanwhile.",
      href: `/console/teams/${body.details.team_id}/billing`,
    };
  if (body?.code === "project_limit" && body.details.billing_method_required === true && teamId)
    return {
      words: `Refused: this team has the ${String(body.details.limit)} projects its plan includes without a billing method. Put a card or bank account on file for up to ${String(body.details.max_projects)}.`,
      href: `/console/teams/${teamId}/billing`,
    };
  return null;
}

/** Loading, error and empty states around a query's data. */
export function QueryState<T>({
  query,
  empty,
  isEmpty,
  children,
}: {
  query: { data?: T; error: unknown; isPending: boolean; refetch: () => unknown };
  empty?: ReactNode;
  isEmpty?: (data: T) => boolean;
  children: (data: T) => ReactNode;
}) {
  if (query.isPending) return <Loading />;
  if (httpStatusOf(query.error) === 404)
    return (
      <div data-testid="not-found" role="alert">
        <Empty title="Not found">
          {errorMessage(query.error)} It may have been deleted, or the address is mistyped.
        </Empty>
      </div>
    );
  if (query.error || query.data === undefined)
    return <ErrorBox error={query.error} retry={() => void query.refetch()} />;
  if (isEmpty?.(query.data)) return <>{empty}</>;
  return <>{children(query.data)}</>;
}

/**
 * A labelled field with its rule (hint) shown before submit and its error beside it in words;
 * the control gets the id, `aria-invalid` and `aria-describedby` to spread.
 */
export function Field({
  label,
  error,
  hint,
  children,
}: {
  label: string;
  error?: string;
  hint?: string;
  children: (props: {
    id: string;
    "aria-invalid": boolean;
    "aria-describedby": string | undefined;
  }) => ReactNode;
}) {
  const id = useId();
  const described = [hint ? `${id}-hint` : null, error ? `${id}-error` : null]
    .filter(Boolean)
    .join(" ");
  return (
    <div className="block min-w-0 text-sm">
      <label htmlFor={id} className="font-medium">
        {label}
      </label>
      {children({ id, "aria-invalid": Boolean(error), "aria-describedby": described || undefined })}
      {hint ? (
        <span id={`${id}-hint`} className="mt-1 block text-xs text-slate-600 dark:text-slate-400">
          {hint}
        </span>
      ) : null}
      {error ? (
        <span
          id={`${id}-error`}
          data-testid="field-error"
          className="mt-1 block text-xs text-red-700 dark:text-red-300"
        >
          {error}
        </span>
      ) : null}
    </div>
  );
}

export const inputStyles =
  "mt-1 block w-full rounded-md border border-slate-300 bg-white px-3 py-1.5 text-sm focus:border-teal-600 focus:ring-2 focus:ring-teal-600 focus:outline-none dark:border-slate-700 dark:bg-slate-950";

/**
 * A select as wide as its longest option: at least its box's width (`min-w-full`), never narrower
 * than its options (`w-auto` keeps its own width in a grid or flex row, where a percentage width
 * would let it be squeezed), and never wider than a phone's screen less the page's margins.
 */
export const selectStyles = inputStyles.replace(
  "w-full",
  "w-auto min-w-full max-w-[calc(100vw-4rem)]",
);

export function TextField({
  label,
  hint,
  ...props
}: React.InputHTMLAttributes<HTMLInputElement> & { label: string; hint?: string }) {
  const id = useId();
  return (
    <div className="block text-sm">
      <label htmlFor={id} className="font-medium">
        {label}
      </label>
      <input
        id={id}
        {...props}
        className={inputStyles}
        aria-describedby={hint ? `${id}-hint` : undefined}
      />
      {hint ? (
        <span id={`${id}-hint`} className="mt-1 block text-xs text-slate-500">
          {hint}
        </span>
      ) : null}
    </div>
  );
}

export function SelectField({
  label,
  hint,
  children,
  ...props
}: React.SelectHTMLAttributes<HTMLSelectElement> & { label: string; hint?: string }) {
  const id = useId();
  return (
    <div className="block text-sm">
      <label htmlFor={id} className="font-medium">
        {label}
      </label>
      <select
        id={id}
        {...props}
        className={selectStyles}
        aria-describedby={hint ? `${id}-hint` : undefined}
      >
        {children}
      </select>
      {hint ? (
        <span id={`${id}-hint`} className="mt-1 block text-xs text-slate-600 dark:text-slate-400">
          {hint}
        </span>
      ) : null}
    </div>
  );
}

/** A select's value as one of the values it offers; anything else (no option gives it) is `fallback`. */
export function oneOf<const T extends string>(values: readonly T[], value: string, fallback: T): T {
  return values.find((v) => v === value) ?? fallback;
}

/** A secret shown once, with a copy button. */
export function SecretOnce({ secret, label }: { secret: string; label: string }) {
  const [copied, setCopied] = useState(false);
  return (
    <div className="rounded-md border border-amber-300 bg-amber-50 p-3 text-sm dark:border-amber-800 dark:bg-amber-950">
      <p className="font-medium">{label}</p>
      <p className="mt-1 text-xs">Copy it now: you will not see it again.</p>
      <div className="mt-2 flex flex-wrap items-center gap-2">
        <code
          data-testid="secret-once"
          className="rounded bg-white px-2 py-1 break-all dark:bg-slate-900"
        >
          {secret}
        </code>
        <Button
          onClick={() => {
            void navigator.clipboard?.writeText(secret).then(
              () => setCopied(true),
              () => setCopied(false),
            );
          }}
        >
          {copied ? "Copied" : "Copy"}
        </Button>
      </div>
    </div>
  );
}

const tones: Record<string, string> = {
  good: "bg-emerald-100 text-emerald-900 dark:bg-emerald-900 dark:text-emerald-100",
  bad: "bg-red-100 text-red-900 dark:bg-red-900 dark:text-red-100",
  warn: "bg-amber-100 text-amber-900 dark:bg-amber-900 dark:text-amber-100",
  neutral: "bg-slate-100 text-slate-800 dark:bg-slate-800 dark:text-slate-100",
};
const toneOf = (value: string) =>
  /^(available|online|connected|succeeded|accepted|delivered|active|charging)$/i.test(value)
    ? "good"
    : /^(faulted|unavailable|rejected|failed|offline|disabled|revoked|unknown)$/i.test(value)
      ? "bad"
      : /^(dispatching|pending|occupied|preparing|finishing|reserved|suspended.*|retrying)$/i.test(
            value,
          )
        ? "warn"
        : "neutral";

export function Badge({ value, testId }: { value: string; testId?: string }) {
  return (
    <span
      data-testid={testId}
      className={`inline-block rounded-full px-2 py-0.5 text-xs font-medium ${tones[toneOf(value)]}`}
    >
      {value}
    </span>
  );
}

/**
 * A table in a box that scrolls sideways when it is wider than the screen (a phone), saying so: while
 * there is more to the right, a shadow on that edge and a "Scroll →" cue above the table. The box
 * takes keyboard focus so people without a pointer can scroll it too (arrow keys). The box is
 * `relative` so positioned cells' contents (a link's screen-reader words) scroll with the table
 * instead of widening the page.
 */
export function Table({
  head,
  label = "Table",
  children,
}: {
  head: string[];
  label?: string;
  children: ReactNode;
}) {
  const box = useRef<HTMLDivElement>(null);
  const [more, setMore] = useState({ left: false, right: false });
  useEffect(() => {
    const el = box.current;
    if (!el) return;
    const measure = () => {
      const left = el.scrollLeft > 1;
      const right = el.scrollLeft + el.clientWidth < el.scrollWidth - 1;
      setMore((m) => (m.left === left && m.right === right ? m : { left, right }));
    };
    measure();
    el.addEventListener("scroll", measure, { passive: true });
    const observer = new ResizeObserver(measure);
    observer.observe(el);
    if (el.firstElementChild) observer.observe(el.firstElementChild);
    return () => {
      el.removeEventListener("scroll", measure);
      observer.disconnect();
    };
  }, []);
  return (
    <div className="relative">
      {more.left || more.right ? (
        <p
          className="mb-1 text-right text-xs text-slate-600 dark:text-slate-400"
          data-testid="scroll-hint"
        >
          {more.right ? "Scroll →" : "← Scroll"}
        </p>
      ) : null}
      <div
        ref={box}
        className="relative overflow-x-auto rounded focus-visible:ring-2 focus-visible:ring-teal-600 focus-visible:outline-none"
        role="region"
        aria-label={more.left || more.right ? `${label} (scrolls sideways)` : label}
        tabIndex={0}
      >
        <table className="w-full text-left text-sm">
          <thead className="border-b border-slate-200 text-xs text-slate-500 uppercase dark:border-slate-800">
            <tr>
              {head.map((h) => (
                <th key={h} scope="col" className="px-2 py-2 font-medium">
                  {h}
                </th>
              ))}
            </tr>
          </thead>
          <tbody className="divide-y divide-slate-100 dark:divide-slate-800">{children}</tbody>
        </table>
      </div>
      {more.left ? (
        <div
          aria-hidden
          className="pointer-events-none absolute bottom-0 left-0 w-6 bg-gradient-to-r from-slate-900/15 to-transparent dark:from-black/50"
          style={{ top: "1.25rem" }}
        />
      ) : null}
      {more.right ? (
        <div
          aria-hidden
          data-testid="scroll-shadow"
          className="pointer-events-none absolute right-0 bottom-0 w-6 bg-gradient-to-l from-slate-900/15 to-transparent dark:from-black/50"
          style={{ top: "1.25rem" }}
        />
      ) : null}
    </div>
  );
}

export const td = "px-2 py-2 align-top";

/** A moment with its zone named, in a station's location zone when given (see `moment`). */
export const when = (iso: string | null | undefined, timeZone?: string | null) =>
  moment(iso, timeZone);
