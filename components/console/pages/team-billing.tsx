"use client";

import { useQuery } from "@tanstack/react-query";
import Link from "next/link";
import { useEffect, useRef, useState } from "react";
import { BarSeries } from "../charts";
import { ConfirmButton } from "../confirm-button";
import { useMe } from "../context";
import { useV1Mutation, type V1 } from "../hooks";
import { money } from "../money";
import { useTRPC } from "../trpc";
import {
  Badge,
  Button,
  Card,
  Empty,
  ErrorBox,
  PageHeader,
  QueryState,
  Table,
  td,
  when,
} from "../ui";

type Profile = V1["getTeamBilling"];
type Invoice = V1["listTeamInvoices"]["data"][number];
type Usage = V1["listTeamUsage"]["data"][number];
type Synced = V1["syncTeamCard"]["setup"];
export type SetupKind = "card" | "bank_account";

const STATUS_WORDS: Record<Profile["status"], string> = {
  active: "Active: nothing is overdue.",
  past_due: "Past due: an invoice is overdue, within the grace period.",
  suspended: "Suspended: an invoice is unpaid past the grace period.",
};

const INVOICE_STATUS: Record<Invoice["status"], string> = {
  draft: "draft",
  open: "open (to pay)",
  paid: "paid",
  void: "void",
  uncollectible: "uncollectible",
};

const NOUN: Record<SetupKind, string> = { card: "card", bank_account: "bank account" };

/** A setup's outcome as `/sync` read it from Stripe, in words. */
export function setupWords(setup: Synced, billing: Profile): string {
  const noun = NOUN[setup.kind];
  switch (setup.status) {
    case "saved":
      return `Saved: the ${noun} ${
        setup.kind === "card" ? cardWords(billing.card) : bankWords(billing.bank_account)
      } is on file and pays the team's invoices.`;
    case "declined":
      return `The card was declined: ${setup.error?.message ?? "Stripe gave no reason."} Nothing was saved; try again with another card.`;
    case "verification_pending":
      return "The bank account waits for verification by two small deposits (microdeposits): Stripe emails how to confirm them. It is not on file until it is verified.";
    case "expired":
      return `Stripe's page expired before the ${noun} was saved: nothing was saved. Start again.`;
    case "open":
      return `The ${noun} was not saved: the setup on Stripe's page was left unfinished.`;
    case "none":
      return `No ${noun} setup was started.`;
  }
}

function cardWords(card: Profile["card"]): string {
  if (!card) return "";
  const brand = card.brand.charAt(0).toUpperCase() + card.brand.slice(1);
  return `${brand} ending ${card.last4}, expires ${String(card.exp_month).padStart(2, "0")}/${card.exp_year}`;
}

function bankWords(bank: Profile["bank_account"]): string {
  if (!bank) return "";
  return `${bank.bank_name}, ${bank.account_type} account ending ${bank.last4}`;
}

/**
 * A team's Billing page: what the service charges the team (its plan, standing, usage, invoices)
 * and the card and bank account on file. Owners and billing members manage the methods; admins
 * and platform staff read. Back from Stripe's setup page (`?setup=card|bank_account`), the
 * outcome is read from Stripe with `/sync` (the redirect itself proves nothing) and said.
 */
export function TeamBillingPage({
  teamId,
  setup,
  result,
}: {
  teamId: number;
  setup: SetupKind | null;
  result: "done" | "canceled" | null;
}) {
  const trpc = useTRPC();
  const billing = useQuery(
    trpc.v1.getTeamBilling.queryOptions({ params: { team_id: teamId } }, { retry: false }),
  );
  return (
    <>
      <PageHeader
        title="Billing"
        description="What the service charges this team: the plan, this month's usage, the invoices, and the card or bank account that pays them."
      />
      <QueryState query={billing}>
        {(profile) =>
          profile.enabled ? (
            <BillingOn teamId={teamId} profile={profile} setup={setup} result={result} />
          ) : (
            <BillingOff profile={profile} />
          )
        }
      </QueryState>
    </>
  );
}

