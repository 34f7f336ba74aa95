"use client";

import { LocationLink, useStationZone } from "../links";
import { useQuery } from "@tanstack/react-query";
import Link from "next/link";
import { useState } from "react";
import { useProject } from "../context";
import { useV1Mutation, type V1 } from "../hooks";
import { newRequestKey, useTRPC } from "../trpc";
import { StationDisplays } from "./station-displays";
import { StationFaults } from "./station-faults";
import { Commands, Outcome } from "./station-commands";
import { StationTabs } from "./station-tabs";
import { TransactionRows } from "./transactions";
import {
  Badge,
  Button,
  Card,
  Empty,
  ErrorBox,
  PageHeader,
  QueryState,
  Table,
  td,
  TextField,
  when,
} from "../ui";

type Station = V1["getStation"];

const LIVE_MS = 2_000;

/** One station, live: refreshed every 2 s without reloading the page. */
export function StationPage({ tenantId, stationId }: { tenantId: number; stationId: number }) {
  const zone = useStationZone(tenantId, stationId);
  const trpc = useTRPC();
  const params = { tenant_id: tenantId, station_id: stationId };
  const station = useQuery(
    trpc.v1.getStation.queryOptions(
      { params },
      // a station that is not there (404) is said at once and not asked for again
      { refetchInterval: (q) => (q.state.error ? false : LIVE_MS) },
    ),
  );
  const transactions = useQuery(
    trpc.v1.listTransactions.queryOptions(
      {
        params: { tenant_id: tenantId },
        query: { station_id: stationId, order: "desc", limit: 10 },
      },
      { refetchInterval: LIVE_MS },
    ),
  );
  // Every active session gets a Stop button, however many ended ones are newer.
  const active = useQuery(
    trpc.v1.listTransactions.queryOptions(
      {
        params: { tenant_id: tenantId },
        query: { station_id: stationId, status: "active", limit: 100 },
      },
      { refetchInterval: LIVE_MS },
    ),
  );
  const operations = useQuery(
    trpc.v1.listOperations.queryOptions(
      { params: { tenant_id: tenantId }, query: { station_id: stationId, limit: 10 } },
      { refetchInterval: LIVE_MS },
    ),
  );

  return (
    <QueryState query={station}>
      {(s) => (
        <>
          <PageHeader
            title={s.name}
            description={
              <>
                <Link className="underline" href={`/console/t/${tenantId}/stations`}>
                  Stations
                </Link>{" "}
                / {s.name}
              </>
            }
            actions={<Badge testId="station-connection" value={s.online ? "online" : "offline"} />}
          />
          <StationTabs tenantId={tenantId} stationId={stationId} current="overview" />
          <div className="grid gap-6 lg:grid-cols-2">
            <Card title="Connection">
              <dl className="grid grid-cols-[max-content_minmax(0,1fr)] gap-x-4 gap-y-1 text-sm">
                <dt className="text-slate-500">Connection URL</dt>
                <dd className="break-all">
                  <code>{s.connection_url}</code>
                </dd>
                <dt className="text-slate-500">Protocol</dt>
                <dd>{s.protocol ?? "—"}</dd>
                <dt className="text-slate-500">Location</dt>
                <dd data-testid="station-location">
                  {s.location_id === null ? (
                    "None (times in your browser's zone)"
                  ) : (
                    <>
                      <LocationLink tenantId={tenantId} locationId={s.location_id} />
                      {zone ? ` · times in ${zone}` : ""}
                    </>
                  )}
                </dd>
                <dt className="text-slate-500">Last seen</dt>
                <dd>{when(s.last_seen, zone)}</dd>
                <dt className="text-slate-500">Charger</dt>
                <dd>
                  {s.boot
                    ? [s.boot.vendor, s.boot.model, s.boot.firmware_version]
                        .filter(Boolean)
                        .join(" · ")
                    : "—"}
                </dd>
              </dl>
            </Card>
            <Card title="Connectors">
              <Table head={["#", "EVSE", "Status", "Error", "Reserved"]}>
                {s.connectors.map((c) => (
                  <tr key={c.id}>
                    <td className={td}>{c.connector_number}</td>
                    <td className={td}>{c.evse_number}</td>
                    <td className={td}>
                      <Badge
                        testId={`connector-status-${c.connector_number}`}
                        value={c.status ?? "unknown"}
                      />
                    </td>
                    <td className={td}>{c.error_code ?? ""}</td>
                    <td className={td} data-testid={`connector-reservation-${c.connector_number}`}>
                      {c.reservation ? (
                        <Link
                          className="underline"
                          href={`/console/t/${tenantId}/stations/${s.id}/reservations`}
                        >
                          {c.reservation.token} until {when(c.reservation.expires_at)} (
                          {c.reservation.status})
                        </Link>
                      ) : (
                        ""
                      )}
                    </td>
                  </tr>
                ))}
              </Table>
            </Card>
          </div>
          <StationDisplays tenantId={tenantId} station={s} />
          <StationFaults
            tenantId={tenantId}
            stationId={stationId}
            connectors={s.connectors}
            zone={zone}
          />
          <Commands tenantId={tenantId} station={s} active={active.data?.data ?? []} />
          <Card title="Recent operations">
            <QueryState
              query={operations}
              isEmpty={(d) => d.data.length === 0}
              empty={<Empty title="No operations yet" />}
            >
              {(d) => (
                <Table head={["When", "Action", "Status", "Outcome"]}>
                  {d.data.map((o) => (
                    <tr key={o.id} data-testid="operation-row">
                      <td className={td}>{when(o.created_at, zone)}</td>
                      <td className={td}>{o.action}</td>
                      <td className={td}>
                        <Badge value={o.status} />
                      </td>
                      <td className={`${td} text-sm`}>
                        <Outcome operation={o} />
                      </td>
                    </tr>
                  ))}
                </Table>
              )}
            </QueryState>
          </Card>
          <Card title="Recent transactions">
            <QueryState
              query={transactions}
              isEmpty={(d) => d.data.length === 0}
              empty={<Empty title="No transactions yet" />}
            >
              {(d) => <TransactionRows rows={d.data} tenantId={tenantId} />}
            </QueryState>
          </Card>
          <Credentials tenantId={tenantId} station={s} />
          <DeleteStation tenantId={tenantId} station={s} />
        </>
      )}
    </QueryState>
  );
}

