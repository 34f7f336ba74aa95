"use client";

import { useQuery } from "@tanstack/react-query";
import Link from "next/link";
import { useMemo, useState } from "react";
import { StackedSteps, type StackPoint, type StackSeries } from "../charts";
import { ConfirmButton } from "../confirm-button";
import { useProject } from "../context";
import { useV1Mutation, type V1 } from "../hooks";
import { paths } from "../links";
import { newRequestKey, useTRPC } from "../trpc";
import {
  apiError,
  Button,
  Card,
  Empty,
  ErrorBox,
  QueryState,
  SelectField,
  Table,
  td,
  TextField,
  when,
} from "../ui";

type Limit = V1["getPowerLimit"];
type Allocation = Limit["allocations"][number];
type Station = V1["listStations"]["data"][number];

const LIVE_MS = 2_000;
/** How far back the chart reaches (the event log's allocation changes). */
const CHART_MINUTES = 30;

export const kw = (w: number) =>
  (w / 1000).toLocaleString(undefined, { minimumFractionDigits: 1, maximumFractionDigits: 1 });

const ANSWER_WORDS: Record<string, string> = {
  pending: "Sent, waiting for the charger",
  installed: "Taken",
  rejected: "Refused: its maximum is held back",
  unknown: "No answer: counted high",
};

/** Labels of the form's fields, for the API's refusals said in words. */
const LABELS: Record<string, string> = {
  max_power_w: "Site limit",
  "connector_defaults.min_power_w": "Minimum per session",
  "connector_defaults.max_power_w": "Maximum per session",
  "connector_defaults.phases": "Phases",
  voltage_v: "Voltage",
  station_ids: "Stations covered",
  "tolerance_band.min_current_a": "Tolerance (A per phase)",
  "tolerance_band.percent": "Tolerance (%)",
};

/**
 * A location's power limit (issue 28): the limit, what is counted against it and what the
 * sessions draw, a chart of each session's share over the last half hour (from the event log's
 * `location.power_allocation_changed`, then live every 2 s), each share with its charger's answer,
 * and the form that sets or changes it; removing it asks first (it clears every share's profile
 * from its charger).
 */
export function LocationPowerLimit({
  tenantId,
  locationId,
  locationName,
  timeZone,
  stations,
}: {
  tenantId: number;
  locationId: number;
  locationName: string;
  timeZone: string;
  stations: Station[];
}) {
  const trpc = useTRPC();
  const project = useProject(tenantId);
  const params = { tenant_id: tenantId, location_id: locationId };
  const limit = useQuery(
    trpc.v1.getPowerLimit.queryOptions(
      { params },
      { refetchInterval: LIVE_MS, retry: (n, e) => n < 2 && apiError(e)?.code !== "not_found" },
    ),
  );
  const remove = useV1Mutation(trpc.v1.deletePowerLimit);
  const [editing, setEditing] = useState(false);
  const control = project.denied("stations:control");
  const none = apiError(limit.error)?.code === "not_found";

  if (none || (editing && limit.data))
    return (
      <Card title="Power limit" testId="power-limit">
        {none && !editing ? (
          <Empty title="No power limit">
            Give the site a limit when its grid connection is smaller than its chargers together:
            the service shares it among the sessions charging, live.
          </Empty>
        ) : null}
        {editing || !none ? null : (
          <Button variant="primary" disabledReason={control} onClick={() => setEditing(true)}>
            Set a power limit
          </Button>
        )}
        {editing ? (
          <LimitForm
            tenantId={tenantId}
            locationId={locationId}
            stations={stations}
            initial={limit.data ?? null}
            onDone={() => setEditing(false)}
          />
        ) : null}
      </Card>
    );

  return (
    <Card title="Power limit" testId="power-limit">
      <QueryState query={limit}>
        {(l) => (
          <>
            <Summary limit={l} />
            <ShareChart tenantId={tenantId} locationId={locationId} limit={l} />
            <Shares tenantId={tenantId} limit={l} stations={stations} timeZone={timeZone} />
            <div className="mt-4 flex flex-wrap gap-2">
              <Button disabledReason={control} onClick={() => setEditing(true)}>
                Change the limit
              </Button>
              <ConfirmButton
                label="Remove the limit"
                title={`Remove the power limit of ${locationName}?`}
                confirmLabel="Remove the limit"
                testId="remove-power-limit"
                disabledReason={control}
                run={(key) =>
                  remove.run({ params, idempotencyKey: key }).then(() => void limit.refetch())
                }
              >
                Each session charging under it gets its limit cleared from its charger, so the
                chargers may draw their full power at once: mind the site&apos;s main breaker. The
                limit and its settings are removed; setting it again starts afresh.
              </ConfirmButton>
            </div>
          </>
        )}
      </QueryState>
    </Card>
  );
}