/** Team billing off (`enabled: false`): said, with how staff turn it on, and nothing else. */
export function BillingOff({ profile }: { profile: Pick<Profile, "plan"> }) {
  return (
    <Card title="Team billing is off" testId="billing-off">
      <p className="text-sm">
        This service runs without team billing: teams are not charged and nothing is limited by it
        (up to {profile.plan.max_projects} projects per team).
      </p>
      <p className="mt-2 text-sm">
        The service&apos;s operators turn it on by setting <code>STRIPE_SECRET_KEY</code>,{" "}
        <code>STRIPE_BILLING_WEBHOOK_SECRET</code> and <code>STRIPE_BILLING_PRICE_ID</code> (the
        platform&apos;s own Stripe account, a webhook endpoint for its events and the metered price
        per active charger), as the README&apos;s &ldquo;Paying for the service&rdquo; section
        describes.
      </p>
    </Card>
  );
}

function BillingOn({
  teamId,
  profile,
  setup,
  result,
}: {
  teamId: number;
  profile: Profile;
  setup: SetupKind | null;
  result: "done" | "canceled" | null;
}) {
  const me = useMe();
  const role = me.data?.teams.find((t) => t.id === teamId)?.role ?? null;
  const denied =
    role === "owner" || role === "billing"
      ? null
      : "Only the team's owners and billing members manage its card and bank account.";
  return (
    <>
      <StandingBanner profile={profile} />
      {setup ? (
        <SetupReturn
          teamId={teamId}
          kind={setup}
          result={result}
          mayManage={!denied && !me.isPending}
        />
      ) : null}
      <PlanCard profile={profile} />
      <UsageCard teamId={teamId} />
      <InvoicesCard teamId={teamId} />
      <MethodsCard teamId={teamId} profile={profile} denied={me.isPending ? "…" : denied} />
    </>
  );
}

/** Past due or suspended, said at the top with what to do. */
export function StandingBanner({
  profile,
  billingLink,
}: {
  profile: Pick<Profile, "status" | "grace_days" | "suspended_at" | "past_due_since">;
  /** a link to the Billing page (on pages other than it) */
  billingLink?: string;
}) {
  if (profile.status === "active") return null;
  const suspended = profile.status === "suspended";
  return (
    <div
      role={suspended ? "alert" : "status"}
      data-testid="billing-banner"
      data-status={profile.status}
      className={`mb-4 rounded-md border p-4 text-sm ${
        suspended
          ? "border-red-200 bg-red-50 text-red-900 dark:border-red-900 dark:bg-red-950 dark:text-red-100"
          : "border-amber-200 bg-amber-50 text-amber-900 dark:border-amber-900 dark:bg-amber-950 dark:text-amber-100"
      }`}
    >
      <p className="font-semibold">
        {suspended
          ? `This team's billing is suspended (since ${when(profile.suspended_at)}).`
          : `An invoice of this team is overdue (since ${when(profile.past_due_since)}).`}
      </p>
      {/* the console's words, not the API's `what_to_do` (which names /v1 routes) */}
      <p className="mt-1">
        {suspended
          ? "New projects and stations are refused until the overdue invoice is paid. Chargers keep charging, drivers keep paying, and everything else keeps working. To lift it, pay the open invoice (its “Pay or view” link) or put a working card or bank account on file."
          : `Nothing is refused yet. Pay it, or put a working card or bank account on file, within ${profile.grace_days ?? 14} days of it falling due; after that, new projects and stations are refused until it is paid.`}
      </p>
      {billingLink ? (
        <p className="mt-1">
          <Link href={billingLink} className="inline-block py-0.5 font-medium underline">
            Go to the team&apos;s Billing page
          </Link>
        </p>
      ) : (
        <p className="mt-1">
          <a href="#invoices" className="inline-block py-0.5 font-medium underline">
            See the invoices
          </a>
        </p>
      )}
    </div>
  );
}

