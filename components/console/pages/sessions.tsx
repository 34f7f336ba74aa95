"use client";

import { money } from "../money";
import { useQuery, useQueryClient } from "@tanstack/react-query";
import Link from "next/link";
import { useState } from "react";
import { SESSION_STATUSES } from "@/server/sessions/session-schema";
import { useTRPC } from "../trpc";
import type { V1, V1Input } from "../hooks";
import { ExportCsv, type CsvColumn } from "../csv";
import { BillLink, StationLink, useNames } from "../links";
import { Badge, Empty, PageHeader, QueryState, SelectField, oneOf, Table, td, when } from "../ui";
import { StringPager } from "../pager";

type Session = V1["listChargingSessions"]["data"][number];
type Report = V1["listChargingSessionSettlementReports"]["data"][number];

const LIVE_MS = 2_000;
const STATUSES = ["", ...SESSION_STATUSES] as const;

/**
 * The table's columns for its CSV export, the station by its name; the settlement reports (one
 * more read per session) stay on the session's page.
 */
const sessionColumns: CsvColumn<Session & { station_name: string }>[] = [
  { header: "Session", value: (s) => s.id },
  { header: "Application reference", value: (s) => s.application_reference },
  { header: "Source", value: (s) => s.source },
  { header: "Station", value: (s) => s.station_name },
  { header: "Bill", value: (s) => s.bill_id },
  { header: "Created", value: (s) => s.created_at },
  { header: "Status", value: (s) => s.status },
  { header: "Needs reconciliation", value: (s) => (s.needs_reconciliation ? "yes" : "no") },
  { header: "Energy (kWh)", value: (s) => s.usage?.energy_kwh },
  {
    header: "Cost so far",
    value: (s) => (s.usage && !s.usage.final ? money(s.usage.running_cost_minor, s.currency) : ""),
  },
  { header: "Total", value: (s) => money(s.total_minor, s.currency) },
  { header: "Net", value: (s) => money(s.net_minor, s.currency) },
];

/** Externally funded charging sessions, live: status and usage refresh every 2 s. */
export function SessionsPage({ tenantId }: { tenantId: number }) {
  const trpc = useTRPC();
  const [cursors, setCursors] = useState<string[]>([]);
  const [status, setStatus] = useState<(typeof STATUSES)[number]>("");
  const after = cursors.at(-1);
  const input = (after: string | undefined, limit: number): V1Input["listChargingSessions"] => ({
    params: { tenant_id: tenantId },
    query: { limit, ...(after ? { after } : {}), ...(status ? { status } : {}) },
  });
  const sessions = useQuery(
    trpc.v1.listChargingSessions.queryOptions(input(after, 25), { refetchInterval: LIVE_MS }),
  );
  const client = useQueryClient();
  const names = useNames(tenantId);
  return (
    <>
      <PageHeader
        title="Charging sessions"
        description="Externally funded sessions: the application takes the payment; the service runs the charger and fixes the bill. Newest first."
        actions={
          <ExportCsv
            filename={`charging-sessions-${tenantId}.csv`}
            columns={sessionColumns}
            load={async (after: string | undefined) => {
              const page = await client.fetchQuery(
                trpc.v1.listChargingSessions.queryOptions(input(after, 100)),
              );
              const data = await Promise.all(
                page.data.map(async (s) => ({
                  ...s,
                  station_name: await names.station(s.station_id),
                })),
              );
              return { ...page, data };
            }}
          />
        }
      />
      <div className="mb-4 max-w-xs">
        <SelectField
          label="Status"
          value={status}
          onChange={(e) => {
            setStatus(oneOf(STATUSES, e.target.value, ""));
            setCursors([]);
          }}
        >
          {STATUSES.map((s) => (
            <option key={s} value={s}>
              {s === "" ? "All" : s}
            </option>
          ))}
        </SelectField>
      </div>
      <QueryState
        query={sessions}
        isEmpty={(d) => d.data.length === 0}
        empty={<Empty title="No charging sessions yet" />}
      >
        {(d) => (
          <>
            <Table
              label="Charging sessions"
              head={["Session", "Status", "Usage", "Total", "Net", "Reports (in order)"]}
            >
              {d.data.map((s) => (
                <SessionRow key={s.id} tenantId={tenantId} session={s} />
              ))}
            </Table>
            <StringPager page={d} cursors={cursors} setCursors={setCursors} />
          </>
        )}
      </QueryState>
    </>
  );
}

function SessionRow({ tenantId, session: s }: { tenantId: number; session: Session }) {
  return (
    <tr data-testid="session-row">
      <td className={td}>
        <Link className="underline" href={`/console/t/${tenantId}/sessions/${s.id}`}>
          {s.application_reference ?? s.id}
        </Link>
        <div className="text-xs text-slate-600 dark:text-slate-400">
          {s.source} · <StationLink tenantId={tenantId} stationId={s.station_id} /> · bill{" "}
          <BillLink tenantId={tenantId} id={s.bill_id} /> · {when(s.created_at)}
        </div>
      </td>
      <td className={td}>
        <Badge testId="session-status" value={s.status} />
        {s.needs_reconciliation ? (
          <div className="mt-1">
            <Badge value="reconcile" />
          </div>
        ) : null}
      </td>
      <td className={td} data-testid="session-usage">
        {s.usage ? `${s.usage.energy_kwh} kWh` : "—"}
        {s.usage && !s.usage.final ? (
          <div className="text-xs text-slate-600 dark:text-slate-400">
            so far {money(s.usage.running_cost_minor, s.currency)}
          </div>
        ) : null}
      </td>
      <td className={td}>{money(s.total_minor, s.currency)}</td>
      <td className={td}>{money(s.net_minor, s.currency)}</td>
      <td className={td}>
        <ReportsInline tenantId={tenantId} sessionId={s.id} />
      </td>
    </tr>
  );
}

/** A session's settlement reports in the order received, one line each. */
function ReportsInline({ tenantId, sessionId }: { tenantId: number; sessionId: string }) {
  const trpc = useTRPC();
  const reports = useQuery(
    trpc.v1.listChargingSessionSettlementReports.queryOptions(
      { params: { tenant_id: tenantId, session_id: sessionId } },
      { refetchInterval: LIVE_MS },
    ),
  );
  const rows = reports.data?.data ?? [];
  if (rows.length === 0) return <span className="text-slate-600 dark:text-slate-400">none</span>;
  return (
    <ol className="space-y-0.5 text-xs" data-testid="session-reports">
      {rows.map((r) => (
        <li key={r.id}>{reportLine(r)}</li>
      ))}
    </ol>
  );
}

export const reportLine = (r: Report) =>
  `${r.kind} ${r.operation_reference}: ${r.outcome} ${money(r.amount_minor, r.currency)}`;
