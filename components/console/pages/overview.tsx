"use client";

import { useQuery } from "@tanstack/react-query";
import Link from "next/link";
import { useEffect, useState } from "react";
import { BarSeries } from "../charts";
import { useProject } from "../context";
import { useV1Mutation, type V1 } from "../hooks";
import { newRequestKey, useTRPC } from "../trpc";
import { Button, Card, ErrorBox, Loading, PageHeader, SecretOnce, Table, td, when } from "../ui";
import { money } from "../money";

type Overview = V1["getOverview"];

const link =
  "text-teal-800 underline decoration-1 underline-offset-2 hover:no-underline dark:text-teal-300";

/** The browser's IANA zone: days and hours on the overview are the operator's own. */
const browserZone = () => {
  try {
    return Intl.DateTimeFormat().resolvedOptions().timeZone || "UTC";
  } catch {
    return "UTC";
  }
};

/**
 * A project at a glance, live: it reads the overview again whenever the event log moves past the
 * overview's `event_cursor` (polled every 2 s; a page of news is enough to know), and every 30 s for
 * what no event reports (a webhook delivery failing; every 3 s until the first boot).
 */
export function OverviewPage({ tenantId }: { tenantId: number }) {
  const trpc = useTRPC();
  const [zone] = useState(browserZone);
  const overview = useQuery(
    trpc.v1.getOverview.queryOptions(
      { params: { tenant_id: tenantId }, query: { time_zone: zone } },
      {
        // Registering a location or station writes no event: while the checklist shows, read
        // again every 3 s so each step ticks as it is done.
        refetchInterval: (q) =>
          q.state.data && !q.state.data.setup.first_boot_at ? 3_000 : 30_000,
      },
    ),
  );
  const cursor = overview.data?.event_cursor;
  const news = useQuery(
    trpc.v1.listEvents.queryOptions(
      { params: { tenant_id: tenantId }, query: { after: cursor ?? 0, limit: 1 } },
      { enabled: cursor !== undefined, refetchInterval: 2_000 },
    ),
  );
  const moved = (news.data?.data.length ?? 0) > 0;
  const { refetch } = overview;
  useEffect(() => {
    if (moved) void refetch();
  }, [moved, news.dataUpdatedAt, refetch]);

  if (overview.isPending) return <Loading />;
  if (overview.error || !overview.data)
    return <ErrorBox error={overview.error} retry={() => void overview.refetch()} />;
  const o = overview.data;
  return (
    <>
      <PageHeader
        title="Overview"
        description={`Live: updates as chargers report. Days and hours in ${o.time_zone}.`}
      />
      {o.setup.first_boot_at === null ? <FirstRun tenantId={tenantId} overview={o} /> : null}
      <StationCounts tenantId={tenantId} stations={o.stations} />
      <Alerts tenantId={tenantId} alerts={o.alerts} />
      {o.active_transactions ? (
        <ActiveSessions tenantId={tenantId} rows={o.active_transactions} />
      ) : null}
      {o.usage ? <Usage usage={o.usage} /> : null}
    </>
  );
}

function StationCounts({
  tenantId,
  stations,
}: {
  tenantId: number;
  stations: Overview["stations"];
}) {
  const states = [
    ["online", "Online", "text-emerald-800 dark:text-emerald-300"],
    ["offline", "Offline", "text-slate-800 dark:text-slate-200"],
    ["charging", "Charging", "text-teal-800 dark:text-teal-300"],
    ["faulted", "Faulted", "text-red-800 dark:text-red-300"],
  ] as const;
  return (
    <section aria-labelledby="station-counts" className="mb-6">
      <h2 id="station-counts" className="mb-2 text-lg font-semibold">
        Stations ({stations.total})
      </h2>
      <ul className="grid grid-cols-2 gap-3 sm:grid-cols-4">
        {states.map(([state, label, tone]) => (
          <li key={state}>
            <Link
              href={`/console/t/${tenantId}/stations?state=${state}`}
              data-testid={`count-${state}`}
              className="block rounded-lg border border-slate-200 bg-white p-4 shadow-sm hover:border-teal-600 focus-visible:ring-2 focus-visible:ring-teal-600 focus-visible:outline-none dark:border-slate-800 dark:bg-slate-900"
            >
              <span className={`block text-3xl font-semibold tabular-nums ${tone}`}>
                {stations[state]}
              </span>
              <span className="text-sm">{label}</span>
            </Link>
          </li>
        ))}
      </ul>
    </section>
  );
}