function Summary({ limit: l }: { limit: Limit }) {
  const used = Math.min(1, l.allocated_w / l.max_power_w);
  const covers =
    l.station_ids === null
      ? "every station here"
      : `${l.station_ids.length} station${l.station_ids.length === 1 ? "" : "s"} here`;
  return (
    <div className="mb-4 text-sm">
      <dl className="grid gap-2 sm:grid-cols-3">
        <div>
          <dt className="text-slate-600 dark:text-slate-400">Limit</dt>
          <dd className="text-lg font-semibold" data-testid="power-limit-max">
            {kw(l.max_power_w)} kW
          </dd>
          <dd className="text-xs text-slate-600 dark:text-slate-400">
            for {covers}; a share is left alone within{" "}
            {l.tolerance_band.min_current_a.toLocaleString()} A or {l.tolerance_band.percent} % of
            its fair share
          </dd>
        </div>
        <div>
          <dt className="text-slate-600 dark:text-slate-400">Shared out (and held back)</dt>
          <dd className="text-lg font-semibold" data-testid="power-limit-allocated">
            {kw(l.allocated_w)} kW
          </dd>
        </div>
        <div>
          <dt className="text-slate-600 dark:text-slate-400">Drawn now (measured)</dt>
          <dd className="text-lg font-semibold" data-testid="power-limit-live">
            {kw(l.live_power_w)} kW
          </dd>
        </div>
      </dl>
      <div
        className="mt-2 h-2 w-full overflow-hidden rounded bg-slate-200 dark:bg-slate-800"
        role="meter"
        aria-label="Share of the limit counted"
        aria-valuemin={0}
        aria-valuemax={l.max_power_w}
        aria-valuenow={l.allocated_w}
      >
        <div className="h-full bg-teal-600" style={{ width: `${used * 100}%` }} />
      </div>
    </div>
  );
}

type Snapshot = { t: number; allocations: { transaction_id: number; allocated_w: number }[] };
const sessionKey = (transactionId: number) => `tx${transactionId}`;

/**
 * The chart's points: each allocation change in the event log (oldest first), then the live
 * read as the last point, so the steps reach now.
 */
export function chartPoints(
  events: Snapshot[],
  now: Snapshot,
  labels: Map<number, string>,
): { data: StackPoint[]; series: StackSeries[] } {
  const snapshots = [...events.filter((e) => e.t < now.t), now];
  const seen = new Map<number, string>();
  for (const s of snapshots)
    for (const a of s.allocations)
      if (!seen.has(a.transaction_id))
        seen.set(
          a.transaction_id,
          labels.get(a.transaction_id) ?? `Transaction ${a.transaction_id}`,
        );
  const data = snapshots.map((s) => {
    const point: StackPoint = { t: s.t };
    for (const id of seen.keys()) point[sessionKey(id)] = 0;
    for (const a of s.allocations) point[sessionKey(a.transaction_id)] = a.allocated_w;
    return point;
  });
  return {
    data,
    series: [...seen].map(([id, label]) => ({ key: sessionKey(id), label })),
  };
}

const isAllocationList = (v: unknown): v is Snapshot["allocations"] =>
  Array.isArray(v) &&
  v.every(
    (a) =>
      typeof a === "object" &&
      a !== null &&
      typeof (a as Record<string, unknown>).transaction_id === "number" &&
      typeof (a as Record<string, unknown>).allocated_w === "number",
  );

