"use client";

import { useStationZone } from "../links";
import { useQuery } from "@tanstack/react-query";
import Link from "next/link";
import { TimeSeries, type Point } from "../charts";
import { useTRPC } from "../trpc";
import type { V1 } from "../hooks";
import {
  Badge,
  Card,
  Empty,
  ErrorBox,
  Loading,
  PageHeader,
  QueryState,
  Table,
  td,
  when,
} from "../ui";
import { money } from "../money";
import { cost, duration } from "./transactions";

const link =
  "text-teal-800 underline decoration-1 underline-offset-2 hover:no-underline dark:text-teal-300";

type Sample = V1["listTransactionMeterSamples"]["data"][number];

/** The charts of a transaction's samples: power and energy always, the rest where reported. */
const CHARTS: {
  testId: string;
  caption: string;
  unit: string;
  pick: (s: Sample) => string | null;
  always?: boolean;
}[] = [
  { testId: "chart-power", caption: "Power", unit: "kW", pick: (s) => s.power_kw, always: true },
  {
    testId: "chart-energy",
    caption: "Energy delivered",
    unit: "kWh",
    pick: (s) => s.energy_kwh,
    always: true,
  },
  { testId: "chart-soc", caption: "State of charge", unit: "%", pick: (s) => s.soc_percent },
  { testId: "chart-current", caption: "Current", unit: "A", pick: (s) => s.current_a },
  { testId: "chart-voltage", caption: "Voltage", unit: "V", pick: (s) => s.voltage_v },
];

const series = (samples: Sample[], pick: (s: Sample) => string | null): Point[] =>
  samples.map((s) => {
    const v = pick(s);
    return { t: Date.parse(s.sampled_at), value: v === null ? null : Number(v) };
  });

