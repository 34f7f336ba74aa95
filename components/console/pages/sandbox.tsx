"use client";

import { useQueries, useQuery } from "@tanstack/react-query";
import Link from "next/link";
import { useRouter } from "next/navigation";
import { useEffect, useId, useState, type ReactNode } from "react";
import { ConfirmDialog } from "../confirm-dialog";
import { useMe } from "../context";
import { useV1Mutation, type V1 } from "../hooks";
import { newRequestKey, useTRPC } from "../trpc";
import {
  Badge,
  Button,
  Card,
  Empty,
  ErrorBox,
  PageHeader,
  QueryState,
  SelectField,
  Table,
  TextField,
  td,
  when,
} from "../ui";
import { money } from "../money";

type Session = V1["getSandboxSession"];
type Location = V1["listSandboxLocations"]["data"][number];
type Event = V1["listWorkspaceEvents"]["data"][number];

/** How often a session, its events and the recent sessions are read again while the page is open. */
const LIVE_MS = 1_500;
/** Statuses after which nothing moves any more. */
const FINAL = new Set(["refunded", "failed"]);

/** The console's address, for the curl lines (the browser's own origin, known after hydration). */
function useOrigin() {
  const [origin, setOrigin] = useState("$BASE");
  useEffect(() => setOrigin(window.location.origin), []);
  return origin;
}

/**
 * The workspace's sandbox: start a session on a virtual charger, advance its metering, watch it,
 * stop and refund it, each step also as the curl a developer runs with a workspace key. Every read
 * and change is a /v1 sandbox route run as the signed-in person (server/trpc/README.md).
 */
export function SandboxPage({ sessionId }: { sessionId: string | null }) {
  const me = useMe();
  return (
    <>
      <PageHeader
        title="Sandbox"
        description="Charge, pay and refund without hardware: a virtual charger speaks OCPP to the gateway as a real one does, so every station, transaction, bill, payment and event here has the production shape."
      />
      <QueryState query={me}>
        {(m) =>
          m.workspace ? (
            <Workspace
              tenantId={m.workspace.sandbox_tenant_id}
              workspaceName={m.workspace.name}
              sessionId={sessionId}
            />
          ) : (
            <NoWorkspace />
          )
        }
      </QueryState>
    </>
  );
}

function NoWorkspace() {
  const trpc = useTRPC();
  const create = useV1Mutation(trpc.v1.ensureWorkspace);
  const [name, setName] = useState("");
  return (
    <Card title="Your workspace" testId="no-workspace">
      <p className="mb-3 text-sm">
        The sandbox belongs to a workspace: a team you own. You own none yet.
      </p>
      <form
        className="flex flex-wrap items-end gap-2"
        onSubmit={(e) => {
          e.preventDefault();
          void create.run({ body: { name } });
        }}
      >
        <TextField label="Workspace name" value={name} onChange={(e) => setName(e.target.value)} />
        <Button type="submit" variant="primary" disabled={create.isPending || !name.trim()}>
          Create workspace
        </Button>
      </form>
      {create.error ? <ErrorBox error={create.error} /> : null}
    </Card>
  );
}

function Workspace({
  tenantId,
  workspaceName,
  sessionId,
}: {
  tenantId: number;
  workspaceName: string;
  sessionId: string | null;
}) {
  const trpc = useTRPC();
  const origin = useOrigin();
  const locations = useQuery(
    trpc.v1.listSandboxLocations.queryOptions(
      { query: { limit: 100 } },
      { refetchInterval: 5_000 },
    ),
  );
  const tariffs = useQuery(
    trpc.v1.listTariffs.queryOptions({ params: { tenant_id: tenantId }, query: { limit: 100 } }),
  );
  return (
    <>
      <p
        className="mb-4 text-sm text-slate-600 dark:text-slate-400"
        data-testid="sandbox-workspace"
      >
        Workspace <strong>{workspaceName}</strong>: its sandbox is a tenant of its own (
        <Link className="underline" href={`/console/t/${tenantId}/stations`}>
          its stations
        </Link>
        ), apart from your projects.
      </p>
      <div className="grid min-w-0 gap-6 lg:grid-cols-2">
        <div className="min-w-0">
          <QueryState query={locations}>
            {(l) => (
              <StartSession
                tenantId={tenantId}
                locations={l.data}
                tariffs={tariffs.data?.data ?? []}
                origin={origin}
              />
            )}
          </QueryState>
          <RecentSessions current={sessionId} />
        </div>
        <div className="min-w-0">
          {sessionId ? (
            <SessionPanel sessionId={sessionId} origin={origin} />
          ) : (
            <Card title="Session">
              <Empty title="No session open">Start one, or open a recent one.</Empty>
            </Card>
          )}
        </div>
      </div>
    </>
  );
}