function ShareChart({
  tenantId,
  locationId,
  limit: l,
}: {
  tenantId: number;
  locationId: number;
  limit: Limit;
}) {
  const trpc = useTRPC();
  const [from] = useState(() => new Date(Date.now() - CHART_MINUTES * 60_000).toISOString());
  const history = useQuery(
    trpc.v1.listEvents.queryOptions(
      {
        params: { tenant_id: tenantId },
        query: {
          type: "location.power_allocation_changed",
          resource_id: String(locationId),
          created_from: from,
          order: "desc",
          limit: 100,
        },
      },
      { refetchInterval: LIVE_MS },
    ),
  );
  const { data, series } = useMemo(() => {
    const events: Snapshot[] = (history.data?.data ?? [])
      .flatMap((e) =>
        isAllocationList(e.data.allocations)
          ? [{ t: Date.parse(e.created_at), allocations: e.data.allocations }]
          : [],
      )
      .reverse();
    const labels = new Map<number, string>();
    for (const e of history.data?.data ?? [])
      if (Array.isArray(e.data.allocations))
        for (const a of e.data.allocations as Allocation[])
          labels.set(a.transaction_id, `${a.station_name}, transaction ${a.transaction_id}`);
    for (const a of l.allocations)
      labels.set(a.transaction_id, `${a.station_name}, transaction ${a.transaction_id}`);
    return chartPoints(events, { t: Date.now(), allocations: l.allocations }, labels);
  }, [history.data, l]);
  return (
    <>
      <StackedSteps
        data={data}
        series={series}
        ceiling={l.max_power_w / 1000}
        caption={`Each session's share, last ${CHART_MINUTES} minutes`}
        unit="kW"
        testId="power-limit-chart"
        format={(v) => v.toLocaleString(undefined, { maximumFractionDigits: 1 })}
      />
      <p className="sr-only">
        {series.length === 0
          ? "No session has had a share in this time."
          : `${series.length} session(s) had a share in this time; the table below lists the current ones.`}
      </p>
    </>
  );
}

function Shares({
  tenantId,
  limit: l,
  stations,
  timeZone,
}: {
  tenantId: number;
  limit: Limit;
  stations: Station[];
  timeZone: string;
}) {
  const connectorNumber = (stationId: number, connectorId: number) =>
    stations.find((s) => s.id === stationId)?.connectors.find((c) => c.id === connectorId)
      ?.connector_number;
  if (l.allocations.length === 0)
    return (
      <Empty title="No session is charging under the limit">
        When one starts, it gets its share within a second.
      </Empty>
    );
  return (
    <Table
      label="Shares of the limit"
      head={["Station", "Session", "Share", "Drawing", "Charger's answer", "Since"]}
    >
      {l.allocations.map((a) => (
        <tr key={a.transaction_id} data-testid="power-share-row" data-state={a.profile_state ?? ""}>
          <td className={`${td} break-words`}>
            <Link
              href={paths.station(tenantId, a.station_id)}
              className="text-teal-800 underline dark:text-teal-300"
            >
              {a.station_name}
            </Link>
            <span className="block text-xs text-slate-500">
              Connector {connectorNumber(a.station_id, a.connector_id) ?? a.connector_id}
            </span>
          </td>
          <td className={td}>
            <Link
              href={paths.transaction(tenantId, a.transaction_id)}
              className="text-teal-800 underline dark:text-teal-300"
            >
              Transaction {a.transaction_id}
            </Link>
          </td>
          <td className={td}>
            <span data-testid="power-share">{kw(a.allocated_w)} kW</span>
            <span className="block text-xs text-slate-500">
              {a.allocated_current_a.toLocaleString(undefined, { maximumFractionDigits: 1 })} A ×{" "}
              {a.phases} phase{a.phases === 1 ? "" : "s"}
            </span>
          </td>
          <td className={td}>{a.draw_w === null ? "not measured yet" : `${kw(a.draw_w)} kW`}</td>
          <td className={td}>
            <span data-testid="power-share-answer">
              {a.profile_state === null
                ? "Not sent yet"
                : (ANSWER_WORDS[a.profile_state] ?? a.profile_state)}
            </span>
            {a.held_back_w > 0 ? (
              <span className="block text-xs text-slate-500">
                {kw(a.held_back_w)} kW held back from the others
              </span>
            ) : null}
          </td>
          <td className={td}>{when(a.updated_at, timeZone)}</td>
        </tr>
      ))}
    </Table>
  );
}

