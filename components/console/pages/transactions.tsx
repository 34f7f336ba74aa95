"use client";

import { useQuery, useQueryClient } from "@tanstack/react-query";
import Link from "next/link";
import { useState } from "react";
import { ExportCsv, type CsvColumn } from "../csv";
import { Pager } from "../pager";
import { useTRPC } from "../trpc";
import type { V1, V1Input } from "../hooks";
import {
  Badge,
  Empty,
  PageHeader,
  QueryState,
  SelectField,
  TextField,
  oneOf,
  Table,
  td,
  when,
} from "../ui";
import { money } from "../money";

type Transaction = V1["listTransactions"]["data"][number];

/** "1 h 05 min", "4 min 10 s"; an active transaction counts up from its start. */
export function duration(t: Pick<Transaction, "started_at" | "ended_at" | "duration_seconds">) {
  const seconds =
    t.duration_seconds ??
    (t.started_at ? Math.max(0, Math.round((Date.now() - Date.parse(t.started_at)) / 1000)) : null);
  if (seconds === null) return "—";
  const h = Math.floor(seconds / 3600);
  const m = Math.floor((seconds % 3600) / 60);
  const s = seconds % 60;
  if (h) return `${h} h ${String(m).padStart(2, "0")} min`;
  return m ? `${m} min ${String(s).padStart(2, "0")} s` : `${s} s`;
}

export const cost = (t: Transaction) =>
  t.bill?.cost_minor == null
    ? "—"
    : `${money(t.bill.cost_minor, t.bill.currency)}${t.bill.final ? "" : " so far"}`;

/** The columns of the table and of its CSV export, in the same order. */
export const transactionColumns: CsvColumn<Transaction>[] = [
  { header: "ID", value: (t) => t.id },
  { header: "Station", value: (t) => t.station_name },
  { header: "Connector", value: (t) => t.connector_number },
  { header: "Token", value: (t) => t.id_token },
  { header: "Status", value: (t) => t.status },
  { header: "Started", value: (t) => t.started_at },
  { header: "Duration", value: (t) => duration(t) },
  { header: "Energy (kWh)", value: (t) => t.energy_kwh },
  { header: "Cost", value: (t) => cost(t) },
];

/** A date input's day (local midnight) as an ISO instant, or undefined. */
const dayStart = (day: string, plusDays = 0) => {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(day)) return undefined;
  const d = new Date(`${day}T00:00:00`);
  d.setDate(d.getDate() + plusDays);
  return Number.isNaN(d.getTime()) ? undefined : d.toISOString();
};

export function TransactionsPage({ tenantId }: { tenantId: number }) {
  const trpc = useTRPC();
  const client = useQueryClient();
  const [cursors, setCursors] = useState([0]);
  const [status, setStatus] = useState<"" | "active" | "ended">("");
  const [stationId, setStationId] = useState("");
  const [from, setFrom] = useState("");
  const [to, setTo] = useState("");
  const stations = useQuery(
    trpc.v1.listStations.queryOptions({ params: { tenant_id: tenantId }, query: { limit: 100 } }),
  );
  const filters = {
    order: "desc" as const,
    ...(status ? { status } : {}),
    ...(stationId ? { station_id: Number(stationId) } : {}),
    ...(dayStart(from) ? { started_from: dayStart(from) } : {}),
    ...(dayStart(to, 1) ? { started_before: dayStart(to, 1) } : {}),
  };
  const input = (after: number, limit: number): V1Input["listTransactions"] => ({
    params: { tenant_id: tenantId },
    query: { ...filters, after, limit },
  });
  const transactions = useQuery(
    trpc.v1.listTransactions.queryOptions(input(cursors[cursors.length - 1] ?? 0, 25), {
      refetchInterval: 5_000,
    }),
  );
  const reset = () => setCursors([0]);
  return (
    <>
      <PageHeader
        title="Transactions"
        description="Charging reported by chargers, newest first. Open one for its power, energy and cost over time."
        actions={
          <ExportCsv
            filename={`transactions-${tenantId}.csv`}
            columns={transactionColumns}
            load={(after: number | undefined) =>
              client.fetchQuery(trpc.v1.listTransactions.queryOptions(input(after ?? 0, 100)))
            }
          />
        }
      />
      <div className="mb-4 grid gap-3 sm:grid-cols-2 lg:grid-cols-4">
        <SelectField
          label="Station"
          value={stationId}
          onChange={(e) => {
            setStationId(e.target.value);
            reset();
          }}
        >
          <option value="">All stations</option>
          {stations.data?.data.map((s) => (
            <option key={s.id} value={s.id}>
              {s.name}
            </option>
          ))}
        </SelectField>
        <SelectField
          label="Status"
          value={status}
          onChange={(e) => {
            setStatus(oneOf(["", "active", "ended"], e.target.value, ""));
            reset();
          }}
        >
          <option value="">All</option>
          <option value="active">Active</option>
          <option value="ended">Ended</option>
        </SelectField>
        <TextField
          label="Started from"
          type="date"
          value={from}
          onChange={(e) => {
            setFrom(e.target.value);
            reset();
          }}
        />
        <TextField
          label="Started until"
          type="date"
          value={to}
          onChange={(e) => {
            setTo(e.target.value);
            reset();
          }}
        />
      </div>
      <QueryState
        query={transactions}
        isEmpty={(d) => d.data.length === 0}
        empty={<Empty title="No transactions match" />}
      >
        {(d) => (
          <>
            <TransactionRows rows={d.data} tenantId={tenantId} />
            <Pager page={d} cursors={cursors} setCursors={setCursors} />
          </>
        )}
      </QueryState>
    </>
  );
}

const link =
  "text-teal-800 underline decoration-1 underline-offset-2 hover:no-underline dark:text-teal-300";

/** Transactions as a table, newest first as given; each row links to the transaction's page. */
export function TransactionRows({
  rows,
  tenantId,
}: {
  rows: V1["listTransactions"]["data"];
  tenantId: number;
}) {
  return (
    <Table head={transactionColumns.map((c) => c.header)} label="Transactions">
      {rows.map((t) => (
        <tr key={t.id} data-testid="transaction-row">
          <td className={td}>
            <Link className={link} href={`/console/t/${tenantId}/transactions/${t.id}`}>
              {t.id}
            </Link>
          </td>
          <td className={td}>
            <Link className={link} href={`/console/t/${tenantId}/stations/${t.station_id}`}>
              {t.station_name}
            </Link>
          </td>
          <td className={td}>{t.connector_number ?? "—"}</td>
          <td className={`${td} break-all`}>{t.id_token ?? "—"}</td>
          <td className={td}>
            <Badge value={t.status} />
          </td>
          <td className={td}>{when(t.started_at)}</td>
          <td className={td}>{duration(t)}</td>
          <td className={td}>{t.energy_kwh}</td>
          <td className={td}>{cost(t)}</td>
        </tr>
      ))}
    </Table>
  );
}
