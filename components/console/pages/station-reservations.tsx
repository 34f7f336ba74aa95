"use client";

import { useQuery } from "@tanstack/react-query";
import Link from "next/link";
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
type Reservation = V1["listReservations"]["data"][number];

const LIVE_MS = 2_000;
const OPEN = new Set(["requested", "accepted"]);

/** A `datetime-local` value an hour from now, in the browser's time zone. */
function inAnHour() {
  const d = new Date(Date.now() + 3600_000);
  d.setMinutes(d.getMinutes() - d.getTimezoneOffset());
  return d.toISOString().slice(0, 16);
}

/**
 * The station's reservations (make one, cancel one after a confirmation) and its local
 * authorization list (the version the charger confirmed, when, and "Send full list").
 */
export function StationReservationsPage({
  tenantId,
  stationId,
}: {
  tenantId: number;
  stationId: number;
}) {
  return (
    <StationTabFrame tenantId={tenantId} stationId={stationId} current="reservations">
      {(s) => (
        <>
          <Reservations tenantId={tenantId} station={s} />
          <LocalList tenantId={tenantId} station={s} />
        </>
      )}
    </StationTabFrame>
  );
}

/** The operation a 202 answered with, followed until it settles. */
function useFollowed(tenantId: number) {
  const trpc = useTRPC();
  const [opId, setOpId] = useState<string | null>(null);
  const op = useQuery(
    trpc.v1.getOperation.queryOptions(
      { params: { tenant_id: tenantId, operation_id: opId ?? "" } },
      { enabled: Boolean(opId), refetchInterval: LIVE_MS },
    ),
  );
  const follow = (promise: Promise<{ id: string }>) =>
    promise.then(
      (o) => setOpId(o.id),
      () => setOpId(null),
    );
  return { op: op.data ?? null, follow };
}

function Reservations({ tenantId, station }: { tenantId: number; station: Station }) {
  const trpc = useTRPC();
  const project = useProject(tenantId);
  const params = { tenant_id: tenantId, station_id: station.id };
  const list = useQuery(
    trpc.v1.listReservations.queryOptions({ params }, { refetchInterval: LIVE_MS }),
  );
  const create = useV1Mutation(trpc.v1.createReservation);
  const cancel = useV1Mutation(trpc.v1.cancelReservation);
  const { op, follow } = useFollowed(tenantId);
  const v2 = station.protocol !== null && station.protocol !== "ocpp1.6";
  const [connectorId, setConnectorId] = useState(String(station.connectors[0]?.id ?? ""));
  const [token, setToken] = useState("");
  const [until, setUntil] = useState(inAnHour);
  /** the reservation whose cancel is being confirmed, with that dialog's Idempotency-Key */
  const [canceling, setCanceling] = useState<{ reservation: Reservation; key: string } | null>(
    null,
  );
  const offline = station.online ? null : "The station is offline: the charger cannot be asked.";
  const control = project.denied("stations:control") ?? offline;
  const createDenied =
    control ??
    (token === "" ? "Enter the token to reserve for." : null) ??
    (connectorId === "" ? "Pick a connector." : null);

  return (
    <>
      <Card title="Reservations" testId="reservations">
        <form
          className="mb-4 grid gap-3 sm:grid-cols-4 sm:items-end"
          onSubmit={(e) => {
            e.preventDefault();
            void follow(
              create.run({
                params,
                body: {
                  connector_id: Number(connectorId),
                  token,
                  expires_at: new Date(until).toISOString(),
                },
                idempotencyKey: newRequestKey(),
              }),
            );
          }}
        >
          <SelectField
            label={v2 ? "Connector (its EVSE is reserved)" : "Connector"}
            value={connectorId}
            onChange={(e) => setConnectorId(e.target.value)}
          >
            {station.connectors.map((c) => (
              <option key={c.id} value={String(c.id)}>
                {v2 ? `EVSE ${c.evse_number} · ` : ""}Connector {c.connector_number}
              </option>
            ))}
          </SelectField>
          <TextField
            label="Token"
            value={token}
            maxLength={20}
            onChange={(e) => setToken(e.target.value)}
          />
          <TextField
            label="Until"
            type="datetime-local"
            value={until}
            onChange={(e) => setUntil(e.target.value)}
          />
          <Button type="submit" variant="primary" disabledReason={createDenied}>
            Reserve
          </Button>
        </form>
        {create.error ? <ErrorBox error={create.error} /> : null}
        <QueryState query={list}>
          {({ data }) =>
            data.length === 0 ? (
              <Empty title="No reservations yet" />
            ) : (
              <Table head={["#", "Connector", "Token", "Until", "Status", ""]}>
                {data.map((r) => (
                  <tr key={r.id} data-testid="reservation-row">
                    <td className={td}>{r.id}</td>
                    <td className={td}>
                      {v2 ? `EVSE ${r.evse_number} · ` : ""}
                      {r.connector_number}
                    </td>
                    <td className={`${td} break-all`}>{r.token}</td>
                    <td className={td}>{when(r.expires_at)}</td>
                    <td className={td}>
                      <Badge testId="reservation-status" value={r.status} />
                      {r.transaction_id ? (
                        <Link
                          className="ml-2 underline"
                          href={`/console/t/${tenantId}/transactions/${r.transaction_id}`}
                        >
                          transaction
                        </Link>
                      ) : null}
                    </td>
                    <td className={td}>
                      {OPEN.has(r.status) ? (
                        <Button
                          disabledReason={control}
                          onClick={() => setCanceling({ reservation: r, key: newRequestKey() })}
                        >
                          Cancel…
                        </Button>
                      ) : null}
                    </td>
                  </tr>
                ))}
              </Table>
            )
          }
        </QueryState>
        {op ? (
          <p className="mt-3 text-sm" aria-live="polite">
            {op.action}: <Badge testId="reservation-operation" value={op.status} />
            <span className="ml-2">
              <Outcome operation={op} />
            </span>
          </p>
        ) : null}
      </Card>
      <ConfirmDialog
        open={canceling !== null}
        title="Cancel this reservation?"
        confirmLabel="Cancel reservation"
        cancelLabel="Keep it"
        danger
        busy={cancel.isPending}
        error={cancel.error ? <ErrorBox error={cancel.error} /> : undefined}
        onCancel={() => setCanceling(null)}
        onConfirm={() => {
          if (!canceling) return;
          void follow(
            cancel.run({
              params: { ...params, reservation_id: canceling.reservation.id },
              idempotencyKey: canceling.key,
            }),
          ).finally(() => setCanceling(null));
        }}
      >
        {canceling ? (
          <p>
            The charger is asked to free connector {canceling.reservation.connector_number} now;
            token <strong>{canceling.reservation.token}</strong> loses its hold on it. This cannot
            be undone: holding the connector again takes a new reservation.
          </p>
        ) : null}
      </ConfirmDialog>
    </>
  );
}