type Draft = {
  max: string;
  min: string;
  connectorMax: string;
  phases: "1" | "3";
  voltage: string;
  bandA: string;
  bandPercent: string;
  /** null: every station of the location, now and later */
  stationIds: number[] | null;
};

const draftOf = (l: Limit | null): Draft => ({
  max: l ? String(l.max_power_w / 1000) : "",
  min: l ? String(l.connector_defaults.min_power_w / 1000) : "0",
  connectorMax: l ? String(l.connector_defaults.max_power_w / 1000) : "22",
  phases: l?.connector_defaults.phases === 1 ? "1" : "3",
  voltage: l ? String(l.voltage_v) : "230",
  bandA: l ? String(l.tolerance_band.min_current_a) : "1",
  bandPercent: l ? String(l.tolerance_band.percent) : "10",
  stationIds: l?.station_ids ?? null,
});

/** What is wrong with the form before anything is sent, in words (the API checks again). */
export function draftProblem(d: Draft): string | null {
  const n = (v: string) => (v.trim() === "" ? NaN : Number(v));
  if (!(n(d.max) > 0)) return "Give the site limit in kW, above 0.";
  if (!(n(d.min) >= 0)) return "Give the minimum per session in kW (0 or more).";
  if (!(n(d.connectorMax) > 0)) return "Give the maximum per session in kW, above 0.";
  if (n(d.min) > n(d.connectorMax)) return "The minimum per session cannot be above its maximum.";
  if (!(Number.isInteger(n(d.voltage)) && n(d.voltage) >= 100 && n(d.voltage) <= 1000))
    return "Give the voltage per phase as a whole number from 100 to 1000.";
  if (!(
    n(d.bandA) >= 0 &&
    n(d.bandA) <= 32 &&
    Math.abs(Math.round(n(d.bandA) * 10) - n(d.bandA) * 10) < 1e-9
  ))
    return "Give the tolerance in amperes from 0 to 32, in tenths.";
  if (!(Number.isInteger(n(d.bandPercent)) && n(d.bandPercent) >= 0 && n(d.bandPercent) <= 50))
    return "Give the tolerance in percent as a whole number from 0 to 50.";
  if (d.stationIds !== null && d.stationIds.length === 0)
    return "Pick at least one station, or cover every station here.";
  return null;
}

const watts = (kwText: string) => Math.round(Number(kwText) * 1000);