function StartSession({
  tenantId,
  locations,
  tariffs,
  origin,
}: {
  tenantId: number;
  locations: Location[];
  tariffs: V1["listTariffs"]["data"];
  origin: string;
}) {
  const trpc = useTRPC();
  const router = useRouter();
  const start = useV1Mutation(trpc.v1.createSandboxSession);
  const stations = locations.flatMap((l) => l.stations);
  const defaultTariff = locations[0]?.default_tariff_id ?? null;
  const firstFree = stations.find((s) => s.connectors.some((c) => !c.open_session_id));
  const [stationId, setStationId] = useState<number | null>(null);
  const [connectorId, setConnectorId] = useState<number | null>(null);
  const [tariffId, setTariffId] = useState<number | null>(null);
  const station = stations.find((s) => s.id === stationId) ?? firstFree ?? stations[0];
  const connector =
    station?.connectors.find((c) => c.id === connectorId) ??
    station?.connectors.find((c) => !c.open_session_id) ??
    station?.connectors[0];
  const tariff = tariffId ?? defaultTariff;
  const body = {
    ...(station ? { station_id: station.id } : {}),
    ...(connector ? { connector_id: connector.id } : {}),
    ...(tariff !== null ? { tariff_id: tariff } : {}),
  };
  const tariffOptions = tariffs.length
    ? tariffs
    : defaultTariff !== null
      ? [{ id: defaultTariff, name: "Sandbox default", pricing_summary: "" }]
      : [];
  return (
    <Card title="Start a session" testId="sandbox-start">
      <form
        className="grid gap-3"
        onSubmit={(e) => {
          e.preventDefault();
          void start.run({ body, idempotencyKey: newRequestKey() }).then((s) => {
            router.push(`/console/sandbox?session=${s.id}`);
          });
        }}
      >
        <SelectField
          label="Station"
          value={station?.id ?? ""}
          onChange={(e) => {
            setStationId(Number(e.target.value));
            setConnectorId(null);
          }}
        >
          {stations.map((s) => (
            <option key={s.id} value={s.id}>
              {s.name} ({s.protocol === "ocpp1.6" ? "OCPP 1.6" : "OCPP 2.0.1"}, {s.nominal_power_kw}{" "}
              kW)
            </option>
          ))}
        </SelectField>
        <SelectField
          label="Connector"
          value={connector?.id ?? ""}
          onChange={(e) => setConnectorId(Number(e.target.value))}
        >
          {station?.connectors.map((c) => (
            <option key={c.id} value={c.id}>
              EVSE {c.evse_number}, connector {c.connector_number}
              {c.open_session_id ? ` (in use by ${c.open_session_id})` : " (free)"}
            </option>
          ))}
        </SelectField>
        <SelectField
          label="Tariff"
          value={tariff ?? ""}
          onChange={(e) => setTariffId(Number(e.target.value))}
        >
          {tariffOptions.map((t) => (
            <option key={t.id} value={t.id}>
              {t.name}
              {t.pricing_summary ? `: ${t.pricing_summary}` : ""}
            </option>
          ))}
        </SelectField>
        <p className="text-xs text-slate-600 dark:text-slate-400">
          The hold (the simulator approves it at once) is the sandbox&apos;s default.{" "}
          {station ? (
            <>
              Station:{" "}
              <Link className="underline" href={`/console/t/${tenantId}/stations/${station.id}`}>
                {station.name}
              </Link>{" "}
              (
              {station.online
                ? "its virtual charger is connected"
                : "connects when a session starts"}
              ).
            </>
          ) : null}
        </p>
        <div>
          <Button type="submit" variant="primary" disabled={start.isPending || !connector}>
            {start.isPending ? "Starting…" : "Start session"}
          </Button>
        </div>
      </form>
      {start.error ? <ErrorBox error={start.error} /> : null}
      <Curl
        title="Start"
        command={`curl -s ${origin}/v1/sessions -H "Authorization: Bearer $KEY" \\\n  -H "Content-Type: application/json" -d '${JSON.stringify(body)}'`}
      />
    </Card>
  );
}

