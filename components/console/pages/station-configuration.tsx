"use client";

import { useQuery } from "@tanstack/react-query";
import { useState } from "react";
import {
  isConnectionKey,
  isPasswordKey,
  isProtectedKey,
} from "@/server/stations/configuration/keys";
import { ConfirmDialog } from "../confirm-dialog";
import { useProject } from "../context";
import { useV1Mutation, type V1 } from "../hooks";
import { newRequestKey, useTRPC } from "../trpc";
import { Outcome } from "./station-commands";
import { StationTabFrame } from "./station-tabs";
import { Badge, Button, Card, Empty, ErrorBox, Table, td, TextField, when } from "../ui";

type Station = V1["getStation"];

const LIVE_MS = 2_000;

/** The station's configuration tab: its last read from the charger, a new read, and changes. */
export function StationConfigurationPage({
  tenantId,
  stationId,
}: {
  tenantId: number;
  stationId: number;
}) {
  return (
    <StationTabFrame tenantId={tenantId} stationId={stationId} current="configuration">
      {(s) => (
        <>
          <Configuration tenantId={tenantId} station={s} />
        </>
      )}
    </StationTabFrame>
  );
}

type Draft = { component: string; key: string; value: string };

function Configuration({ tenantId, station }: { tenantId: number; station: Station }) {
  const trpc = useTRPC();
  const project = useProject(tenantId);
  const read = useV1Mutation(trpc.v1.readStationConfiguration);
  const change = useV1Mutation(trpc.v1.changeStationConfiguration);
  const [opId, setOpId] = useState<string | null>(null);
  const op = useQuery(
    trpc.v1.getOperation.queryOptions(
      { params: { tenant_id: tenantId, operation_id: opId ?? "" } },
      { enabled: Boolean(opId), refetchInterval: LIVE_MS },
    ),
  );
  const v2 = station.protocol !== null && station.protocol !== "ocpp1.6";
  const [draft, setDraft] = useState<Draft>({ component: "", key: "", value: "" });
  /** the open confirmation's Idempotency-Key, made when it opens (null: closed) */
  const [confirming, setConfirming] = useState<string | null>(null);
  const [understood, setUnderstood] = useState(false);
  const params = { tenant_id: tenantId, station_id: station.id };
  const offline = station.online ? null : "The station is offline: the charger cannot be asked.";
  const control = project.denied("stations:control") ?? offline;

  const ref = { component: v2 ? draft.component || undefined : undefined, key: draft.key };
  const password = draft.key !== "" && isPasswordKey(ref);
  const connection = draft.key !== "" && isConnectionKey(ref);
  const guarded = draft.key !== "" && isProtectedKey(ref);
  const changeDenied =
    control ??
    (password ? "The connection password is set under Credentials, on the Overview tab." : null) ??
    (guarded ? project.denied("stations:admin") : null) ??
    (draft.key === "" || (v2 && draft.component === "") ? "Name the key to change." : null);

  const followed = (promise: Promise<{ id: string }>) =>
    promise.then(
      (o) => setOpId(o.id),
      () => setOpId(null),
    );
  const readAll = () =>
    void followed(read.run({ params, body: {}, idempotencyKey: newRequestKey() }));
  const send = (confirm: boolean, idempotencyKey = newRequestKey()) =>
    followed(
      change.run({
        params,
        body: {
          changes: [
            {
              ...(v2 ? { component: draft.component } : {}),
              key: draft.key,
              value: draft.value,
            },
          ],
          ...(confirm ? { confirm_connection_change: true } : {}),
        },
        idempotencyKey,
      }),
    );
  const current = op.data ?? change.data ?? read.data;
  const keys = (current?.result?.keys ?? []) as {
    key: string;
    status?: string | null;
    reboot_required?: boolean;
  }[];
  const last = station.configuration;

  return (
    <>
      <Card title="Configuration read from the charger" testId="configuration">
        <div className="mb-3 flex flex-wrap items-center gap-3 text-sm">
          <span data-testid="configuration-read-at">
            {last ? `Read ${when(last.read_at)}` : "Never read"}
          </span>
          <Button variant="primary" disabledReason={control} onClick={readAll}>
            Read from the charger
          </Button>
        </div>
        {read.error ? <ErrorBox error={read.error} /> : null}
        {!last || last.keys.length === 0 ? (
          <Empty title="No configuration read yet" />
        ) : (
          <Table head={[...(v2 ? ["Component"] : []), "Key", "Value", "Read-only", ""]}>
            {last.keys.map((k) => {
              const r = { component: k.component ?? undefined, key: k.key };
              return (
                <tr key={`${k.component ?? ""}.${k.key}`} data-testid="configuration-row">
                  {v2 ? <td className={td}>{k.component}</td> : null}
                  <td className={td}>
                    {k.key}
                    {isConnectionKey(r) ? (
                      <Badge value="connection" />
                    ) : isProtectedKey(r) ? (
                      <Badge value="protected" />
                    ) : null}
                  </td>
                  <td className={`${td} break-all`}>
                    {k.secret ? <em>secret, not shown</em> : (k.value ?? "")}
                  </td>
                  <td className={td}>{k.readonly === null ? "—" : k.readonly ? "yes" : "no"}</td>
                  <td className={td}>
                    {k.readonly || k.secret ? null : (
                      <Button
                        onClick={() =>
                          setDraft({
                            component: k.component ?? "",
                            key: k.key,
                            value: k.value ?? "",
                          })
                        }
                      >
                        Edit
                      </Button>
                    )}
                  </td>
                </tr>
              );
            })}
          </Table>
        )}
        {last && last.unknown_keys.length ? (
          <p className="mt-2 text-sm text-slate-600">
            Unknown to the charger: {last.unknown_keys.map((k) => k.key).join(", ")}
          </p>
        ) : null}
      </Card>
      <Card title="Change a key">
        <p className="mb-3 text-sm text-slate-600 dark:text-slate-400">
          Protected keys (who may charge, and how the charger connects) need stations:admin.
          Connection keys (WebSocketURL, OCPPID, SecurityProfile, the OCPP 2.x network and
          SecurityCtrlr variables) can lock the charger out: you will be asked to confirm.
        </p>
        <form
          className="grid gap-3 sm:grid-cols-4 sm:items-end"
          onSubmit={(e) => {
            e.preventDefault();
            if (connection) {
              setUnderstood(false);
              setConfirming(newRequestKey());
            } else void send(false);
          }}
        >
          {v2 ? (
            <TextField
              label="Component"
              value={draft.component}
              maxLength={50}
              onChange={(e) => setDraft({ ...draft, component: e.target.value })}
            />
          ) : null}
          <TextField
            label={v2 ? "Variable" : "Key"}
            value={draft.key}
            maxLength={50}
            onChange={(e) => setDraft({ ...draft, key: e.target.value })}
          />
          <TextField
            label="Value"
            value={draft.value}
            maxLength={500}
            onChange={(e) => setDraft({ ...draft, value: e.target.value })}
          />
          <Button type="submit" variant="primary" disabledReason={changeDenied}>
            {connection ? "Change connection key…" : "Change"}
          </Button>
        </form>
        {changeDenied && draft.key !== "" ? (
          <p className="mt-2 text-sm text-slate-600" data-testid="configuration-guard">
            {changeDenied}
          </p>
        ) : null}
        {change.error ? <ErrorBox error={change.error} /> : null}
      </Card>
      {current ? (
        <Card title="Last request">
          <p className="text-sm" aria-live="polite">
            {current.action}: <Badge testId="configuration-status" value={current.status} />
            <span className="ml-2">
              <Outcome operation={current} />
            </span>
          </p>
          {keys.some((k) => k.status) ? (
            <ul className="mt-2 text-sm" data-testid="configuration-answers">
              {keys
                .filter((k) => k.status)
                .map((k) => (
                  <li key={k.key}>
                    {k.key}: {k.status}
                    {k.reboot_required ? " (takes effect after a reboot)" : ""}
                  </li>
                ))}
            </ul>
          ) : null}
        </Card>
      ) : null}
      <ConfirmDialog
        open={confirming !== null}
        title="Change how the charger connects?"
        confirmLabel="Change it"
        danger
        busy={change.isPending}
        confirmDisabledReason={understood ? null : "Tick the box once you have checked the value."}
        onCancel={() => setConfirming(null)}
        onConfirm={() => {
          if (!understood || confirming === null) return;
          void send(true, confirming).finally(() => setConfirming(null));
        }}
      >
        <p>
          Setting <strong>{draft.key}</strong> to <code>{draft.value}</code> changes how the charger
          reaches this service. A wrong value locks it out until someone fixes it on site.
        </p>
        <label className="mt-3 flex items-center gap-2">
          <input
            type="checkbox"
            checked={understood}
            onChange={(e) => setUnderstood(e.target.checked)}
            data-testid="confirm-connection-change"
          />
          I have checked the value and want to change it.
        </label>
      </ConfirmDialog>
    </>
  );
}
