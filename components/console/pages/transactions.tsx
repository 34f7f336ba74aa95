"use client";

import { useQuery } from "@tanstack/react-query";
import { useState } from "react";
import { Pager } from "../pager";
import { useTRPC } from "../trpc";
import type { V1 } from "../hooks";
import { Badge, Empty, PageHeader, QueryState, SelectField, oneOf, Table, td, when } from "../ui";

export function TransactionsPage({ tenantId }: { tenantId: number }) {
  const trpc = useTRPC();
  const [cursors, setCursors] = useState([0]);
  const [status, setStatus] = useState<"" | "active" | "ended">("");
  const transactions = useQuery(
    trpc.v1.listTransactions.queryOptions(
      {
        params: { tenant_id: tenantId },
        query: {
          after: cursors[cursors.length - 1],
          order: "desc",
          limit: 25,
          ...(status ? { status } : {}),
        },
      },
      { refetchInterval: 5_000 },
    ),
  );
  return (
    <>
      <PageHeader
        title="Transactions"
        description="Charging sessions reported by chargers, newest first."
      />
      <div className="mb-4 max-w-xs">
        <SelectField
          label="Status"
          value={status}
          onChange={(e) => {
            setStatus(oneOf(["", "active", "ended"], e.target.value, ""));
            setCursors([0]);
          }}
        >
          <option value="">All</option>
          <option value="active">Active</option>
          <option value="ended">Ended</option>
        </SelectField>
      </div>
      <QueryState
        query={transactions}
        isEmpty={(d) => d.data.length === 0}
        empty={<Empty title="No transactions yet" />}
      >
        {(d) => (
          <>
            <TransactionRows rows={d.data} />
            <Pager page={d} cursors={cursors} setCursors={setCursors} />
          </>
        )}
      </QueryState>
    </>
  );
}

/** Transactions as a table, newest first as given. */
export function TransactionRows({ rows }: { rows: V1["listTransactions"]["data"] }) {
  return (
    <Table head={["ID", "Status", "Started", "Ended", "Energy (kWh)", "Stop reason"]}>
      {rows.map((t) => (
        <tr key={t.id} data-testid="transaction-row">
          <td className={td}>{t.id}</td>
          <td className={td}>
            <Badge value={t.status} />
          </td>
          <td className={td}>{when(t.started_at)}</td>
          <td className={td}>{when(t.ended_at)}</td>
          <td className={td}>{t.energy_kwh}</td>
          <td className={td}>{t.stop_reason ?? ""}</td>
        </tr>
      ))}
    </Table>
  );
}