function Credentials({ tenantId, station }: { tenantId: number; station: Station }) {
  const trpc = useTRPC();
  const project = useProject(tenantId);
  const set = useV1Mutation(trpc.v1.setStationCredentials);
  const [password, setPassword] = useState("");
  return (
    <Card title="Credentials">
      <p className="mb-3 text-sm text-slate-600 dark:text-slate-400">
        The password the charger sends (HTTP Basic auth, security profile 1 or 2). Offline stations
        store it for the next connection; connected OCPP 2.x stations get it pushed (needs
        stations:admin); connected OCPP 1.6 stations must be offline first.
      </p>
      <form
        className="flex flex-wrap items-end gap-3"
        onSubmit={(e) => {
          e.preventDefault();
          void set
            .run({
              params: { tenant_id: tenantId, station_id: station.id },
              body: { password },
              idempotencyKey: newRequestKey(),
            })
            .then(
              () => setPassword(""),
              () => undefined,
            );
        }}
      >
        <div className="min-w-60 flex-1">
          <TextField
            label="New password"
            hint="16 to 40 characters, printable, no spaces."
            type="password"
            autoComplete="new-password"
            minLength={16}
            maxLength={40}
            value={password}
            onChange={(e) => setPassword(e.target.value)}
            required
          />
        </div>
        <Button
          type="submit"
          variant="primary"
          disabledReason={project.denied("stations:write")}
          disabled={set.isPending}
        >
          Set password
        </Button>
      </form>
      {set.error ? <ErrorBox error={set.error} /> : null}
      {set.data ? (
        <p className="mt-2 text-sm" data-testid="credentials-result">
          {set.data.status === "succeeded"
            ? `Password ${typeof set.data.result?.applied === "string" ? set.data.result.applied : "saved"}.`
            : `Status: ${set.data.status}`}
        </p>
      ) : null}
    </Card>
  );
}

function DeleteStation({ tenantId, station }: { tenantId: number; station: Station }) {
  const trpc = useTRPC();
  const project = useProject(tenantId);
  const remove = useV1Mutation(trpc.v1.deleteStation);
  const [confirm, setConfirm] = useState("");
  return (
    <Card title="Delete station">
      <p className="mb-3 text-sm text-slate-600 dark:text-slate-400">
        Only a station without charging history can be deleted; a connected one is disconnected
        first. Type its name to confirm.
      </p>
      <form
        className="flex flex-wrap items-end gap-3"
        onSubmit={(e) => {
          e.preventDefault();
          void remove
            .run({
              params: { tenant_id: tenantId, station_id: station.id },
              idempotencyKey: newRequestKey(),
            })
            .then(
              () => window.location.assign(`/console/t/${tenantId}/stations`),
              () => undefined,
            );
        }}
      >
        <div className="min-w-60 flex-1">
          <TextField
            label="Station name"
            value={confirm}
            onChange={(e) => setConfirm(e.target.value)}
          />
        </div>
        <Button
          type="submit"
          variant="danger"
          disabledReason={project.denied("stations:write")}
          disabled={confirm !== station.name || remove.isPending}
        >
          Delete
        </Button>
      </form>
      {remove.error ? <ErrorBox error={remove.error} /> : null}
    </Card>
  );
}