function Alerts({ tenantId, alerts }: { tenantId: number; alerts: Overview["alerts"] }) {
  const href = (a: Overview["alerts"][number]) =>
    a.kind === "webhook_delivery"
      ? `/console/t/${tenantId}/webhooks#${a.webhook_id ?? ""}`
      : a.station_id
        ? `/console/t/${tenantId}/stations/${a.station_id}`
        : `/console/t/${tenantId}/events`;
  const kind = { fault: "Fault", operation: "Operation", webhook_delivery: "Webhook" } as const;
  return (
    <Card title={`Alerts (${alerts.length})`} testId="alerts">
      {alerts.length === 0 ? (
        <p className="text-sm">
          Nothing needs you: no open faults, failed operations or failing webhook deliveries.
        </p>
      ) : (
        <ul className="divide-y divide-slate-100 text-sm dark:divide-slate-800">
          {alerts.map((a) => (
            <li key={`${a.kind}-${a.id}`} className="py-2" data-testid="alert">
              <span className="mr-2 inline-block rounded bg-red-100 px-1.5 text-xs font-semibold text-red-900 dark:bg-red-900 dark:text-red-100">
                {kind[a.kind]}
              </span>
              <Link className={link} href={href(a)}>
                {a.title}
              </Link>
              <span className="block text-slate-700 dark:text-slate-300">
                {a.detail} · {when(a.at)}
              </span>
            </li>
          ))}
        </ul>
      )}
    </Card>
  );
}

function ActiveSessions({
  tenantId,
  rows,
}: {
  tenantId: number;
  rows: NonNullable<Overview["active_transactions"]>;
}) {
  return (
    <Card title={`Charging now (${rows.length})`} testId="active-sessions">
      {rows.length === 0 ? (
        <p className="text-sm">No transaction is running.</p>
      ) : (
        <Table
          head={["Transaction", "Station", "Connector", "Power", "Energy", "Started"]}
          label="Charging now"
        >
          {rows.map((t) => (
            <tr key={t.id} data-testid="active-session">
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
              <td className={`${td} tabular-nums`} data-testid="active-power">
                {t.power_kw === null ? "—" : `${t.power_kw} kW`}
              </td>
              <td className={`${td} tabular-nums`}>{t.energy_kwh} kWh</td>
              <td className={td}>{when(t.started_at)}</td>
            </tr>
          ))}
        </Table>
      )}
    </Card>
  );
}

function Usage({ usage }: { usage: NonNullable<Overview["usage"]> }) {
  const [range, setRange] = useState<"today" | "7" | "30">("7");
  const buckets =
    range === "today" ? usage.today : range === "7" ? usage.days.slice(-7) : usage.days;
  const label = (start: string) =>
    range === "today"
      ? new Date(start).toLocaleTimeString(undefined, { hour: "2-digit" })
      : new Date(start).toLocaleDateString(undefined, { month: "short", day: "numeric" });
  const totals = [
    ["Today", usage.totals.today],
    ["Last 7 days", usage.totals.last_7_days],
    ["Last 30 days", usage.totals.last_30_days],
  ] as const;
  return (
    <Card
      title="Energy and revenue"
      testId="usage"
      actions={
        <div role="group" aria-label="Period" className="flex gap-1">
          {(
            [
              ["today", "Today"],
              ["7", "7 days"],
              ["30", "30 days"],
            ] as const
          ).map(([value, text]) => (
            <Button
              key={value}
              aria-pressed={range === value}
              className={range === value ? "bg-teal-50 font-semibold dark:bg-teal-950" : ""}
              onClick={() => setRange(value)}
            >
              {text}
            </Button>
          ))}
        </div>
      }
    >
      <dl className="mb-4 grid grid-cols-1 gap-3 text-sm sm:grid-cols-3">
        {totals.map(([name, t]) => (
          <div key={name} className="rounded-md bg-slate-50 p-3 dark:bg-slate-800">
            <dt className="text-slate-700 dark:text-slate-300">{name}</dt>
            <dd className="font-semibold tabular-nums">
              {t.energy_kwh} kWh · {money(t.revenue_minor ?? 0)}
            </dd>
          </div>
        ))}
      </dl>
      <div className="grid gap-6 lg:grid-cols-2">
        <BarSeries
          testId="chart-energy-by-period"
          caption={range === "today" ? "Energy by hour (kWh)" : "Energy by day (kWh)"}
          unit="kWh"
          data={buckets.map((b) => ({ label: label(b.start), value: b.energy_wh / 1000 }))}
        />
        <BarSeries
          testId="chart-revenue-by-period"
          caption={range === "today" ? "Revenue by hour ($)" : "Revenue by day ($)"}
          unit="$"
          format={(v) => v.toFixed(2)}
          data={buckets.map((b) => ({
            label: label(b.start),
            value: (b.revenue_minor ?? 0) / 100,
          }))}
        />
      </div>
    </Card>
  );
}

/** A password a charger can send: 24 characters from a URL-safe alphabet (the rule is 16 to 40). */
const newPassword = () => {
  const bytes = crypto.getRandomValues(new Uint8Array(18));
  return btoa(String.fromCharCode(...bytes))
    .replaceAll("+", "A")
    .replaceAll("/", "B");
};

