"use client";

import { useQuery } from "@tanstack/react-query";
import Link from "next/link";
import { useRouter } from "next/navigation";
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
import { useV1Mutation } from "../hooks";
import { StringPager } from "../pager";
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
  td,
  when,
} from "../ui";

const PROTOCOLS = ["ocpp1.6", "ocpp2.0.1", "ocpp2.1"] as const;
type Protocol = (typeof PROTOCOLS)[number];
/** How many matching stations the preview reads (the batch itself takes up to 500). */
const PREVIEW = 100;
/** How many of them the confirmation names. */
const NAMED = 10;

/**
 * Firmware or diagnostics for many stations at once (POST /v1/tenants/{id}/device-batches): the
 * stations are picked by a filter (a location, a protocol: what the API's `stations` filter
 * takes), the matching ones are listed by name, and the batch starts only once a dialog that names
 * them is confirmed (a firmware update cannot be called back). Its progress page opens then.
 * Below, the project's batches so far, newest first, each a link to its progress.
 */
export function DeviceBatchesPage({ tenantId }: { tenantId: number }) {
  const trpc = useTRPC();
  const router = useRouter();
  const project = useProject(tenantId);
  const [locationId, setLocationId] = useState("");
  const [protocol, setProtocol] = useState<Protocol | "">("");
  const [kind, setKind] = useState<"firmware" | "diagnostics">("firmware");
  const [firmware, setFirmware] = useFirmwareDraft();
  const [confirming, setConfirming] = useState<string | null>(null);
  const create = useV1Mutation(trpc.v1.createDeviceBatch);
  const locations = useQuery(
    trpc.v1.listLocations.queryOptions({
      params: { tenant_id: tenantId },
      query: { limit: 100 },
    }),
  );
  const stations = useQuery(
    trpc.v1.listStations.queryOptions({
      params: { tenant_id: tenantId },
      query: { limit: PREVIEW, ...(locationId ? { location_id: Number(locationId) } : {}) },
    }),
  );
  const filtered = locationId !== "" || protocol !== "";
  const matching = (stations.data?.data ?? []).filter((s) => !protocol || s.protocol === protocol);
  const more = stations.data?.has_more ?? false;
  const denied =
    project.denied(kind === "firmware" ? "stations:admin" : "stations:control") ??
    (filtered ? null : "Pick a location or a protocol.") ??
    (stations.isPending ? "Loading the stations…" : null) ??
    (matching.length === 0 && !more ? "No station matches the filter." : null) ??
    (kind === "firmware" ? firmwareProblem(firmware) : null);
  const what = kind === "firmware" ? "Update firmware" : "Ask for diagnostics";
  const count = `${matching.length}${more ? "+" : ""} station${matching.length === 1 && !more ? "" : "s"}`;
  const start = () => {
    if (!confirming) return;
    const selection = {
      ...(locationId ? { location_id: Number(locationId) } : {}),
      ...(protocol ? { protocol } : {}),
    };
    const body =
      kind === "firmware"
        ? {
            kind,
            stations: selection,
            firmware: firmwareRequest(firmware),
          }
        : { kind, stations: selection, diagnostics: {} };
    void create.run({ params: { tenant_id: tenantId }, body, idempotencyKey: confirming }).then(
      (batch) => router.push(`/console/t/${tenantId}/device-batches/${batch.id}`),
      () => undefined,
    );
  };
  return (
    <>
      <PageHeader
        title="Firmware & diagnostics for many stations"
        description="Pick the stations by a filter, then what to ask of each; the batch's progress opens once it has started."
        actions={
          <Link className="text-sm underline" href={`/console/t/${tenantId}/stations`}>
            All stations
          </Link>
        }
      />
      <Card title="Stations" testId="batch-selection">
        <div className="grid gap-3 sm:grid-cols-2">
          <SelectField
            label="Location"
            value={locationId}
            onChange={(e) => setLocationId(e.target.value)}
          >
            <option value="">Any location</option>
            {(locations.data?.data ?? []).map((l) => (
              <option key={l.id} value={String(l.id)}>
                {l.name}
              </option>
            ))}
          </SelectField>
          <SelectField
            label="Protocol"
            value={protocol}
            onChange={(e) =>
              setProtocol(
                (PROTOCOLS as readonly string[]).includes(e.target.value)
                  ? (e.target.value as Protocol)
                  : "",
              )
            }
          >
            <option value="">Any protocol</option>
            {PROTOCOLS.map((p) => (
              <option key={p} value={p}>
                OCPP {p.slice(4)}
              </option>
            ))}
          </SelectField>
        </div>
        {filtered ? (
          <div className="mt-3 text-sm" data-testid="batch-matching">
            <p className="font-medium">
              {matching.length === 0 && !more
                ? "No station matches."
                : `${count} match${matching.length === 1 && !more ? "es" : ""}:`}
            </p>
            <ul className="mt-1 flex flex-wrap gap-x-3 gap-y-1">
              {matching.map((s) => (
                <li key={s.id} data-testid="batch-station">
                  <Link
                    className="underline"
                    href={`/console/t/${tenantId}/stations/${s.id}/device`}
                  >
                    {s.name}
                  </Link>
                </li>
              ))}
            </ul>
            {more ? (
              <p className="mt-1 text-slate-600 dark:text-slate-400">
                The first {PREVIEW} are listed; the batch takes every match (at most 500).
              </p>
            ) : null}
          </div>
        ) : (
          <p className="mt-3 text-sm text-slate-600 dark:text-slate-400">
            Pick a location or a protocol to see the stations it matches.
          </p>
        )}
      </Card>
      <Card title="What to ask" testId="batch-request">
        <fieldset className="mb-3 text-sm">
          <legend className="font-medium">Kind</legend>
          <div className="mt-1 flex flex-wrap gap-4">
            <label className="flex min-h-6 items-center gap-2">
              <input
                type="radio"
                name="batch-kind"
                checked={kind === "firmware"}
                onChange={() => setKind("firmware")}
              />
              Firmware update
            </label>
            <label className="flex min-h-6 items-center gap-2">
              <input
                type="radio"
                name="batch-kind"
                checked={kind === "diagnostics"}
                onChange={() => setKind("diagnostics")}
              />
              Diagnostics
            </label>
          </div>
        </fieldset>
        {kind === "firmware" ? (
          <div className="mb-3 grid gap-3 sm:grid-cols-3">
            <FirmwareFields draft={firmware} onChange={setFirmware} />
          </div>
        ) : (
          <p className="mb-3 text-sm text-slate-600 dark:text-slate-400">
            Each charger uploads its diagnostics to an address of the service; the files are on each
            station&apos;s Firmware &amp; diagnostics tab.
          </p>
        )}
        <Button
          variant="primary"
          disabledReason={denied}
          onClick={() => setConfirming(newRequestKey())}
        >
          {what}…
        </Button>
      </Card>
      <PastBatches tenantId={tenantId} />
      <ConfirmDialog
        open={confirming !== null}
        title={`${what} on ${count}?`}
        confirmLabel={kind === "firmware" ? "Update firmware" : "Ask for diagnostics"}
        danger={kind === "firmware"}
        busy={create.isPending}
        error={create.error ? <ErrorBox error={create.error} /> : undefined}
        onCancel={() => {
          setConfirming(null);
          create.reset();
        }}
        onConfirm={start}
      >
        <p>
          {matching
            .slice(0, NAMED)
            .map((s) => s.name)
            .join(", ")}
          {matching.length > NAMED || more ? " and more" : ""}.
        </p>
        {kind === "firmware" ? (
          <p className="mt-2">
            Each charger <FirmwareWords draft={firmware} retries={false} /> and installs it. A
            scheduled update cannot be called back from here.
          </p>
        ) : (
          <p className="mt-2">Each charger is asked to upload its diagnostics.</p>
        )}
      </ConfirmDialog>
    </>
  );
}