function PlanCard({ profile }: { profile: Profile }) {
  const plan = profile.plan;
  const method = profile.card || profile.bank_account || profile.invoicing_mode === "send_invoice";
  return (
    <Card title="Plan and standing" testId="billing-plan">
      <p className="mb-3 flex flex-wrap items-center gap-2">
        <Badge value={profile.status} testId="billing-status" />
        <span className="text-sm">{STATUS_WORDS[profile.status]}</span>
      </p>
      <p className="text-sm" data-testid="plan-words">
        {plan.name}: the first {plan.included_active_chargers} active chargers every month are free;
        each one beyond costs {money(plan.price_per_active_charger_minor, plan.currency)} a month.
        An active charger is a station of the team&apos;s projects with at least one charging
        session started that month (sandbox chargers never count).
      </p>
      <p className="mt-2 text-sm" data-testid="project-limit-words">
        Projects: up to {plan.included_projects} without a card or bank account on file, up to{" "}
        {plan.max_projects} with one.{" "}
        {method
          ? `This team may have up to ${profile.project_limit}.`
          : `This team has no billing method on file, so it may have up to ${profile.project_limit}.`}
      </p>
      <p className="mt-2 text-sm" data-testid="invoicing-words">
        {profile.invoicing_mode === "automatic"
          ? "Invoices are paid automatically by the default card or bank account on file, every month."
          : "Invoices are sent to the team to pay within 30 days (set by the service's staff)."}
        {profile.grace_days !== null
          ? ` An invoice still unpaid ${profile.grace_days} days after it falls due suspends new projects and stations until it is paid.`
          : ""}
      </p>
    </Card>
  );
}

const monthWords = (month: string, style: "long" | "short" = "long") => {
  const [y, m] = month.split("-").map(Number);
  return new Date(Date.UTC(y!, (m ?? 1) - 1, 1)).toLocaleString("en-US", {
    month: style,
    year: "numeric",
    timeZone: "UTC",
  });
};

function UsageCard({ teamId }: { teamId: number }) {
  const trpc = useTRPC();
  const usage = useQuery(trpc.v1.listTeamUsage.queryOptions({ params: { team_id: teamId } }));
  return (
    <Card title="Usage" testId="billing-usage">
      <QueryState
        query={usage}
        isEmpty={(d) => d.data.length === 0}
        empty={<Empty title="No usage recorded yet" />}
      >
        {(d) => <UsageFigures months={d.data} />}
      </QueryState>
    </Card>
  );
}

function UsageFigures({ months }: { months: Usage[] }) {
  const now = months[0]!;
  const series = [...months].reverse().map((u) => ({
    label: monthWords(u.month, "short"),
    value: u.active_chargers,
  }));
  return (
    <>
      <h3 className="mb-2 text-sm font-semibold">{monthWords(now.month)} (this month, UTC)</h3>
      <dl
        className="mb-4 grid max-w-xl grid-cols-[max-content_minmax(0,1fr)] gap-x-4 gap-y-1 text-sm"
        data-testid="usage-this-month"
      >
        <dt className="text-slate-500">Active chargers</dt>
        <dd data-testid="usage-active-chargers">{now.active_chargers}</dd>
        <dt className="text-slate-500">Beyond the free ones</dt>
        <dd>{now.billable_active_chargers}</dd>
        <dt className="text-slate-500">Charging sessions</dt>
        <dd data-testid="usage-sessions">{now.charging_sessions}</dd>
        <dt className="text-slate-500">Energy</dt>
        <dd>{now.energy_kwh} kWh</dd>
        <dt className="text-slate-500">API requests</dt>
        <dd data-testid="usage-api-requests">{now.api_requests} (shown, not priced)</dd>
        <dt className="text-slate-500">Estimated charge</dt>
        <dd data-testid="usage-estimate">{money(now.estimated_minor, "usd")}</dd>
        <dt className="text-slate-500">Counted</dt>
        <dd>{when(now.computed_at)}</dd>
      </dl>
      <BarSeries
        data={series}
        caption="Active chargers per month"
        unit="active chargers"
        testId="usage-chart"
      />
      <p className="mt-2 text-sm text-slate-600 dark:text-slate-400" data-testid="usage-words">
        {[...months]
          .reverse()
          .map((u) => `${monthWords(u.month)}: ${u.active_chargers}`)
          .join("; ")}
        .
      </p>
    </>
  );
}

