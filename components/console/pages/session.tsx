"use client";

import { Outcome } from "./station-commands";
import { useQuery } from "@tanstack/react-query";
import Link from "next/link";
import { useProject } from "../context";
import { ConfirmButton } from "../confirm-button";
import { useV1Mutation, type V1 } from "../hooks";
import { BillLink, StationLink, TariffLink, TransactionLink, useStationZone } from "../links";
import { useTRPC } from "../trpc";
import { money } from "../money";
import { Badge, Card, Empty, PageHeader, QueryState, Table, td, when } from "../ui";

type Session = V1["getChargingSession"];

const LIVE_MS = 2_000;

/** One charging session, live: status, usage, money, reports, its operations and its events. */
export function SessionPage({ tenantId, sessionId }: { tenantId: number; sessionId: string }) {
  const trpc = useTRPC();
  const params = { tenant_id: tenantId, session_id: sessionId };
  const session = useQuery(
    trpc.v1.getChargingSession.queryOptions({ params }, { refetchInterval: LIVE_MS }),
  );
  const zone = useStationZone(tenantId, session.data?.station_id);
  return (
    <QueryState query={session}>
      {(s) => (
        <>
          <PageHeader
            title={s.application_reference ?? s.id}
            description={
              <>
                <Link className="underline" href={`/console/t/${tenantId}/sessions`}>
                  Charging sessions
                </Link>{" "}
                / {s.id}
              </>
            }
            actions={<Badge testId="session-status" value={s.status} />}
          />
          <div className="grid grid-cols-1 gap-6 lg:grid-cols-2">
            <Summary tenantId={tenantId} session={s} zone={zone} />
            <Money tenantId={tenantId} session={s} zone={zone} />
          </div>
          <Actions tenantId={tenantId} session={s} />
          <Reports tenantId={tenantId} sessionId={sessionId} zone={zone} />
          <Operations tenantId={tenantId} sessionId={sessionId} zone={zone} />
          <Events tenantId={tenantId} sessionId={sessionId} zone={zone} />
        </>
      )}
    </QueryState>
  );
}

function Facts({ rows }: { rows: [string, React.ReactNode][] }) {
  return (
    <dl className="grid grid-cols-2 gap-x-4 gap-y-1 text-sm">
      {rows.map(([k, v]) => (
        <div key={k} className="contents">
          <dt className="text-slate-600 dark:text-slate-400">{k}</dt>
          <dd className="break-words">{v}</dd>
        </div>
      ))}
    </dl>
  );
}

function Summary({
  tenantId,
  session: s,
  zone,
}: {
  tenantId: number;
  session: Session;
  zone: string | undefined;
}) {
  const u = s.usage;
  return (
    <Card title="Session" testId="session-summary">
      <Facts
        rows={[
          ["Source", s.source],
          ["Station", <StationLink key="st" tenantId={tenantId} stationId={s.station_id} />],
          ["Connector", s.connector_id],
          [
            "Tariff",
            <TariffLink
              key="tf"
              tenantId={tenantId}
              tariffId={s.tariff_id}
              version={s.tariff_version}
            />,
          ],
          ["Processor", s.processor ?? "—"],
          ["Payment reference", s.payment_reference ?? "—"],
          ["Merchant reference", s.merchant_reference ?? "—"],
          ["Funding confirmed", s.funding_confirmed ? "yes" : "no"],
          [
            "Transaction",
            u?.transaction_id ? (
              <TransactionLink key="tx" tenantId={tenantId} id={u.transaction_id} />
            ) : (
              "—"
            ),
          ],
          ["Energy", u ? `${u.energy_kwh} kWh` : "—"],
          ["Started", when(u?.started_at, zone)],
          ["Ended", when(u?.ended_at, zone)],
          [
            "Reconciliation",
            s.needs_reconciliation ? s.reconciliation_reasons.join(", ") : "not needed",
          ],
        ]}
      />
    </Card>
  );
}

function Money({
  tenantId,
  session: s,
  zone,
}: {
  tenantId: number;
  session: Session;
  zone: string | undefined;
}) {
  return (
    <Card title="Money (USD)" testId="session-money">
      <Facts
        rows={[
          ["Running cost", money(s.usage?.running_cost_minor, s.currency)],
          ["Total", money(s.total_minor, s.currency)],
          ["Captured", money(s.captured_minor, s.currency)],
          ["Refunded", money(s.refunded_minor, s.currency)],
          ["Uncollected", money(s.uncollected_minor, s.currency)],
          ["Net", money(s.net_minor, s.currency)],
          [
            "Bill",
            <span key="b">
              <BillLink tenantId={tenantId} id={s.bill_id} />
              {s.status === "canceled" ? " (canceled: nothing owed, nothing held)" : ""}
            </span>,
          ],
          ["Finalized", when(s.finalized_at, zone)],
        ]}
      />
    </Card>
  );
}