function LimitForm({
  tenantId,
  locationId,
  stations,
  initial,
  onDone,
}: {
  tenantId: number;
  locationId: number;
  stations: Station[];
  initial: Limit | null;
  onDone: () => void;
}) {
  const trpc = useTRPC();
  const project = useProject(tenantId);
  const put = useV1Mutation(trpc.v1.putPowerLimit);
  const [draft, setDraft] = useState<Draft>(() => draftOf(initial));
  const [key] = useState(newRequestKey);
  const problem = draftProblem(draft);
  const control = project.denied("stations:control");
  const toggle = (id: number, on: boolean) => {
    const current = draft.stationIds ?? [];
    setDraft({
      ...draft,
      stationIds: on ? [...current, id] : current.filter((x) => x !== id),
    });
  };
  return (
    <form
      className="mt-3 grid gap-3"
      data-testid="power-limit-form"
      onSubmit={(e) => {
        e.preventDefault();
        if (problem) return;
        void put
          .run({
            params: { tenant_id: tenantId, location_id: locationId },
            idempotencyKey: key,
            body: {
              max_power_w: watts(draft.max),
              voltage_v: Number(draft.voltage),
              tolerance_band: {
                min_current_a: Number(draft.bandA),
                percent: Number(draft.bandPercent),
              },
              ...(draft.stationIds === null ? {} : { station_ids: draft.stationIds }),
              connector_defaults: {
                min_power_w: watts(draft.min),
                max_power_w: watts(draft.connectorMax),
                phases: draft.phases === "1" ? 1 : 3,
              },
              connector_overrides: (initial?.connector_overrides ?? []).map(({ phases, ...o }) => ({
                ...o,
                ...(phases === undefined
                  ? {}
                  : { phases: phases === 1 ? (1 as const) : (3 as const) }),
              })),
            },
          })
          .then(onDone, () => undefined);
      }}
    >
      <div className="grid gap-3 sm:grid-cols-3">
        <TextField
          label="Site limit (kW)"
          inputMode="decimal"
          value={draft.max}
          onChange={(e) => setDraft({ ...draft, max: e.target.value })}
          hint="What the grid connection allows the chargers together."
        />
        <TextField
          label="Minimum per session (kW)"
          inputMode="decimal"
          value={draft.min}
          onChange={(e) => setDraft({ ...draft, min: e.target.value })}
          hint="Below it a session is paused rather than trickled."
        />
        <TextField
          label="Maximum per session (kW)"
          inputMode="decimal"
          value={draft.connectorMax}
          onChange={(e) => setDraft({ ...draft, connectorMax: e.target.value })}
          hint="What one connector can take (22 kW: 32 A on three phases)."
        />
        <SelectField
          label="Phases"
          value={draft.phases}
          onChange={(e) => setDraft({ ...draft, phases: e.target.value === "1" ? "1" : "3" })}
        >
          <option value="3">three phases</option>
          <option value="1">one phase</option>
        </SelectField>
        <TextField
          label="Voltage per phase (V)"
          inputMode="numeric"
          value={draft.voltage}
          onChange={(e) => setDraft({ ...draft, voltage: e.target.value })}
        />
        <TextField
          label="Tolerance (A per phase)"
          inputMode="decimal"
          value={draft.bandA}
          onChange={(e) => setDraft({ ...draft, bandA: e.target.value })}
          hint="A session's share is left alone while within this many amperes of its fair share…"
        />
        <TextField
          label="Tolerance (%)"
          inputMode="numeric"
          value={draft.bandPercent}
          onChange={(e) => setDraft({ ...draft, bandPercent: e.target.value })}
          hint="…or this share of it, whichever is larger: fewer profiles sent, a little power unused."
        />
      </div>
      <fieldset className="text-sm">
        <legend className="font-medium">Stations covered</legend>
        <label className="mt-1 flex items-center gap-2">
          <input
            type="checkbox"
            checked={draft.stationIds === null}
            onChange={(e) =>
              setDraft({
                ...draft,
                stationIds: e.target.checked ? null : stations.map((s) => s.id),
              })
            }
          />
          Every station here, and any added later
        </label>
        {draft.stationIds !== null ? (
          <div className="mt-1 grid gap-1 sm:grid-cols-2">
            {stations.map((s) => (
              <label key={s.id} className="flex items-center gap-2 break-words">
                <input
                  type="checkbox"
                  checked={draft.stationIds?.includes(s.id) ?? false}
                  onChange={(e) => toggle(s.id, e.target.checked)}
                />
                {s.name}
              </label>
            ))}
          </div>
        ) : null}
      </fieldset>
      {problem ? (
        <p className="text-sm text-slate-600 dark:text-slate-400" data-testid="power-limit-guard">
          {problem}
        </p>
      ) : null}
      {put.error ? <ErrorBox error={put.error} labels={LABELS} /> : null}
      <div className="flex flex-wrap gap-2">
        <Button
          type="submit"
          variant="primary"
          disabledReason={control ?? problem ?? (put.isPending ? "Saving…" : null)}
        >
          {initial ? "Save the limit" : "Set the limit"}
        </Button>
        <Button onClick={onDone}>Cancel</Button>
      </div>
    </form>
  );
}