function InvoicesCard({ teamId }: { teamId: number }) {
  const trpc = useTRPC();
  const invoices = useQuery(trpc.v1.listTeamInvoices.queryOptions({ params: { team_id: teamId } }));
  return (
    <section id="invoices" className="scroll-mt-20">
      <Card title="Invoices" testId="billing-invoices">
        <QueryState
          query={invoices}
          isEmpty={(d) => d.data.length === 0}
          empty={
            <Empty title="No invoices yet">Stripe sends the first at the end of a month.</Empty>
          }
        >
          {(d) => (
            <Table
              head={["Invoice", "Status", "Amount", "Period", "Due", "Links"]}
              label="Invoices"
            >
              {d.data.map((i) => (
                <tr key={i.id} data-testid="invoice-row" data-invoice={i.id}>
                  <td className={td}>
                    <span className="break-all">{i.number ?? i.id}</span>
                    <br />
                    <span className="text-xs text-slate-500">{when(i.created_at)}</span>
                  </td>
                  <td className={td}>
                    <Badge value={INVOICE_STATUS[i.status]} testId="invoice-status" />
                    {i.overdue_since && i.status === "open" ? (
                      <p className="mt-1 text-xs text-red-800 dark:text-red-300">
                        overdue since {when(i.overdue_since)}
                      </p>
                    ) : null}
                  </td>
                  <td className={td} data-testid="invoice-amount">
                    {money(i.amount_due_minor, i.currency)}
                    {i.amount_paid_minor > 0 && i.amount_paid_minor !== i.amount_due_minor ? (
                      <span className="block text-xs">
                        paid {money(i.amount_paid_minor, i.currency)}
                      </span>
                    ) : null}
                  </td>
                  <td className={td}>
                    {i.period_start ? `${when(i.period_start)} – ${when(i.period_end)}` : "—"}
                  </td>
                  <td className={td}>{i.due_at ? when(i.due_at) : "automatic payment"}</td>
                  <td className={td}>
                    {i.hosted_url ? (
                      <a
                        className="inline-block py-0.5 text-teal-800 underline dark:text-teal-300"
                        href={i.hosted_url}
                        data-testid="invoice-link"
                      >
                        {i.status === "open" ? "Pay or view" : "View"}
                        <span className="sr-only"> invoice {i.number ?? i.id}</span>
                      </a>
                    ) : null}
                    {i.hosted_url && i.pdf_url ? " · " : null}
                    {i.pdf_url ? (
                      <a
                        className="inline-block py-0.5 text-teal-800 underline dark:text-teal-300"
                        href={i.pdf_url}
                      >
                        PDF<span className="sr-only"> of invoice {i.number ?? i.id}</span>
                      </a>
                    ) : null}
                  </td>
                </tr>
              ))}
            </Table>
          )}
        </QueryState>
      </Card>
    </section>
  );
}

function MethodsCard({
  teamId,
  profile,
  denied,
}: {
  teamId: number;
  profile: Profile;
  denied: string | null;
}) {
  return (
    <Card title="Card and bank account on file" testId="billing-methods">
      {denied && denied !== "…" ? (
        <p className="mb-3 text-sm" id="methods-denied" data-testid="methods-denied">
          {denied}
        </p>
      ) : null}
      <div className="grid gap-4 md:grid-cols-2">
        <MethodBox teamId={teamId} kind="card" profile={profile} denied={denied} />
        <MethodBox teamId={teamId} kind="bank_account" profile={profile} denied={denied} />
      </div>
    </Card>
  );
}