/** One transaction: its power, energy and state of charge over time, its cost, and what it belongs to. */
export function TransactionPage({
  tenantId,
  transactionId,
}: {
  tenantId: number;
  transactionId: number;
}) {
  const trpc = useTRPC();
  const path = { tenant_id: tenantId, transaction_id: transactionId };
  const tx = useQuery(
    trpc.v1.getTransaction.queryOptions(
      { params: path },
      { refetchInterval: (q) => (q.state.data?.status === "ended" ? false : 3_000) },
    ),
  );
  const zone = useStationZone(tenantId, tx.data?.station_id);
  const active = tx.data?.status !== "ended";
  const samples = useQuery(
    trpc.v1.listTransactionMeterSamples.queryOptions(
      { params: path },
      { refetchInterval: active ? 3_000 : false },
    ),
  );
  const billId = tx.data?.bill?.id;
  const bill = useQuery(
    trpc.v1.getBill.queryOptions(
      { params: { tenant_id: tenantId, bill_id: billId ?? "" } },
      { enabled: Boolean(billId), refetchInterval: active ? 5_000 : false },
    ),
  );
  const events = useQuery(
    trpc.v1.listEvents.queryOptions(
      {
        params: { tenant_id: tenantId },
        // a resource ID alone is a number other resources (a fault) share: its meter events
        query: { resource_id: String(transactionId), type: "meter.sampled", limit: 50 },
      },
      { refetchInterval: active ? 5_000 : false },
    ),
  );
  if (tx.isPending) return <Loading />;
  if (tx.error || !tx.data) return <ErrorBox error={tx.error} retry={() => void tx.refetch()} />;
  const t = tx.data;
  const data = samples.data?.data ?? [];
  const reported = (pick: (s: Sample) => string | null) => data.some((s) => pick(s) !== null);
  const b = bill.data;
  const operations = b
    ? [
        ["Start", b.start_operation_id],
        ["Stop", b.stop_operation_id],
      ].filter((o): o is [string, string] => Boolean(o[1]))
    : [];

  return (
    <>
      <PageHeader
        title={`Transaction ${t.id}`}
        description={
          <>
            <Link className={link} href={`/console/t/${tenantId}/stations/${t.station_id}`}>
              {t.station_name}
            </Link>
            {t.connector_number !== null ? `, connector ${t.connector_number}` : ""} · charger
            reference {t.reference}
          </>
        }
        actions={<Badge value={t.status} testId="transaction-status" />}
      />
      <Card title="Summary">
        <dl className="grid grid-cols-2 gap-x-6 gap-y-2 text-sm sm:grid-cols-4">
          {[
            ["Started", when(t.started_at, zone)],
            ["Ended", when(t.ended_at, zone)],
            ["Duration", duration(t)],
            ["Energy", `${t.energy_kwh} kWh`],
            ["Token", t.id_token ?? (t.bill ? "the bill's charging token" : "—")],
            ["Stop reason", t.stop_reason ?? "—"],
            ["Cost", cost(t)],
            ["Samples", String(data.length)],
          ].map(([k = "", v]) => (
            <div key={k} className="min-w-0">
              <dt className="text-slate-600 dark:text-slate-400">{k}</dt>
              <dd className="font-medium break-words" data-testid={`summary-${k.toLowerCase()}`}>
                {v}
              </dd>
            </div>
          ))}
        </dl>
      </Card>
      <Card title="Meter samples" testId="transaction-charts">
        <QueryState
          query={samples}
          isEmpty={(d) => d.data.length === 0}
          empty={<Empty title="The charger has sent no meter values for this transaction" />}
        >
          {(d) => (
            <>
              <p className="mb-3 text-sm text-slate-600 dark:text-slate-400">
                {d.data.length} sample{d.data.length === 1 ? "" : "s"} from{" "}
                {when(d.data[0]?.sampled_at, zone)} to {when(d.data.at(-1)?.sampled_at, zone)}, a
                point each
                {d.truncated ? " (the first day only)" : ""}.
              </p>
              <div className="grid gap-6 lg:grid-cols-2">
                {CHARTS.filter((c) => c.always || reported(c.pick)).map((c) => (
                  <TimeSeries
                    key={c.testId}
                    testId={c.testId}
                    caption={c.caption}
                    unit={c.unit}
                    data={series(d.data, c.pick)}
                  />
                ))}
              </div>
            </>
          )}
        </QueryState>
      </Card>
      <Card title="Cost" testId="transaction-cost">
        {!t.bill ? (
          <p className="text-sm">
            No bill: this transaction was not started through a bill, so nothing prices it.
          </p>
        ) : !b ? (
          bill.error ? (
            <ErrorBox error={bill.error} />
          ) : (
            <Loading />
          )
        ) : (
          <div className="grid gap-2 text-sm">
            <p className="text-base font-semibold" data-testid="transaction-cost-amount">
              {b.total_minor !== null
                ? `${money(b.total_minor, b.currency)} (final)`
                : b.running_cost_minor !== null
                  ? `${money(b.running_cost_minor, b.currency)} so far`
                  : "Not priced yet"}
            </p>
            <p data-testid="transaction-cost-words">
              {b.price_summary ??
                `Priced by tariff ${b.tariff_id} version ${b.tariff_version} (${b.billing_version}); the breakdown is written when the bill is finalized.`}
            </p>
            {b.adjustments ? (
              <p>
                Before adjustments {money(b.adjustments.before_minor, b.currency)}
                {b.adjustments.group_discount
                  ? `, group discount −${money(b.adjustments.group_discount.discount_minor, b.currency)}`
                  : ""}
                {b.adjustments.merchant_validation
                  ? `, merchant validation −${money(b.adjustments.merchant_validation.discount_minor, b.currency)}`
                  : ""}
                {b.adjustments.cost_cap
                  ? `, capped at ${money(b.adjustments.cost_cap.cap_minor, b.currency)}`
                  : ""}
                .
              </p>
            ) : null}
          </div>
        )}
      </Card>
      <Card title="Belongs to" testId="transaction-links">
        <ul className="grid gap-1 text-sm">
          <li>
            Station:{" "}
            <Link className={link} href={`/console/t/${tenantId}/stations/${t.station_id}`}>
              {t.station_name}
            </Link>
          </li>
          {t.bill ? (
            <li>
              Bill:{" "}
              <Link className={link} href={`/console/t/${tenantId}/bills/${t.bill.id}`}>
                {t.bill.id}
              </Link>{" "}
              ({t.bill.status})
            </li>
          ) : null}
          {t.bill?.payment_id ? (
            <li>
              Payment:{" "}
              <Link className={link} href={`/console/t/${tenantId}/bills/${t.bill.id}#payment`}>
                {t.bill.payment_id}
              </Link>
            </li>
          ) : null}
          {t.bill?.session_id ? (
            <li>
              Charging session:{" "}
              <Link className={link} href={`/console/t/${tenantId}/sessions/${t.bill.session_id}`}>
                {t.bill.session_id}
              </Link>
            </li>
          ) : null}
          {operations.map(([label, id]) => (
            <li key={id}>
              {label} operation:{" "}
              <Link
                className={link}
                href={`/console/t/${tenantId}/stations/${t.station_id}#operations`}
              >
                {id}
              </Link>
            </li>
          ))}
        </ul>
      </Card>
      <Card title="Events">
        <QueryState
          query={events}
          isEmpty={(d) => d.data.length === 0}
          empty={<Empty title="No events name this transaction" />}
        >
          {(d) => (
            <Table head={["Sequence", "Type", "When"]} label="Events of this transaction">
              {d.data.map((e) => (
                <tr key={e.id}>
                  <td className={td}>
                    <Link className={link} href={`/console/t/${tenantId}/events`}>
                      {e.sequence}
                    </Link>
                  </td>
                  <td className={td}>{e.type}</td>
                  <td className={td}>{when(e.created_at, zone)}</td>
                </tr>
              ))}
            </Table>
          )}
        </QueryState>
      </Card>
    </>
  );
}
