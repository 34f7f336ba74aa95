"use client";

import { money } from "../money";
import { useQuery, useQueryClient } from "@tanstack/react-query";
import Link from "next/link";
import { useState } from "react";
import { useProject } from "../context";
import { ExportCsv, type CsvColumn } from "../csv";
import type { V1, V1Input } from "../hooks";
import { useTRPC } from "../trpc";
import { CreateBill } from "./bill-create";
import { PaymentLink, SessionLink, StationLink, useNames } from "../links";
import {
  Badge,
  Button,
  Empty,
  PageHeader,
  QueryState,
  SelectField,
  Table,
  oneOf,
  td,
  when,
} from "../ui";
import { StringPager } from "../pager";

const STATUSES = [
  "",
  "open",
  "starting",
  "start_unknown",
  "charging",
  "ended",
  "final",
  "canceled",
] as const;
const SOURCES = ["", "csms", "simulated"] as const;

type Bill = V1["listBills"]["data"][number];

/** Who settles the bill, in words: the external session, its payment's status, or "—". */
const settledBy = (b: Bill) =>
  b.settlement_owner === "external" && b.session_id
    ? `session ${b.session_id}`
    : (b.payment?.status ?? "—");

/** The table's columns for its CSV export, the station by its name. */
const billColumns: CsvColumn<Bill & { station_name: string }>[] = [
  { header: "Bill", value: (b) => b.id },
  { header: "Status", value: (b) => b.status },
  { header: "Source", value: (b) => b.source },
  { header: "Station", value: (b) => b.station_name },
  { header: "Amount", value: (b) => billAmount(b) },
  { header: "Settled by", value: (b) => settledBy(b) },
  { header: "Created", value: (b) => b.created_at },
];

export function BillsPage({ tenantId }: { tenantId: number }) {
  const trpc = useTRPC();
  const [cursors, setCursors] = useState<string[]>([]);
  const [status, setStatus] = useState<(typeof STATUSES)[number]>("");
  const [source, setSource] = useState<(typeof SOURCES)[number]>("");
  // the station is picked by name (its id as the value), never typed: no name is ever ignored
  const [stationId, setStationId] = useState("");
  const stations = useQuery(
    trpc.v1.listStations.queryOptions({ params: { tenant_id: tenantId }, query: { limit: 100 } }),
  );
  const after = cursors[cursors.length - 1];
  const input = (after: string | undefined, limit: number): V1Input["listBills"] => ({
    params: { tenant_id: tenantId },
    query: {
      limit,
      ...(after ? { after } : {}),
      ...(status ? { status } : {}),
      ...(source ? { source } : {}),
      ...(stationId ? { station_id: Number(stationId) } : {}),
    },
  });
  const bills = useQuery(
    trpc.v1.listBills.queryOptions(input(after, 25), { refetchInterval: 5_000 }),
  );
  const client = useQueryClient();
  const names = useNames(tenantId);
  const restart = () => setCursors([]);
  const project = useProject(tenantId);
  const [creating, setCreating] = useState(false);
  return (
    <>
      <PageHeader
        title="Bills"
        description="What each charging session costs: the hold fixed at creation, the final amount once finalized. Newest first."
        actions={
          <>
            <ExportCsv
              filename={`bills-${tenantId}.csv`}
              columns={billColumns}
              load={async (after: string | undefined) => {
                const page = await client.fetchQuery(
                  trpc.v1.listBills.queryOptions(input(after, 100)),
                );
                const data = await Promise.all(
                  page.data.map(async (b) => ({
                    ...b,
                    station_name: await names.station(b.station_id),
                  })),
                );
                return { ...page, data };
              }}
            />
            <Button
              variant="primary"
              disabledReason={project.denied("billing:write")}
              onClick={() => setCreating(true)}
            >
              New bill
            </Button>
          </>
        }
      />
      {creating ? <CreateBill tenantId={tenantId} onDone={() => setCreating(false)} /> : null}
      <div className="mb-4 grid max-w-3xl gap-3 sm:grid-cols-3">
        <SelectField
          label="Status"
          value={status}
          onChange={(e) => {
            setStatus(oneOf(STATUSES, e.target.value, ""));
            restart();
          }}
        >
          {STATUSES.map((s) => (
            <option key={s} value={s}>
              {s === "" ? "All" : s}
            </option>
          ))}
        </SelectField>
        <SelectField
          label="Source"
          value={source}
          onChange={(e) => {
            setSource(oneOf(SOURCES, e.target.value, ""));
            restart();
          }}
        >
          <option value="">All</option>
          <option value="csms">Charger (csms)</option>
          <option value="simulated">Simulated</option>
        </SelectField>
        <SelectField
          label="Station"
          value={stationId}
          onChange={(e) => {
            setStationId(e.target.value);
            restart();
          }}
        >
          <option value="">All stations</option>
          {stations.data?.data.map((s) => (
            <option key={s.id} value={s.id}>
              {s.name}
            </option>
          ))}
        </SelectField>
      </div>
      <QueryState
        query={bills}
        isEmpty={(d) => d.data.length === 0}
        empty={<Empty title="No bills" />}
      >
        {(d) => (
          <>
            <BillRows tenantId={tenantId} rows={d.data} />
            <StringPager page={d} cursors={cursors} setCursors={setCursors} />
          </>
        )}
      </QueryState>
    </>
  );
}

/** The final amount; before it, the hold; a canceled bill holds nothing any more. */
export function billAmount(
  b: Pick<V1["getBill"], "status" | "total_minor" | "hold_minor" | "currency">,
) {
  if (b.total_minor !== null) return money(b.total_minor, b.currency);
  if (b.status === "canceled") return "canceled, hold released";
  return `hold ${money(b.hold_minor, b.currency)}`;
}

/** Who settles the bill: its payment, or the external session that owns the settlement. */
function Settlement({ tenantId, bill: b }: { tenantId: number; bill: V1["getBill"] }) {
  if (b.settlement_owner === "external" && b.session_id)
    return (
      <>
        session <SessionLink tenantId={tenantId} id={b.session_id} />
      </>
    );
  if (b.payment)
    return (
      <PaymentLink tenantId={tenantId} billId={b.id} id={b.payment.id}>
        {b.payment.status}
      </PaymentLink>
    );
  return <>—</>;
}

function BillRows({ tenantId, rows }: { tenantId: number; rows: V1["listBills"]["data"] }) {
  return (
    <Table head={["Bill", "Status", "Source", "Station", "Amount", "Settled by", "Created"]}>
      {rows.map((b) => (
        <tr key={b.id} data-testid="bill-row">
          <td className={td}>
            <Link
              href={`/console/t/${tenantId}/bills/${b.id}`}
              className="text-teal-800 underline dark:text-teal-300"
            >
              <code>{b.id}</code>
            </Link>
          </td>
          <td className={td}>
            <Badge value={b.status} />
          </td>
          <td className={td}>{b.source}</td>
          <td className={td}>
            <StationLink tenantId={tenantId} stationId={b.station_id} />
          </td>
          <td className={td} data-testid="bill-amount">
            {billAmount(b)}
          </td>
          <td className={td} data-testid="bill-settlement">
            <Settlement tenantId={tenantId} bill={b} />
          </td>
          <td className={td}>{when(b.created_at)}</td>
        </tr>
      ))}
    </Table>
  );
}