function LocalList({ tenantId, station }: { tenantId: number; station: Station }) {
  const trpc = useTRPC();
  const project = useProject(tenantId);
  const params = { tenant_id: tenantId, station_id: station.id };
  const state = useQuery(
    trpc.v1.getLocalList.queryOptions({ params }, { refetchInterval: LIVE_MS }),
  );
  const send = useV1Mutation(trpc.v1.sendLocalList);
  const version = useV1Mutation(trpc.v1.readLocalListVersion);
  const { op, follow } = useFollowed(tenantId);
  const offline = station.online ? null : "The station is offline: the charger cannot be asked.";
  const control = project.denied("stations:control") ?? offline;
  return (
    <Card title="Local authorization list" testId="local-list">
      <QueryState query={state}>
        {(l) => (
          <>
            <dl className="mb-3 grid grid-cols-2 gap-2 text-sm sm:grid-cols-4">
              <div>
                <dt className="text-slate-500">Version</dt>
                <dd data-testid="local-list-version">{l.version}</dd>
              </div>
              <div>
                <dt className="text-slate-500">Last sync</dt>
                <dd data-testid="local-list-synced-at">
                  {l.synced_at ? when(l.synced_at) : "Never"}
                </dd>
              </div>
              <div>
                <dt className="text-slate-500">Tokens</dt>
                <dd>{l.entries}</dd>
              </div>
              <div>
                <dt className="text-slate-500">In step</dt>
                <dd>
                  {l.in_step ? "yes" : "no: the next send is full"}
                  {l.pending_operation_id ? " · a send is in flight" : ""}
                </dd>
              </div>
            </dl>
            <div className="flex flex-wrap gap-2">
              <Button
                variant="primary"
                disabledReason={
                  control ?? (l.pending_operation_id ? "A send is still in flight." : null)
                }
                onClick={() =>
                  void follow(
                    send.run({
                      params,
                      body: { update_type: "full" },
                      idempotencyKey: newRequestKey(),
                    }),
                  )
                }
              >
                Send full list
              </Button>
              <Button
                disabledReason={
                  control ?? (l.pending_operation_id ? "A send is still in flight." : null)
                }
                onClick={() =>
                  void follow(
                    send.run({
                      params,
                      body: { update_type: "differential" },
                      idempotencyKey: newRequestKey(),
                    }),
                  )
                }
              >
                Send changes
              </Button>
              <Button
                disabledReason={control}
                onClick={() =>
                  void follow(version.run({ params, idempotencyKey: newRequestKey() }))
                }
              >
                Ask the charger its version
              </Button>
            </div>
          </>
        )}
      </QueryState>
      {send.error ? <ErrorBox error={send.error} /> : null}
      {version.error ? <ErrorBox error={version.error} /> : null}
      {op ? (
        <p className="mt-3 text-sm" aria-live="polite">
          {op.action}: <Badge testId="local-list-operation" value={op.status} />
          <span className="ml-2">
            <Outcome operation={op} />
          </span>
        </p>
      ) : null}
    </Card>
  );
}