function Actions({ tenantId, session: s }: { tenantId: number; session: Session }) {
  const trpc = useTRPC();
  const project = useProject(tenantId);
  const stop = useV1Mutation(trpc.v1.stopChargingSession);
  const cancel = useV1Mutation(trpc.v1.cancelChargingSession);
  const finalize = useV1Mutation(trpc.v1.finalizeChargingSession);
  const params = { tenant_id: tenantId, session_id: s.id };
  const settle = project.denied("settlement:write");
  const canStop = s.status === "charging";
  const canCancel = s.status === "created";
  // a `csms` session whose charger ended its transaction: its bill is fixed on that transaction
  // (a simulated session is finalized with the energy it was given, from the sandbox)
  const tx = s.usage?.transaction_id ?? null;
  const canFinalize = s.status === "awaiting_bill" && s.source === "csms" && tx !== null;
  if (!canStop && !canCancel && !canFinalize) return null;
  return (
    <Card title="Actions">
      <div className="flex flex-wrap gap-2">
        {canStop ? (
          <ConfirmButton
            label="Stop charging"
            title="Stop charging?"
            confirmLabel="Stop charging"
            disabledReason={project.denied("stations:control") ?? settle}
            run={(idempotencyKey) => stop.run({ params, idempotencyKey })}
          >
            The charger is asked to end transaction {s.usage?.transaction_id ?? ""} on connector{" "}
            {s.connector_id} now: the driver&apos;s car stops charging, and the bill is priced on
            what was delivered. Charging cannot be resumed from this session.
          </ConfirmButton>
        ) : null}
        {canCancel ? (
          <ConfirmButton
            label="Cancel session"
            title="Cancel this session?"
            confirmLabel="Cancel session"
            disabledReason={project.denied("billing:write") ?? settle}
            run={(idempotencyKey) => cancel.run({ params, idempotencyKey })}
          >
            The session is closed for good: its connector is freed and its bill {s.bill_id} is
            canceled (nothing owed, nothing held). It can never be started; release the funds your
            application holds for it yourself.
          </ConfirmButton>
        ) : null}
        {canFinalize ? (
          <ConfirmButton
            label="Finalize…"
            title="Finalize this session's bill?"
            confirmLabel="Finalize bill"
            danger={false}
            disabledReason={project.denied("billing:write") ?? settle}
            run={(idempotencyKey) =>
              finalize.run({ params, idempotencyKey, body: { transaction_id: tx } })
            }
          >
            Bill {s.bill_id} is priced on transaction {tx} with tariff version {s.tariff_version},
            and its total is fixed for good: it cannot be changed afterwards. The connector is free
            for a new session. Your application then collects the total and reports what it
            captured.
          </ConfirmButton>
        ) : null}
      </div>
    </Card>
  );
}

function Reports({
  tenantId,
  sessionId,
  zone,
}: {
  tenantId: number;
  sessionId: string;
  zone: string | undefined;
}) {
  const trpc = useTRPC();
  const reports = useQuery(
    trpc.v1.listChargingSessionSettlementReports.queryOptions(
      { params: { tenant_id: tenantId, session_id: sessionId } },
      { refetchInterval: LIVE_MS },
    ),
  );
  return (
    <Card title="Settlement reports (in the order received)" testId="session-reports">
      <QueryState
        query={reports}
        isEmpty={(d) => d.data.length === 0}
        empty={<Empty title="No reports" />}
      >
        {(d) => (
          <Table
            label="Settlement reports"
            head={["Received", "Kind", "Operation", "Outcome", "Amount", "By"]}
          >
            {d.data.map((r) => (
              <tr key={r.id} data-testid="report-row">
                <td className={td}>{when(r.received_at, zone)}</td>
                <td className={td}>{r.kind}</td>
                <td className={td}>{r.operation_reference}</td>
                <td className={td}>
                  <Badge value={r.outcome} />
                </td>
                <td className={td}>{money(r.amount_minor, r.currency)}</td>
                <td className={td}>{r.actor_id}</td>
              </tr>
            ))}
          </Table>
        )}
      </QueryState>
    </Card>
  );
}

function Operations({
  tenantId,
  sessionId,
  zone,
}: {
  tenantId: number;
  sessionId: string;
  zone: string | undefined;
}) {
  const trpc = useTRPC();
  const operations = useQuery(
    trpc.v1.listChargingSessionOperations.queryOptions(
      { params: { tenant_id: tenantId, session_id: sessionId } },
      { refetchInterval: LIVE_MS },
    ),
  );
  return (
    <Card title="Operations" testId="session-operations">
      <QueryState
        query={operations}
        isEmpty={(d) => d.data.length === 0}
        empty={<Empty title="Not started" />}
      >
        {(d) => (
          <Table label="Operations" head={["Created", "Scope", "Status", "Result"]}>
            {d.data.map((o) => (
              <tr key={o.id} data-testid="operation-row">
                <td className={td}>{when(o.created_at, zone)}</td>
                <td className={td}>{o.scope}</td>
                <td className={td}>
                  <Badge value={o.status} />
                </td>
                <td className={td}>
                  <Outcome operation={o} />
                </td>
              </tr>
            ))}
          </Table>
        )}
      </QueryState>
    </Card>
  );
}

function Events({
  tenantId,
  sessionId,
  zone,
}: {
  tenantId: number;
  sessionId: string;
  zone: string | undefined;
}) {
  const trpc = useTRPC();
  const events = useQuery(
    trpc.v1.listChargingSessionEvents.queryOptions(
      { params: { tenant_id: tenantId, session_id: sessionId } },
      { refetchInterval: LIVE_MS },
    ),
  );
  return (
    <Card title="Events" testId="session-events">
      <QueryState
        query={events}
        isEmpty={(d) => d.data.length === 0}
        empty={<Empty title="No events yet" />}
      >
        {(d) => (
          <Table label="Events" head={["#", "Recorded", "Type", "Status"]}>
            {d.data.map((e) => (
              <tr key={e.id} data-testid="event-row">
                <td className={td}>{e.sequence}</td>
                <td className={td}>{when(e.created_at, zone)}</td>
                <td className={td}>{e.type}</td>
                <td className={td}>
                  {typeof e.data.status === "string"
                    ? `${String(e.data.previous_status)} → ${e.data.status}`
                    : ""}
                </td>
              </tr>
            ))}
          </Table>
        )}
      </QueryState>
    </Card>
  );
}