function RecentSessions({ current }: { current: string | null }) {
  const trpc = useTRPC();
  const sessions = useQuery(
    trpc.v1.listSandboxSessions.queryOptions({ query: { limit: 10 } }, { refetchInterval: 5_000 }),
  );
  return (
    <Card title="Recent sessions" testId="sandbox-sessions">
      <QueryState
        query={sessions}
        isEmpty={(d) => d.data.length === 0}
        empty={<Empty title="No sessions yet" />}
      >
        {(d) => (
          <ul className="divide-y divide-slate-100 text-sm dark:divide-slate-800">
            {d.data.map((s) => (
              <li
                key={s.id}
                data-testid="sandbox-session-row"
                className="flex flex-wrap items-center gap-2 py-2"
              >
                <Link
                  className="font-mono break-all underline"
                  href={`/console/sandbox?session=${s.id}`}
                  aria-current={s.id === current ? "page" : undefined}
                >
                  {s.id}
                </Link>
                <Badge value={s.status} />
                <span>
                  {s.energy_kwh} kWh ·{" "}
                  {money(s.bill.total_minor ?? s.cost.running_minor, s.cost.currency)}
                </span>
                <span className="text-slate-500">{when(s.created_at)}</span>
              </li>
            ))}
          </ul>
        )}
      </QueryState>
    </Card>
  );
}

function SessionPanel({ sessionId, origin }: { sessionId: string; origin: string }) {
  const trpc = useTRPC();
  const session = useQuery(
    trpc.v1.getSandboxSession.queryOptions(
      { params: { session_id: sessionId } },
      { refetchInterval: (q) => (FINAL.has(q.state.data?.status ?? "") ? false : LIVE_MS) },
    ),
  );
  return (
    <QueryState query={session}>
      {(s) => (
        <>
          <Card
            title={`Session ${s.id}`}
            testId="sandbox-session"
            actions={<Badge testId="sandbox-session-status" value={s.status} />}
          >
            <Facts session={s} />
            {s.last_error ? (
              <p role="status" className="mt-3 text-sm text-red-800 dark:text-red-300">
                {s.last_error.message} ({s.last_error.code})
              </p>
            ) : null}
          </Card>
          <Controls session={s} origin={origin} />
          <Events session={s} origin={origin} />
        </>
      )}
    </QueryState>
  );
}

function Facts({ session: s }: { session: Session }) {
  const t = `/console/t/${s.tenant_id}`;
  const rows: [string, ReactNode, string?][] = [
    [
      "Station",
      <Link key="station" className="underline" href={`${t}/stations/${s.station.id}`}>
        {s.station.name}
      </Link>,
    ],
    [
      "Connector",
      `EVSE ${s.connector.evse_number}, connector ${s.connector.connector_number} · ${s.connector.status ?? "—"}`,
    ],
    ["Tariff", s.tariff.pricing_summary, "sandbox-tariff"],
    [
      "Energy",
      `${s.energy_kwh} kWh${s.pending_wh > 0 ? ` (${(s.pending_wh / 1000).toFixed(3)} kWh on its way)` : ""}`,
      "sandbox-energy",
    ],
    ["Power", s.power_kw === null ? "—" : `${s.power_kw} kW`, "sandbox-power"],
    ["Charging time (virtual)", duration(s.elapsed_seconds)],
    [
      s.bill.total_minor === null ? "Cost so far" : "Cost (final)",
      money(s.bill.total_minor ?? s.cost.running_minor, s.cost.currency),
      "sandbox-cost",
    ],
    [
      "Bill",
      <Link key="bill" className="underline" href={`${t}/bills/${s.bill.id}`}>
        {s.bill.id} ({s.bill.status})
      </Link>,
    ],
    [
      "Payment",
      s.payment ? (
        <Link key="payment" className="underline" href={`${t}/bills/${s.bill.id}`}>
          {s.payment.id} ({s.payment.status}; hold {money(s.payment.amount_minor, s.cost.currency)},
          captured {money(s.payment.captured_minor, s.cost.currency)}, refunded{" "}
          {money(s.payment.refunded_minor, s.cost.currency)})
        </Link>
      ) : (
        "—"
      ),
      "sandbox-payment",
    ],
    ["Transaction", s.transaction_id ?? "—"],
    ["Started", when(s.started_at)],
    ["Stopped", when(s.stopped_at)],
    ["Settled", when(s.settled_at)],
    ["Refunded", when(s.refunded_at)],
  ];
  return (
    <dl className="grid grid-cols-[minmax(0,2fr)_minmax(0,3fr)] gap-x-4 gap-y-1 text-sm">
      {rows.map(([k, v, testId]) => (
        <div key={k} className="contents">
          <dt className="text-slate-600 dark:text-slate-400">{k}</dt>
          <dd className="break-words" data-testid={testId}>
            {v}
          </dd>
        </div>
      ))}
    </dl>
  );
}

const duration = (seconds: number) => {
  const h = Math.floor(seconds / 3600);
  const m = Math.floor((seconds % 3600) / 60);
  const s = seconds % 60;
  return h ? `${h} h ${m} min` : m ? `${m} min ${s} s` : `${s} s`;
};