function MethodBox({
  teamId,
  kind,
  profile,
  denied,
}: {
  teamId: number;
  kind: SetupKind;
  profile: Profile;
  denied: string | null;
}) {
  const trpc = useTRPC();
  const setupCard = useV1Mutation(trpc.v1.setupTeamCard);
  const setupBank = useV1Mutation(trpc.v1.setupTeamBankAccount);
  const removeCard = useV1Mutation(trpc.v1.deleteTeamCard);
  const removeBank = useV1Mutation(trpc.v1.deleteTeamBankAccount);
  const start = kind === "card" ? setupCard : setupBank;
  const remove = kind === "card" ? removeCard : removeBank;
  const onFile = kind === "card" ? profile.card : profile.bank_account;
  const words = kind === "card" ? cardWords(profile.card) : bankWords(profile.bank_account);
  const Noun = kind === "card" ? "Card" : "Bank account";
  const params = { params: { team_id: teamId } };
  const isDefault = onFile && profile.default_method === kind;
  return (
    <div
      className="min-w-0 rounded-md border border-slate-200 p-3 dark:border-slate-800"
      data-testid={`method-${kind}`}
    >
      <h3 className="text-sm font-semibold">{Noun}</h3>
      <p className="mt-1 text-sm" data-testid={`${kind}-on-file`}>
        {onFile ? (
          <>
            {words}
            {isDefault ? " (pays the invoices)" : ""}
          </>
        ) : (
          `No ${NOUN[kind]} on file.`
        )}
      </p>
      {kind === "bank_account" && !onFile ? (
        <p className="mt-1 text-xs text-slate-600 dark:text-slate-400">
          A US bank account, debited by ACH; verified at once through your bank where Stripe offers
          it.
        </p>
      ) : null}
      <div className="mt-3 flex flex-wrap gap-2">
        <Button
          variant={onFile ? "secondary" : "primary"}
          disabledReason={denied}
          aria-describedby={denied ? "methods-denied" : undefined}
          disabled={start.isPending}
          onClick={() =>
            void start.run(params).then(
              (answer) => window.location.assign(answer.setup.url),
              () => undefined,
            )
          }
        >
          {onFile ? `Replace ${NOUN[kind]}…` : `Set up ${NOUN[kind]}…`}
        </Button>
        {onFile ? (
          <ConfirmButton
            label={`Remove ${NOUN[kind]}…`}
            title={`Remove the ${NOUN[kind]}?`}
            confirmLabel={`Remove ${NOUN[kind]}`}
            disabledReason={denied}
            describedBy={denied ? "methods-denied" : undefined}
            testId={`remove-${kind}`}
            run={() => remove.run(params)}
          >
            <p>
              {words} is taken off file and detached from the team at Stripe.{" "}
              {(kind === "card" ? profile.bank_account : profile.card)
                ? `The ${kind === "card" ? "bank account" : "card"} on file pays the invoices from now on.`
                : `With nothing on file, the next invoice cannot be paid automatically and the team may have at most ${profile.plan.included_projects} projects.`}
            </p>
          </ConfirmButton>
        ) : null}
      </div>
      {start.isPending ? <p className="mt-2 text-sm">Opening Stripe&apos;s page…</p> : null}
      {start.error ? <ErrorBox error={start.error} /> : null}
    </div>
  );
}

/** Back from Stripe's setup page: reads the outcome with `/sync` once and says it. */
function SetupReturn({
  teamId,
  kind,
  result,
  mayManage,
}: {
  teamId: number;
  kind: SetupKind;
  result: "done" | "canceled" | null;
  mayManage: boolean;
}) {
  const trpc = useTRPC();
  const syncCard = useV1Mutation(trpc.v1.syncTeamCard);
  const syncBank = useV1Mutation(trpc.v1.syncTeamBankAccount);
  const sync = kind === "card" ? syncCard : syncBank;
  const [answer, setAnswer] = useState<V1["syncTeamCard"] | null>(null);
  const asked = useRef(false);
  useEffect(() => {
    if (!mayManage || asked.current) return;
    asked.current = true;
    void sync.run({ params: { team_id: teamId } }).then(setAnswer, () => undefined);
  }, [mayManage, sync, teamId]);
  const tone =
    answer?.setup.status === "saved"
      ? "border-teal-200 bg-teal-50 text-teal-900 dark:border-teal-900 dark:bg-teal-950 dark:text-teal-100"
      : "border-amber-200 bg-amber-50 text-amber-900 dark:border-amber-900 dark:bg-amber-950 dark:text-amber-100";
  return (
    <div
      className={`mb-4 rounded-md border p-4 text-sm ${tone}`}
      role="status"
      data-testid="setup-outcome"
      data-status={answer?.setup.status ?? (sync.error ? "error" : "reading")}
    >
      {answer ? (
        <p>{setupWords(answer.setup, answer.billing)}</p>
      ) : !mayManage ? (
        <p>
          Back from Stripe: only the team&apos;s owners and billing members read a setup&apos;s
          outcome.
        </p>
      ) : sync.error ? (
        <ErrorBox error={sync.error} />
      ) : (
        <p>
          Back from Stripe{result === "canceled" ? " (left the page)" : ""}: reading the{" "}
          {NOUN[kind]} setup&apos;s outcome from Stripe…
        </p>
      )}
    </div>
  );
}