/** The project's batches (GET …/device-batches), newest first, 20 a page, each with its progress. */
function PastBatches({ tenantId }: { tenantId: number }) {
  const trpc = useTRPC();
  const [cursors, setCursors] = useState<string[]>([]);
  const after = cursors.at(-1);
  const batches = useQuery(
    trpc.v1.listDeviceBatches.queryOptions({
      params: { tenant_id: tenantId },
      query: { limit: 20, ...(after ? { after } : {}) },
    }),
  );
  return (
    <Card title="Batches so far" testId="past-batches">
      <QueryState
        query={batches}
        isEmpty={(d) => d.data.length === 0 && cursors.length === 0}
        empty={<Empty title="No batch yet">A batch started above is listed here.</Empty>}
      >
        {(d) => (
          <>
            <Table head={["Batch", "Done", "States"]} label="Batches so far">
              {d.data.map((b) => (
                <tr key={b.id} data-testid="past-batch">
                  <td className={td}>
                    <Link
                      className="underline"
                      href={`/console/t/${tenantId}/device-batches/${b.id}`}
                    >
                      {b.kind === "firmware" ? "Firmware update" : "Diagnostics"},{" "}
                      {when(b.created_at)}
                    </Link>
                  </td>
                  <td className={td}>
                    {b.done} of {b.total} stations
                  </td>
                  <td className={td}>
                    <span className="flex flex-wrap gap-2">
                      {Object.entries(b.by_state)
                        .filter(([, n]) => n > 0)
                        .map(([state, n]) => (
                          <span key={state}>
                            <Badge value={state} /> {n}
                          </span>
                        ))}
                    </span>
                  </td>
                </tr>
              ))}
            </Table>
            <StringPager page={d} cursors={cursors} setCursors={setCursors} />
          </>
        )}
      </QueryState>
    </Card>
  );
}