const kwh = (wh: number) => (wh / 1000).toFixed(wh % 1000 === 0 ? 0 : 1);

function Controls({ session: s, origin }: { session: Session; origin: string }) {
  const trpc = useTRPC();
  const advance = useV1Mutation(trpc.v1.advanceSandboxSession);
  const stop = useV1Mutation(trpc.v1.stopSandboxSession);
  const refund = useV1Mutation(trpc.v1.refundSandboxSession);
  const [amountWh, setAmountWh] = useState(5_000);
  const [lastWh, setLastWh] = useState(1_000);
  const [asking, setAsking] = useState<null | { what: "stop" | "refund"; key: string }>(null);
  const sliderId = useId();
  const params = { session_id: s.id };
  const charging = s.status === "charging";
  const notCharging = charging
    ? null
    : s.status === "starting"
      ? "The session is still starting."
      : "The session is not charging.";
  const add = (wh: number) => {
    setLastWh(wh);
    void advance.run({ params, body: { energy_wh: wh }, idempotencyKey: newRequestKey() });
  };
  const auth = `-H "Authorization: Bearer $KEY"`;
  const api = `${origin}/v1`;
  const dialog = asking?.what === "stop" ? stop : refund;
  return (
    <Card title="Charge" testId="sandbox-controls">
      <div className="flex flex-wrap gap-2">
        <Button
          variant="primary"
          disabledReason={notCharging}
          disabled={advance.isPending}
          onClick={() => add(1_000)}
        >
          +1 kWh
        </Button>
        <Button
          variant="primary"
          disabledReason={notCharging}
          disabled={advance.isPending}
          onClick={() => add(10_000)}
        >
          +10 kWh
        </Button>
      </div>
      <div className="mt-4 flex flex-wrap items-end gap-3 text-sm">
        <div className="min-w-0 flex-1">
          <label htmlFor={sliderId} className="font-medium">
            Energy to add: {kwh(amountWh)} kWh
          </label>
          <input
            id={sliderId}
            type="range"
            min={100}
            max={50_000}
            step={100}
            value={amountWh}
            onChange={(e) => setAmountWh(Number(e.target.value))}
            aria-valuetext={`${kwh(amountWh)} kWh`}
            className="mt-1 block w-full accent-teal-700"
          />
        </div>
        <Button
          disabledReason={notCharging}
          disabled={advance.isPending}
          onClick={() => add(amountWh)}
        >
          Add {kwh(amountWh)} kWh
        </Button>
      </div>
      {advance.error ? <ErrorBox error={advance.error} /> : null}
      <div className="mt-4 flex flex-wrap gap-2 border-t border-slate-200 pt-4 dark:border-slate-800">
        <Button
          variant="danger"
          disabledReason={charging ? null : notCharging}
          onClick={() => setAsking({ what: "stop", key: newRequestKey() })}
        >
          Stop session…
        </Button>
        <Button
          variant="danger"
          disabledReason={
            s.status === "settled"
              ? s.payment?.captured_minor
                ? null
                : "Nothing was captured: the zero bill released its hold."
              : s.status === "refunded"
                ? "Refunded already."
                : "Only a settled session is refunded: stop it and wait for settled."
          }
          onClick={() => setAsking({ what: "refund", key: newRequestKey() })}
        >
          Refund…
        </Button>
      </div>
      <ConfirmDialog
        open={asking !== null}
        title={asking?.what === "stop" ? "Stop this session?" : "Refund this session?"}
        confirmLabel={asking?.what === "stop" ? "Stop and settle" : "Refund in full"}
        danger
        busy={dialog.isPending}
        error={dialog.error ? <ErrorBox error={dialog.error} /> : null}
        onCancel={() => {
          setAsking(null);
          stop.reset();
          refund.reset();
        }}
        onConfirm={() => {
          if (!asking) return;
          const mutation = asking.what === "stop" ? stop : refund;
          void mutation
            .run({ params, idempotencyKey: asking.key })
            .then(() => setAsking(null))
            .catch(() => undefined);
        }}
      >
        {asking?.what === "stop" ? (
          <p>
            The virtual charger ends the transaction at {s.energy_kwh} kWh. The bill is then
            finalized (about {money(s.cost.running_minor, s.cost.currency)} so far, priced at{" "}
            {s.tariff.pricing_summary}) and the simulator payment captured. This cannot be undone: a
            stopped session takes no more energy.
          </p>
        ) : (
          <p>
            The simulator payment is refunded in full (
            {money(s.payment?.captured_minor, s.cost.currency)}), once. This cannot be undone.
          </p>
        )}
      </ConfirmDialog>
      <h3 className="mt-5 text-sm font-semibold">The same with curl</h3>
      <p className="mt-1 text-xs text-slate-600 dark:text-slate-400">
        <code>$KEY</code> is a workspace key (scopes <code>sandbox:read</code>,{" "}
        <code>sandbox:write</code>): see &quot;Try it without hardware&quot; in the README.
      </p>
      <Curl
        title={`Advance ${kwh(lastWh)} kWh`}
        command={`curl -s ${api}/sandbox/sessions/${s.id}/advance ${auth} \\\n  -H "Content-Type: application/json" -d '{"energy_wh":${lastWh}}'`}
      />
      <Curl title="Read" command={`curl -s ${api}/sessions/${s.id} ${auth}`} />
      <Curl title="Stop" command={`curl -s -X POST ${api}/sessions/${s.id}/stop ${auth}`} />
      <Curl title="Refund" command={`curl -s -X POST ${api}/sessions/${s.id}/refund ${auth}`} />
    </Card>
  );
}

