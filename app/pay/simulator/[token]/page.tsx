import { notFound, redirect } from "next/navigation";
import {
  actOnSimulatorCheckout,
  simulatorCheckoutView,
  type SimulatorAction,
} from "@/server/payments/simulator-page";

export const dynamic = "force-dynamic";

export const metadata = { title: "Checkout · Payment simulator" };

// Hints keep full-strength colours: text faded with opacity fails WCAG AA contrast on the
// coloured button.
const OUTLINE = {
  style: "border border-slate-300 hover:bg-slate-100 dark:border-slate-700 dark:hover:bg-slate-800",
  hintStyle: "text-slate-600 dark:text-slate-300",
};
const ACTIONS: {
  action: SimulatorAction;
  label: string;
  hint: string;
  style: string;
  hintStyle: string;
}[] = [
  {
    action: "approve",
    label: "Approve",
    hint: "a card that succeeds: the amount is held",
    style: "bg-teal-700 text-white hover:bg-teal-800",
    hintStyle: "text-white",
  },
  {
    action: "decline",
    label: "Decline",
    hint: "a card with insufficient funds: try again",
    ...OUTLINE,
  },
  {
    action: "abandon",
    label: "Abandon",
    hint: "leave without paying: the payment fails",
    ...OUTLINE,
  },
  {
    action: "unfinished",
    label: "Leave unfinished (3-D Secure)",
    hint: "start the bank's check and leave: nothing is held until it is finished",
    ...OUTLINE,
  },
];

async function act(formData: FormData) {
  "use server";
  const field = (name: string) => {
    const value = formData.get(name);
    return typeof value === "string" ? value : "";
  };
  const token = field("token");
  const action = field("action");
  if (!ACTIONS.some((a) => a.action === action)) redirect(`/pay/simulator/${token}`);
  const next = await actOnSimulatorCheckout(token, action as SimulatorAction);
  redirect(next ?? `/pay/simulator/${token}`);
}

/** The built-in simulator's hosted checkout: what a processor's payment page is, minus the card. */
export default async function SimulatorCheckoutPage({
  params,
}: {
  params: Promise<{ token: string }>;
}) {
  const { token } = await params;
  const view = await simulatorCheckoutView(token);
  if (!view) notFound();
  const amount = new Intl.NumberFormat("en-US", { style: "currency", currency: view.currency });
  // Once 3-D Secure is under way, the payer finishes it (approve), fails it, or leaves.
  const actions = view.awaitingAuthentication
    ? ACTIONS.filter((a) => a.action !== "unfinished")
    : ACTIONS;
  // The team's branding is user data: text is escaped by React, the colour is a validated
  // #rrggbb (with a text colour chosen to read on it), the logo an https image without a referrer.
  const brandStyle = view.accent
    ? { backgroundColor: view.accent, color: view.accentText ?? "#ffffff" }
    : undefined;
  return (
    <main className="mx-auto max-w-md px-4 py-12">
      <p className="text-sm font-medium text-slate-600 dark:text-slate-400">
        Payment simulator · no real card is charged
      </p>
      {view.logoUrl && (
        <img
          src={view.logoUrl}
          alt=""
          referrerPolicy="no-referrer"
          data-testid="brand-logo"
          className="mt-4 h-10 w-auto"
        />
      )}
      <h1 className="mt-1 text-2xl font-semibold tracking-tight" data-testid="brand-name">
        Pay {view.projectName}
      </h1>
      <section className="mt-6 rounded-lg border border-slate-200 bg-white p-6 shadow-sm dark:border-slate-800 dark:bg-slate-900">
        <p className="text-sm text-slate-600 dark:text-slate-400">{view.description}</p>
        <p className="mt-2 text-4xl font-semibold" data-testid="amount">
          {amount.format(view.amountMinor / 100)}
        </p>
        <p className="mt-1 text-sm text-slate-600 dark:text-slate-400">
          held now, only the final bill is captured
        </p>
        {view.lastError && view.status === "open" && (
          <p
            role="alert"
            data-testid="checkout-error"
            className="mt-4 rounded-md bg-red-50 px-3 py-2 text-sm text-red-800 dark:bg-red-950 dark:text-red-200"
          >
            {view.lastError}
          </p>
        )}
        {view.awaitingAuthentication && view.status === "open" && (
          <p
            role="status"
            className="mt-4 rounded-md bg-amber-50 px-3 py-2 text-sm text-amber-900 dark:bg-amber-950 dark:text-amber-200"
          >
            3-D Secure was started and not finished: nothing is held yet. Approve to finish it.
          </p>
        )}
        {view.status === "open" ? (
          <form action={act} className="mt-6 grid gap-3">
            <input type="hidden" name="token" value={token} />
            {actions.map((a) => {
              const branded = a.action === "approve" && brandStyle;
              return (
                <button
                  key={a.action}
                  type="submit"
                  name="action"
                  value={a.action}
                  style={branded || undefined}
                  className={`rounded-md px-4 py-2 text-left font-medium focus-visible:ring-2 focus-visible:ring-teal-600 focus-visible:outline-none ${branded ? "hover:opacity-90" : a.style}`}
                >
                  {a.label}
                  <span className={`block text-sm font-normal ${branded ? "" : a.hintStyle}`}>
                    {a.hint}
                  </span>
                </button>
              );
            })}
          </form>
        ) : (
          <p className="mt-6 font-medium" role="status">
            {view.status === "complete"
              ? "Payment authorized. You can close this page."
              : "This checkout is closed."}
          </p>
        )}
      </section>
    </main>
  );
}
