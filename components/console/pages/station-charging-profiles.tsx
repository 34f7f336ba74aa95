"use client";

import { useQuery } from "@tanstack/react-query";
import { useState } from "react";
import { ConfirmDialog } from "../confirm-dialog";
import { useProject } from "../context";
import { useV1Mutation, type V1 } from "../hooks";
import { newRequestKey, useTRPC } from "../trpc";
import { Outcome } from "./station-commands";
import { StationTabFrame } from "./station-tabs";
import {
  Badge,
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

type Station = V1["getStation"];
type Profile = V1["listChargingProfiles"]["data"][number];

const LIVE_MS = 2_000;

const PURPOSE_WORDS: Record<string, string> = {
  ChargePointMaxProfile: "Station maximum",
  TxDefaultProfile: "Default for sessions",
  TxProfile: "One session",
};
const STATE_WORDS: Record<string, string> = {
  pending: "Sent, waiting for the charger",
  installed: "Installed",
  rejected: "Refused",
  unknown: "No answer: may be installed",
  replaced: "Replaced by a later profile",
  cleared: "Cleared",
  ended: "Ended with its session",
};
/** Labels of the form's fields, for the API's refusals said in words. */
const LABELS: Record<string, string> = {
  "schedule.periods.0.limit": "Limit",
  valid_to: "Until",
  connector_id: "Where",
  evse_number: "Where",
  "schedule.min_rate": "Limit",
};

/** The station's charging profiles tab: what the service set, a simple limit, the composite schedule. */
export function StationChargingProfilesPage({
  tenantId,
  stationId,
}: {
  tenantId: number;
  stationId: number;
}) {
  return (
    <StationTabFrame tenantId={tenantId} stationId={stationId} current="charging-profiles">
      {(s) => (
        <>
          <Profiles tenantId={tenantId} station={s} />
        </>
      )}
    </StationTabFrame>
  );
}

function whereWords(p: { evse_number: number; connector_id: number | null }, station: Station) {
  if (p.connector_id !== null) {
    const c = station.connectors.find((x) => x.id === p.connector_id);
    return `Connector ${c?.connector_number ?? p.connector_id}`;
  }
  return p.evse_number === 0 ? "Whole station" : `EVSE ${p.evse_number}`;
}

const unitWords = (unit: string) => (unit === "W" ? "W" : "A");

function limitWords(p: Profile) {
  const [first, ...rest] = p.schedule.periods;
  const head = `${first!.limit} ${unitWords(p.schedule.unit)}`;
  return rest.length ? `${head}, then ${rest.length} more period(s)` : head;
}

type Draft = { where: string; limit: string; unit: "A" | "W"; until: string };

/** The simple profile as the API takes it: a limit from now, on the station or one connector. */
function profileBody(draft: Draft) {
  const station = draft.where === "station";
  return {
    ...(station ? {} : { connector_id: Number(draft.where) }),
    purpose: station ? ("ChargePointMaxProfile" as const) : ("TxDefaultProfile" as const),
    stack_level: 1,
    kind: "Absolute" as const,
    ...(draft.until ? { valid_to: new Date(draft.until).toISOString() } : {}),
    schedule: {
      unit: draft.unit,
      start: new Date().toISOString(),
      periods: [{ start: 0, limit: Number(draft.limit) }],
    },
  };
}

/** What is wrong with the form before anything is sent, in words (the API checks again). */
function draftProblem(draft: Draft, v16: boolean): string | null {
  const limit = Number(draft.limit);
  if (draft.limit.trim() === "" || !Number.isFinite(limit) || limit <= 0)
    return "Give the limit as a number above 0.";
  if (v16 && Math.abs(Math.round(limit * 10) - limit * 10) > 1e-9)
    return "This charger speaks OCPP 1.6: give the limit in tenths (e.g. 16.5).";
  if (draft.until && !(new Date(draft.until).getTime() > Date.now()))
    return "“Until” must be in the future.";
  return null;
}

function Profiles({ tenantId, station }: { tenantId: number; station: Station }) {
  const trpc = useTRPC();
  const project = useProject(tenantId);
  const params = { tenant_id: tenantId, station_id: station.id };
  const list = useQuery(
    trpc.v1.listChargingProfiles.queryOptions(
      { params, query: { all: "true" } },
      { refetchInterval: LIVE_MS },
    ),
  );
  const set = useV1Mutation(trpc.v1.setChargingProfile);
  const clear = useV1Mutation(trpc.v1.clearChargingProfiles);
  const composite = useV1Mutation(trpc.v1.readCompositeSchedule);
  const [opId, setOpId] = useState<string | null>(null);
  const op = useQuery(
    trpc.v1.getOperation.queryOptions(
      { params: { tenant_id: tenantId, operation_id: opId ?? "" } },
      { enabled: Boolean(opId), refetchInterval: LIVE_MS },
    ),
  );
  const [scheduleOpId, setScheduleOpId] = useState<string | null>(null);
  const scheduleOp = useQuery(
    trpc.v1.getOperation.queryOptions(
      { params: { tenant_id: tenantId, operation_id: scheduleOpId ?? "" } },
      { enabled: Boolean(scheduleOpId), refetchInterval: LIVE_MS },
    ),
  );
  const v16 = station.protocol === "ocpp1.6";
  const [draft, setDraft] = useState<Draft>({ where: "station", limit: "", unit: "A", until: "" });
  const [scheduleWhere, setScheduleWhere] = useState("station");
  /** the open confirmation: what it does, and its Idempotency-Key made when it opened */
  const [confirming, setConfirming] = useState<
    { kind: "set"; key: string } | { kind: "clear"; key: string; profile: Profile | null } | null
  >(null);
  const offline = station.online ? null : "The station is offline: the charger cannot be asked.";
  const control = project.denied("stations:control") ?? offline;
  const problem = draftProblem(draft, v16);

  const followed = (promise: Promise<{ id: string }>, to: (id: string | null) => void) =>
    promise.then(
      (o) => to(o.id),
      () => to(null),
    );
  const confirm = () => {
    if (!confirming) return;
    const { key } = confirming;
    const sent =
      confirming.kind === "set"
        ? set.run({ params, body: profileBody(draft), idempotencyKey: key })
        : clear.run({
            params,
            body: confirming.profile ? { profile_id: confirming.profile.id } : {},
            idempotencyKey: key,
          });
    void followed(sent, setOpId).finally(() => setConfirming(null));
  };
  const readSchedule = () =>
    void followed(
      composite.run({
        params,
        body: {
          ...(scheduleWhere === "station" ? {} : { connector_id: Number(scheduleWhere) }),
          duration: 86_400,
          ...(v16 ? { unit: "A" as const } : {}),
        },
        idempotencyKey: newRequestKey(),
      }),
      setScheduleOpId,
    );
  const current = op.data ?? set.data ?? clear.data;
  const schedule = scheduleOp.data ?? composite.data;
  const scheduleResult = schedule?.result?.schedule as
    | {
        start: string | null;
        duration: number | null;
        unit: string;
        periods: { start: number; limit: number; phases?: number }[];
      }
    | null
    | undefined;
  const whereOptions = (
    <>
      <option value="station">Whole station</option>
      {station.connectors.map((c) => (
        <option key={c.id} value={String(c.id)}>
          Connector {c.connector_number} (EVSE {c.evse_number})
        </option>
      ))}
    </>
  );
  const draftWhere =
    draft.where === "station"
      ? "the whole station"
      : `connector ${station.connectors.find((c) => String(c.id) === draft.where)?.connector_number ?? "?"}`;
  const rows = list.data?.data ?? [];
  const active = (p: Profile) => ["pending", "installed", "unknown"].includes(p.state);

  return (
    <>
      <Card title="Profiles set by this service" testId="charging-profiles">
        <QueryState query={list}>
          {() =>
            rows.length === 0 ? (
              <Empty title="No charging profile set yet">
                A profile limits how much power the charger may draw; set one below.
              </Empty>
            ) : (
              <Table
                label="Charging profiles"
                head={["Profile", "Where", "Limit", "Until", "State", ""]}
              >
                {rows.map((p) => (
                  <tr key={p.id} data-testid="charging-profile-row" data-state={p.state}>
                    <td className={td}>
                      #{p.charging_profile_id} {PURPOSE_WORDS[p.purpose] ?? p.purpose}
                      <span className="block text-xs text-slate-500">level {p.stack_level}</span>
                    </td>
                    <td className={td}>{whereWords(p, station)}</td>
                    <td className={td}>{limitWords(p)}</td>
                    <td className={td}>{p.valid_to ? when(p.valid_to) : "—"}</td>
                    <td className={td}>
                      <span data-testid="charging-profile-state">
                        {STATE_WORDS[p.state] ?? p.state}
                      </span>
                      {p.charger_status ? (
                        <span className="block text-xs text-slate-500">
                          Charger answered {p.charger_status}
                        </span>
                      ) : null}
                    </td>
                    <td className={td}>
                      {active(p) ? (
                        <Button
                          disabledReason={control}
                          onClick={() =>
                            setConfirming({ kind: "clear", key: newRequestKey(), profile: p })
                          }
                        >
                          Clear…
                        </Button>
                      ) : null}
                    </td>
                  </tr>
                ))}
              </Table>
            )
          }
        </QueryState>
        <div className="mt-3">
          <Button
            disabledReason={control}
            onClick={() => setConfirming({ kind: "clear", key: newRequestKey(), profile: null })}
          >
            Clear every profile on the charger…
          </Button>
        </div>
      </Card>
      <Card title="Set a limit">
        <p className="mb-3 text-sm text-slate-600 dark:text-slate-400">
          A limit from now on, for the whole station (its maximum) or one connector (the default for
          its sessions), optionally until a time. It replaces the limit set here before for the same
          place.
        </p>
        <form
          className="grid gap-3 sm:grid-cols-5 sm:items-end"
          onSubmit={(e) => {
            e.preventDefault();
            if (!problem) setConfirming({ kind: "set", key: newRequestKey() });
          }}
        >
          <SelectField
            label="Where"
            value={draft.where}
            onChange={(e) => setDraft({ ...draft, where: e.target.value })}
          >
            {whereOptions}
          </SelectField>
          <TextField
            label="Limit"
            inputMode="decimal"
            value={draft.limit}
            onChange={(e) => setDraft({ ...draft, limit: e.target.value })}
          />
          <SelectField
            label="Unit"
            value={draft.unit}
            onChange={(e) => setDraft({ ...draft, unit: e.target.value === "W" ? "W" : "A" })}
          >
            <option value="A">amperes (A)</option>
            <option value="W">watts (W)</option>
          </SelectField>
          <TextField
            label="Until (optional)"
            type="datetime-local"
            value={draft.until}
            onChange={(e) => setDraft({ ...draft, until: e.target.value })}
          />
          <Button
            type="submit"
            variant="primary"
            disabledReason={control ?? (draft.limit === "" ? "Give the limit." : problem)}
          >
            Set limit…
          </Button>
        </form>
        {problem && draft.limit !== "" ? (
          <p className="mt-2 text-sm text-slate-600" data-testid="charging-profile-guard">
            {problem}
          </p>
        ) : null}
        {set.error ? <ErrorBox error={set.error} labels={LABELS} /> : null}
        {clear.error ? <ErrorBox error={clear.error} /> : null}
      </Card>
      {current ? (
        <Card title="Last request">
          <p className="text-sm" aria-live="polite">
            {current.action === "clear_charging_profile" ? "Clear" : "Set limit"}:{" "}
            <Badge testId="charging-profile-status" value={current.status} />
            <span className="ml-2">
              <Outcome operation={current} testId="charging-profile-outcome" />
            </span>
          </p>
        </Card>
      ) : null}
      <Card title="What the charger will apply (composite schedule)" testId="composite-schedule">
        <div className="flex flex-wrap items-end gap-3">
          <SelectField
            label="For"
            value={scheduleWhere}
            onChange={(e) => setScheduleWhere(e.target.value)}
          >
            {whereOptions}
          </SelectField>
          <Button variant="primary" disabledReason={control} onClick={readSchedule}>
            Read the next 24 hours
          </Button>
        </div>
        {composite.error ? <ErrorBox error={composite.error} /> : null}
        {schedule ? (
          <div className="mt-3 text-sm" aria-live="polite">
            <p>
              <Badge testId="composite-status" value={schedule.status} />{" "}
              <Outcome operation={schedule} />
            </p>
            {scheduleResult ? (
              <div className="mt-2">
                <p className="mb-2">
                  From {scheduleResult.start ? when(scheduleResult.start) : "now"}
                  {scheduleResult.duration !== null
                    ? ` for ${Math.round(scheduleResult.duration / 60)} minutes`
                    : ""}
                </p>
                <Table label="Composite schedule" head={["From", "Limit", "Phases"]}>
                  {scheduleResult.periods.map((x) => (
                    <tr key={x.start} data-testid="composite-period">
                      <td className={td}>+{Math.round(x.start / 60)} min</td>
                      <td className={td}>
                        {x.limit} {unitWords(scheduleResult.unit)}
                      </td>
                      <td className={td}>{x.phases ?? "—"}</td>
                    </tr>
                  ))}
                </Table>
              </div>
            ) : schedule.status === "succeeded" ? (
              <p className="mt-2">The charger has no schedule to apply.</p>
            ) : null}
          </div>
        ) : null}
      </Card>
      <ConfirmDialog
        open={confirming !== null}
        title={
          confirming?.kind === "set"
            ? "Set this limit on the charger?"
            : confirming?.profile
              ? "Clear this profile?"
              : "Clear every profile on the charger?"
        }
        confirmLabel={confirming?.kind === "set" ? "Set limit" : "Clear"}
        danger={confirming?.kind === "clear"}
        busy={set.isPending || clear.isPending}
        onCancel={() => setConfirming(null)}
        onConfirm={confirm}
      >
        {confirming?.kind === "set" ? (
          <p>
            Limits {draftWhere} to{" "}
            <strong>
              {draft.limit} {draft.unit}
            </strong>{" "}
            from now
            {draft.until ? ` until ${when(new Date(draft.until).toISOString())}` : " on"}. Cars
            charging there slow down to it at once.
          </p>
        ) : confirming?.profile ? (
          <p>
            Profile #{confirming.profile.charging_profile_id} (
            {whereWords(confirming.profile, station)}, {limitWords(confirming.profile)}) is removed
            from the charger; other limits still apply.
          </p>
        ) : (
          <p>
            Every charging profile on the charger is removed, including any set by other systems: it
            then charges at its full rate.
          </p>
        )}
      </ConfirmDialog>
    </>
  );
}