/** The session's own events and those of its bill, payment, operations and transaction. */
function Events({ session: s, origin }: { session: Session; origin: string }) {
  const trpc = useTRPC();
  const live = FINAL.has(s.status) ? 5_000 : LIVE_MS;
  const resources: [string | null | undefined, string?][] = [
    [s.id],
    [s.bill.id],
    [s.payment?.id],
    [s.start_operation?.id],
    [s.stop_operation?.id],
    [s.transaction_id === null ? null : String(s.transaction_id), "meter.sampled"],
  ];
  const lists = useQueries({
    queries: resources
      .filter((r): r is [string, string?] => Boolean(r[0]))
      .map(([resourceId, type]) =>
        trpc.v1.listWorkspaceEvents.queryOptions(
          { query: { resource_id: resourceId, limit: 100, ...(type ? { type } : {}) } },
          { refetchInterval: live },
        ),
      ),
  });
  const events = (() => {
    const byId = new Map<string, Event>();
    for (const list of lists) for (const e of list.data?.data ?? []) byId.set(e.id, e);
    return [...byId.values()].sort((a, b) => a.sequence - b.sequence);
  })();
  const failed = lists.find((l) => l.error);
  return (
    <Card title="Events" testId="sandbox-events">
      {failed ? <ErrorBox error={failed.error} /> : null}
      {events.length === 0 ? (
        <Empty title="No events yet" />
      ) : (
        <Table label="Events" head={["#", "Recorded", "Type", "What"]}>
          {events.map((e) => (
            <tr key={e.id} data-testid="sandbox-event-row">
              <td className={td}>{e.sequence}</td>
              <td className={td}>{when(e.created_at)}</td>
              <td className={`${td} break-all`}>{e.type}</td>
              <td className={td}>{eventText(e)}</td>
            </tr>
          ))}
        </Table>
      )}
      <Curl
        title="Events"
        command={`curl -s "${origin}/v1/events?resource_id=${s.id}" -H "Authorization: Bearer $KEY"`}
      />
    </Card>
  );
}

function eventText(e: Event): string {
  const d = e.data;
  if (typeof d.status === "string" && typeof d.previous_status === "string")
    return `${d.previous_status} → ${d.status}`;
  if (e.type === "meter.sampled" && typeof d.energy_kwh === "string") return `${d.energy_kwh} kWh`;
  const currency = typeof d.currency === "string" ? d.currency : "USD";
  if (typeof d.total_minor === "number") return money(d.total_minor, currency);
  if (typeof d.amount_minor === "number") return money(d.amount_minor, currency);
  if (typeof d.status === "string") return d.status;
  return "";
}

/** One curl line with a copy button. */
function Curl({ title, command }: { title: string; command: string }) {
  const [copied, setCopied] = useState(false);
  return (
    <div className="mt-3" data-testid="curl">
      <div className="flex flex-wrap items-center justify-between gap-2">
        <span className="text-xs font-semibold text-slate-600 uppercase dark:text-slate-400">
          {title}
        </span>
        <Button
          onClick={() => {
            void navigator.clipboard?.writeText(command).then(
              () => setCopied(true),
              () => setCopied(false),
            );
          }}
        >
          {copied ? "Copied" : "Copy"}
          <span className="sr-only"> the {title.toLowerCase()} curl</span>
        </Button>
      </div>
      <pre className="mt-1 rounded bg-slate-100 p-2 text-xs break-all whitespace-pre-wrap dark:bg-slate-800">
        <code>{command}</code>
      </pre>
    </div>
  );
}