function Step({
  n,
  done,
  title,
  children,
}: {
  n: number;
  done: boolean;
  title: string;
  children?: React.ReactNode;
}) {
  return (
    <li className="flex gap-3" data-testid={`setup-step-${n}`} data-done={done}>
      <span
        aria-hidden
        className={`mt-0.5 flex h-6 w-6 shrink-0 items-center justify-center rounded-full text-xs font-semibold ${
          done
            ? "bg-emerald-700 text-white"
            : "bg-slate-200 text-slate-900 dark:bg-slate-700 dark:text-slate-100"
        }`}
      >
        {done ? "✓" : n}
      </span>
      <div className="min-w-0 flex-1">
        <p className="font-medium">
          {title}
          <span className="sr-only">{done ? " (done)" : " (to do)"}</span>
        </p>
        {children}
      </div>
    </li>
  );
}

function FirstRun({ tenantId, overview }: { tenantId: number; overview: Overview }) {
  const trpc = useTRPC();
  const project = useProject(tenantId);
  const set = useV1Mutation(trpc.v1.setStationCredentials);
  const [password, setPassword] = useState<string | null>(null);
  const station = overview.setup.first_station;
  const hasPassword = Boolean(station?.has_password || password);
  const url = station?.connection_url ?? "";
  const base = url.slice(0, url.length - encodeURIComponent(station?.name ?? "").length - 1);
  const secret = password ?? "<the password you set>";
  const snippet16 = `# OCPP 1.6J, security profile 1 (HTTP Basic auth over ws://) or 2 (wss://)
Central system URL: ${base}
Charge point identity: ${station?.name ?? ""}
ChangeConfiguration SecurityProfile = 1
ChangeConfiguration AuthorizationKey = ${secret}   (as hex if the charger asks for hex)`;
  const snippet201 = `# OCPP 2.0.1, SetNetworkProfile (configurationSlot 1), then SetVariables
{
  "ocppVersion": "OCPP20",
  "ocppTransport": "JSON",
  "ocppCsmsUrl": "${base}",
  "securityProfile": 1,
  "ocppInterface": "Wired0",
  "messageTimeout": 30
}
SecurityCtrlr.Identity = ${station?.name ?? ""}
SecurityCtrlr.BasicAuthPassword = ${secret}`;
  return (
    <Card title="Connect your first charger" testId="first-run">
      <ol className="grid gap-4 text-sm">
        <Step n={1} done={overview.setup.locations > 0} title="Add a location">
          {overview.setup.locations === 0 ? (
            <Link className={link} href={`/console/t/${tenantId}/locations`}>
              Add the site your chargers stand at
            </Link>
          ) : null}
        </Step>
        <Step n={2} done={station !== null} title="Register a station">
          {station ? (
            <p>
              <Link className={link} href={`/console/t/${tenantId}/stations/${station.id}`}>
                {station.name}
              </Link>
            </p>
          ) : (
            <Link className={link} href={`/console/t/${tenantId}/stations`}>
              Register a station under that location
            </Link>
          )}
        </Step>
        <Step n={3} done={hasPassword} title="Give it a password">
          {station && !station.has_password && !password ? (
            <div className="mt-1 flex flex-wrap items-center gap-2">
              <Button
                variant="primary"
                disabledReason={project.denied("stations:write")}
                disabled={set.isPending}
                onClick={() => {
                  const next = newPassword();
                  void set
                    .run({
                      params: { tenant_id: tenantId, station_id: station.id },
                      body: { password: next },
                      idempotencyKey: newRequestKey(),
                    })
                    .then(
                      () => setPassword(next),
                      () => undefined,
                    );
                }}
              >
                Make a password
              </Button>
              <span>16 to 40 characters; the charger sends it with HTTP Basic auth.</span>
              {set.error ? <ErrorBox error={set.error} /> : null}
            </div>
          ) : null}
          {password ? <SecretOnce secret={password} label="The station's password" /> : null}
        </Step>
        <Step n={4} done={false} title="Configure the charger">
          {station ? (
            <div className="mt-1 grid gap-3 lg:grid-cols-2">
              {[
                ["OCPP 1.6", snippet16],
                ["OCPP 2.0.1", snippet201],
              ].map(([name, text]) => (
                <figure key={name} className="min-w-0">
                  <figcaption className="mb-1 font-medium">{name}</figcaption>
                  <pre
                    tabIndex={0}
                    className="overflow-x-auto rounded-md bg-slate-100 p-3 text-xs whitespace-pre-wrap break-all dark:bg-slate-800"
                  >
                    {text}
                  </pre>
                </figure>
              ))}
            </div>
          ) : null}
        </Step>
        <Step n={5} done={false} title="Waiting for the first connection…">
          <p role="status" data-testid="waiting-first-connection">
            {station
              ? `Nothing from ${station.name} yet. This page moves on by itself when it boots.`
              : "Once a station is registered and configured, its first boot shows here."}
          </p>
        </Step>
      </ol>
    </Card>
  );
}
