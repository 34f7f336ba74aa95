"use client";

import { useQuery } from "@tanstack/react-query";
import Link from "next/link";
import { useState } from "react";
import {
  FirmwareFields,
  FirmwareWords,
  firmwareProblem,
  firmwareRequest,
  useFirmwareDraft,
} from "../firmware-fields";
import { ConfirmDialog } from "../confirm-dialog";
import { useProject } from "../context";
import { useV1Mutation, type V1 } from "../hooks";
import { newRequestKey, useTRPC } from "../trpc";
import { StationTabFrame } from "./station-tabs";
import { Badge, Button, Card, Empty, ErrorBox, QueryState, Table, td, when } from "../ui";

type Station = V1["getStation"];
type Job = V1["listFirmwareUpdates"]["data"][number];

const LIVE_MS = 2_000;

/**
 * The station's Firmware & diagnostics tab (server/device-jobs/README.md): each firmware update
 * and diagnostics request with its state and every status the charger sent, a form to schedule an
 * update (stations:admin) or ask for diagnostics (stations:control), and the uploaded file's
 * download link. Refreshed every 2 s.
 */
export function StationDevicePage({
  tenantId,
  stationId,
}: {
  tenantId: number;
  stationId: number;
}) {
  return (
    <StationTabFrame tenantId={tenantId} stationId={stationId} current="device">
      {(s) => (
        <>
          <Firmware tenantId={tenantId} station={s} />
          <Diagnostics tenantId={tenantId} station={s} />
        </>
      )}
    </StationTabFrame>
  );
}

function History({ job }: { job: Job }) {
  return (
    <ol className="text-xs text-slate-600 dark:text-slate-400" data-testid="job-history">
      {job.history.map((h, i) => (
        <li key={i}>
          {h.status} <span className="text-slate-500 dark:text-slate-400">{when(h.at)}</span>
        </li>
      ))}
    </ol>
  );
}

function Firmware({ tenantId, station }: { tenantId: number; station: Station }) {
  const trpc = useTRPC();
  const project = useProject(tenantId);
  const params = { tenant_id: tenantId, station_id: station.id };
  const jobs = useQuery(
    trpc.v1.listFirmwareUpdates.queryOptions({ params }, { refetchInterval: LIVE_MS }),
  );
  const schedule = useV1Mutation(trpc.v1.scheduleFirmwareUpdate);
  const [firmware, setFirmware] = useFirmwareDraft();
  const denied =
    project.denied("stations:admin") ??
    (station.online ? null : "The station is offline: the charger cannot be asked.") ??
    firmwareProblem(firmware);
  /** the Idempotency-Key of the update being confirmed (one per dialog: a retry is the same ask) */
  const [confirming, setConfirming] = useState<string | null>(null);
  const submit = () => {
    if (!confirming) return;
    void schedule
      .run({
        params,
        body: firmwareRequest(firmware),
        idempotencyKey: confirming,
      })
      .then(
        () => {
          setConfirming(null);
          return jobs.refetch();
        },
        () => undefined,
      );
  };
  return (
    <Card
      title="Firmware"
      testId="firmware"
      actions={
        <Link className="text-sm underline" href={`/console/t/${tenantId}/device-batches`}>
          For many stations at once…
        </Link>
      }
    >
      <div className="mb-3 grid gap-2 sm:grid-cols-4">
        <FirmwareFields draft={firmware} onChange={setFirmware} />
        <div className="flex items-end">
          <Button
            variant="primary"
            disabledReason={denied}
            onClick={() => setConfirming(newRequestKey())}
          >
            Schedule update…
          </Button>
        </div>
      </div>
      <ConfirmDialog
        open={confirming !== null}
        title={`Update the firmware of ${station.name}?`}
        confirmLabel="Schedule update"
        danger
        busy={schedule.isPending}
        error={schedule.error ? <ErrorBox error={schedule.error} /> : undefined}
        onCancel={() => {
          setConfirming(null);
          schedule.reset();
        }}
        onConfirm={submit}
      >
        <p>
          The charger <FirmwareWords draft={firmware} /> and installs it. A scheduled update cannot
          be called back from here.
        </p>
      </ConfirmDialog>
      <QueryState query={jobs}>
        {(list) =>
          list.data.length === 0 ? (
            <Empty title="No firmware update yet" />
          ) : (
            <Table head={["Asked", "Firmware", "State", "Statuses"]}>
              {list.data.map((job) => (
                <tr key={job.id} data-testid="firmware-row">
                  <td className={td}>
                    {when(job.created_at)}
                    {job.batch_id ? (
                      <Link
                        className="ml-1 text-xs underline"
                        href={`/console/t/${tenantId}/device-batches/${job.batch_id}`}
                      >
                        batch
                      </Link>
                    ) : null}
                  </td>
                  <td className={`${td} break-all`}>
                    {typeof job.request.location === "string" ? job.request.location : ""}
                  </td>
                  <td className={td}>
                    <Badge value={job.state} />
                  </td>
                  <td className={td}>
                    <History job={job} />
                  </td>
                </tr>
              ))}
            </Table>
          )
        }
      </QueryState>
    </Card>
  );
}

function Diagnostics({ tenantId, station }: { tenantId: number; station: Station }) {
  const trpc = useTRPC();
  const project = useProject(tenantId);
  const params = { tenant_id: tenantId, station_id: station.id };
  const jobs = useQuery(
    trpc.v1.listDiagnostics.queryOptions({ params }, { refetchInterval: LIVE_MS }),
  );
  const ask = useV1Mutation(trpc.v1.requestDiagnostics);
  const v2 = station.protocol !== null && station.protocol !== "ocpp1.6";
  const [security, setSecurity] = useState(false);
  const denied =
    project.denied("stations:control") ??
    (station.online ? null : "The station is offline: the charger cannot be asked.");
  const submit = () =>
    void ask
      .run({
        params,
        body: v2 && security ? { log_type: "SecurityLog" } : {},
        idempotencyKey: newRequestKey(),
      })
      .then(
        () => jobs.refetch(),
        () => undefined,
      );
  return (
    <Card title="Diagnostics" testId="diagnostics">
      <div className="mb-3 flex flex-wrap items-center gap-3 text-sm">
        {v2 ? (
          <label className="flex items-center gap-1">
            <input
              type="checkbox"
              checked={security}
              onChange={(e) => setSecurity(e.target.checked)}
            />
            Security log
          </label>
        ) : null}
        <Button variant="primary" disabledReason={denied} onClick={submit}>
          Ask for diagnostics
        </Button>
      </div>
      {ask.error ? <ErrorBox error={ask.error} /> : null}
      <QueryState query={jobs}>
        {(list) =>
          list.data.length === 0 ? (
            <Empty title="No diagnostics asked yet" />
          ) : (
            <Table head={["Asked", "State", "Statuses", "File"]}>
              {list.data.map((job) => (
                <tr key={job.id} data-testid="diagnostics-row">
                  <td className={td}>{when(job.created_at)}</td>
                  <td className={td}>
                    <Badge value={job.state} />
                  </td>
                  <td className={td}>
                    <History job={job} />
                  </td>
                  <td className={td}>
                    {job.file ? (
                      <a
                        className="underline"
                        data-testid="diagnostics-download"
                        href={`/console/t/${tenantId}/stations/${station.id}/diagnostics/${job.id}/file`}
                      >
                        {job.file.name ?? "file"} ({job.file.size} bytes)
                      </a>
                    ) : (
                      "—"
                    )}
                  </td>
                </tr>
              ))}
            </Table>
          )
        }
      </QueryState>
    </Card>
  );
}
