"use client";

import { useQuery } from "@tanstack/react-query";
import { useEffect, useRef, useState } from "react";
import { useProject } from "../context";
import { useV1Mutation, type V1 } from "../hooks";
import { useTRPC } from "../trpc";
import { Badge, Button, Card, ErrorBox, PageHeader, QueryState, TextField, when } from "../ui";

type Account = V1["getPaymentAccount"];

const STATUS_TEXT: Record<Account["status"], string> = {
  not_connected: "No Stripe account is connected: card payments cannot be taken.",
  onboarding: "Connected. Stripe's onboarding is not finished yet.",
  active: "Stripe enables charges on this account: card payments can be taken.",
  restricted: "Stripe does not enable charges on this account until it gets what is due below.",
  access_revoked:
    "Stripe says this platform can no longer reach the account (its access was revoked): card payments cannot be taken. Disconnect it and connect again.",
  disconnected: "Disconnected: card payments are not taken on it any more.",
};

export function PaymentAccountPage({
  tenantId,
  back,
}: {
  tenantId: number;
  back: "return" | "refresh" | null;
}) {
  const trpc = useTRPC();
  const account = useQuery(
    trpc.v1.getPaymentAccount.queryOptions({ params: { tenant_id: tenantId } }, { retry: false }),
  );
  const refresh = useV1Mutation(trpc.v1.refreshPaymentAccount);
  const refreshed = useRef(false);
  const connected =
    account.data && !["not_connected", "disconnected"].includes(account.data.status);
  // Back from Stripe's onboarding: what Stripe says now, once (the redirect itself proves nothing).
  useEffect(() => {
    if (back !== "return" || !connected || refreshed.current) return;
    refreshed.current = true;
    void refresh.run({ params: { tenant_id: tenantId } }).catch(() => undefined);
  }, [back, connected, refresh, tenantId]);

  return (
    <>
      <PageHeader
        title="Payment account"
        description="The project's own Stripe account, where drivers' card payments land. Owners and admins connect it through Stripe's onboarding."
      />
      {back === "return" ? (
        <p className="mb-4 text-sm" data-testid="onboarding-back">
          Back from Stripe{refresh.isPending ? ": reading the account's state…" : "."}
        </p>
      ) : null}
      {back === "refresh" ? (
        <p className="mb-4 text-sm" data-testid="onboarding-back">
          That onboarding link was already used or has expired. Continue onboarding for a new one.
        </p>
      ) : null}
      {refresh.error ? <ErrorBox error={refresh.error} /> : null}
      <QueryState query={account}>
        {(a) => (
          <AccountCard
            tenantId={tenantId}
            account={a}
            refreshing={refresh.isPending}
            onRefresh={() =>
              void refresh.run({ params: { tenant_id: tenantId } }).catch(() => undefined)
            }
          />
        )}
      </QueryState>
    </>
  );
}

function AccountCard({
  tenantId,
  account,
  refreshing,
  onRefresh,
}: {
  tenantId: number;
  account: Account;
  refreshing: boolean;
  onRefresh: () => void;
}) {
  const trpc = useTRPC();
  const project = useProject(tenantId);
  const connect = useV1Mutation(trpc.v1.connectPaymentAccount);
  const disconnect = useV1Mutation(trpc.v1.disconnectPaymentAccount);
  const [accountRef, setAccountRef] = useState("");
  const [confirming, setConfirming] = useState(false);
  const denied = project.may.manage_team
    ? null
    : "Only owners and admins manage the payment account.";
  const live = account.status !== "not_connected" && account.status !== "disconnected";

  const startOnboarding = (body: { account_ref?: string }) =>
    void connect.run({ params: { tenant_id: tenantId }, body }).then(
      (answer) => window.location.assign(answer.onboarding.url),
      () => undefined,
    );

  return (
    <Card testId="payment-account">
      <p className="mb-3 flex items-center gap-2">
        <Badge value={account.status} testId="payment-account-status" />
        <span className="text-sm">{STATUS_TEXT[account.status]}</span>
      </p>
      {account.account_ref ? (
        <dl className="mb-4 grid max-w-xl grid-cols-[max-content_minmax(0,1fr)] gap-x-4 gap-y-1 text-sm">
          <dt className="text-slate-500">Stripe account</dt>
          <dd>
            <code>{account.account_ref}</code>
          </dd>
          <dt className="text-slate-500">Charges enabled</dt>
          <dd data-testid="charges-enabled">{account.charges_enabled ? "yes" : "no"}</dd>
          <dt className="text-slate-500">Details submitted</dt>
          <dd>{account.details_submitted ? "yes" : "no"}</dd>
          <dt className="text-slate-500">Requirements due</dt>
          <dd data-testid="requirements-due">
            {account.requirements_due.length ? account.requirements_due.join(", ") : "none"}
          </dd>
          <dt className="text-slate-500">Connected</dt>
          <dd>{when(account.connected_at)}</dd>
          {account.disconnected_at ? (
            <>
              <dt className="text-slate-500">Disconnected</dt>
              <dd>{when(account.disconnected_at)}</dd>
            </>
          ) : null}
          <dt className="text-slate-500">State read</dt>
          <dd>{when(account.updated_at)}</dd>
        </dl>
      ) : null}

      {live ? (
        <div className="flex flex-wrap gap-2">
          {account.status !== "active" && account.status !== "access_revoked" ? (
            <Button
              variant="primary"
              disabledReason={denied}
              disabled={connect.isPending}
              onClick={() => startOnboarding({})}
            >
              Continue onboarding
            </Button>
          ) : null}
          <Button disabledReason={denied} disabled={refreshing} onClick={onRefresh}>
            Refresh from Stripe
          </Button>
          {confirming ? (
            <>
              <Button
                variant="danger"
                onClick={() =>
                  void disconnect.run({ params: { tenant_id: tenantId } }).then(
                    () => setConfirming(false),
                    () => undefined,
                  )
                }
              >
                Disconnect now
              </Button>
              <Button onClick={() => setConfirming(false)}>Keep it</Button>
            </>
          ) : (
            <Button disabledReason={denied} onClick={() => setConfirming(true)}>
              Disconnect…
            </Button>
          )}
          {confirming ? (
            <p className="w-full text-sm text-slate-600 dark:text-slate-400">
              Card payments stop at once, and once no payment on it is open the platform&apos;s
              access to it ends at Stripe; the Stripe account and its money stay yours (refund its
              past payments in your Stripe dashboard).
            </p>
          ) : null}
        </div>
      ) : (
        <form
          className="grid max-w-md gap-3"
          onSubmit={(e) => {
            e.preventDefault();
            startOnboarding(accountRef ? { account_ref: accountRef } : {});
          }}
        >
          <TextField
            label="Existing Stripe account ID (optional)"
            value={accountRef}
            onChange={(e) => setAccountRef(e.target.value.trim())}
            placeholder="acct_…"
          />
          <div>
            <Button
              type="submit"
              variant="primary"
              disabledReason={denied}
              disabled={connect.isPending}
            >
              Connect with Stripe
            </Button>
          </div>
        </form>
      )}
      {connect.error ? (
        <ErrorBox
          error={connect.error}
          labels={{ account_ref: "Existing Stripe account ID", country: "Country" }}
        />
      ) : null}
      {disconnect.error ? <ErrorBox error={disconnect.error} /> : null}
    </Card>
  );
}
