"use client";

import { useQuery, useQueryClient } from "@tanstack/react-query";
import Link from "next/link";
import { useState } from "react";
import { useProject } from "../context";
import { ExportCsv, type CsvColumn } from "../csv";
import { STATION_STATES, type StationState } from "../station-states";
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
  td,
  TextField,
  when,
} from "../ui";

const stationColumns: CsvColumn<V1["listStations"]["data"][number]>[] = [
  { header: "ID", value: (s) => s.id },
  { header: "Name", value: (s) => s.name },
  { header: "Online", value: (s) => (s.online ? "yes" : "no") },
  { header: "Protocol", value: (s) => s.protocol },
  { header: "Last seen", value: (s) => s.last_seen },
  { header: "Connectors", value: (s) => s.connectors.map((c) => c.status ?? "unknown").join(" ") },
];

export function StationsPage({
  tenantId,
  initialState,
}: {
  tenantId: number;
  /** the `state` of the page's address (the overview's counts link here) */
  initialState?: StationState;
}) {
  const trpc = useTRPC();
  const client = useQueryClient();
  const project = useProject(tenantId);
  const [search, setSearch] = useState("");
  const [name, setName] = useState<string | undefined>(undefined);
  const [state, setState] = useState<StationState | "">(initialState ?? "");
  const [cursors, setCursors] = useState<number[]>([0]);
  const after = cursors[cursors.length - 1] ?? 0;
  const query = (after: number, limit: number) => ({
    params: { tenant_id: tenantId },
    query: { after, limit, name, ...(state ? { state } : {}) },
  });
  const stations = useQuery(
    trpc.v1.listStations.queryOptions(query(after, 20), { refetchInterval: 5_000 }),
  );
  const [showForm, setShowForm] = useState(false);

  return (
    <>
      <PageHeader
        title="Stations"
        description="Chargers registered in this project. Open one to watch it live and send commands."
        actions={
          <>
            <ExportCsv
              filename={`stations-${tenantId}.csv`}
              columns={stationColumns}
              load={(after: number | undefined) =>
                client.fetchQuery(trpc.v1.listStations.queryOptions(query(after ?? 0, 100)))
              }
            />
            <Button
              variant="primary"
              onClick={() => setShowForm((s) => !s)}
              disabledReason={project.denied("stations:write")}
            >
              Register station
            </Button>
          </>
        }
      />
      {showForm ? <RegisterStation tenantId={tenantId} onDone={() => setShowForm(false)} /> : null}
      <form
        role="search"
        className="mb-4 flex gap-2"
        onSubmit={(e) => {
          e.preventDefault();
          setName(search.trim() || undefined);
          setCursors([0]);
        }}
      >
        <label className="sr-only" htmlFor="station-search">
          Search stations by name
        </label>
        <input
          id="station-search"
          placeholder="Search by name"
          value={search}
          onChange={(e) => setSearch(e.target.value)}
          className="w-full max-w-sm rounded-md border border-slate-300 bg-white px-3 py-1.5 text-sm dark:border-slate-700 dark:bg-slate-950"
        />
        <Button type="submit">Search</Button>
      </form>
      <div className="mb-4 max-w-xs">
        <SelectField
          label="State"
          value={state}
          onChange={(e) => {
            const next = STATION_STATES.find((v) => v === e.target.value) ?? "";
            setState(next);
            setCursors([0]);
            const url = new URL(window.location.href);
            if (next) url.searchParams.set("state", next);
            else url.searchParams.delete("state");
            window.history.replaceState(null, "", url);
          }}
        >
          <option value="">Any state</option>
          {STATION_STATES.map((v) => (
            <option key={v} value={v}>
              {v[0]!.toUpperCase() + v.slice(1)}
            </option>
          ))}
        </SelectField>
      </div>
      <QueryState
        query={stations}
        isEmpty={(d) => d.data.length === 0}
        empty={
          <Empty
            title={
              name
                ? `No station matches “${name}”`
                : state
                  ? `No station is ${state}`
                  : "No stations yet"
            }
          >
            {name
              ? "Try another name."
              : "Register a station, then point the charger at its connection URL."}
          </Empty>
        }
      >
        {(d) => (
          <>
            <Table head={["Name", "Connection", "Connectors", "Open faults", "Last seen"]}>
              {d.data.map((s) => (
                <tr key={s.id} data-testid="station-row">
                  <td className={td}>
                    <Link
                      className="font-medium text-teal-800 underline dark:text-teal-300"
                      href={`/console/t/${tenantId}/stations/${s.id}`}
                    >
                      {s.name}
                    </Link>
                  </td>
                  <td className={td}>
                    <Badge value={s.online ? "online" : "offline"} />
                  </td>
                  <td className={td}>
                    <div className="flex flex-wrap gap-1">
                      {s.connectors.map((c) => (
                        <Badge key={c.id} value={c.status ?? "unknown"} />
                      ))}
                    </div>
                  </td>
                  <td className={td}>{s.open_faults.length}</td>
                  <td className={td}>{when(s.last_seen)}</td>
                </tr>
              ))}
            </Table>
            <div className="mt-3 flex gap-2">
              <Button
                disabled={cursors.length === 1}
                onClick={() => setCursors((c) => c.slice(0, -1))}
              >
                Previous
              </Button>
              <Button
                disabled={!d.has_more || d.next_cursor === null}
                onClick={() => setCursors((c) => [...c, d.next_cursor ?? 0])}
              >
                Next
              </Button>
            </div>
          </>
        )}
      </QueryState>
    </>
  );
}

function RegisterStation({ tenantId, onDone }: { tenantId: number; onDone: () => void }) {
  const trpc = useTRPC();
  const locations = useQuery(
    trpc.v1.listLocations.queryOptions({
      params: { tenant_id: tenantId },
      query: { limit: 100 },
    }),
  );
  const register = useV1Mutation(trpc.v1.registerStation);
  const [key] = useState(newRequestKey);
  const [form, setForm] = useState({ name: "", location_id: "", connector_count: "2" });
  const created = register.data;
  return (
    <Card title="Register a station" testId="register-station">
      <QueryState
        query={locations}
        isEmpty={(d) => d.data.length === 0}
        empty={
          <Empty title="Create a location first">
            <Link className="underline" href={`/console/t/${tenantId}/locations`}>
              Locations
            </Link>
          </Empty>
        }
      >
        {(d) => (
          <form
            className="grid gap-3 sm:grid-cols-4 sm:items-end"
            onSubmit={(e) => {
              e.preventDefault();
              void register
                .run({
                  params: { tenant_id: tenantId },
                  idempotencyKey: `${key}-${form.name}`,
                  body: {
                    name: form.name,
                    location_id: Number(form.location_id || d.data[0]?.id),
                    connector_count: Number(form.connector_count),
                  },
                })
                .catch(() => undefined);
            }}
          >
            <TextField
              label="Name"
              hint="Letters, digits, - and _; at most 36"
              value={form.name}
              maxLength={36}
              required
              onChange={(e) => setForm({ ...form, name: e.target.value })}
            />
            <SelectField
              label="Location"
              value={form.location_id}
              onChange={(e) => setForm({ ...form, location_id: e.target.value })}
            >
              {d.data.map((l) => (
                <option key={l.id} value={l.id}>
                  {l.name}
                </option>
              ))}
            </SelectField>
            <TextField
              label="Connectors"
              type="number"
              min={1}
              max={16}
              value={form.connector_count}
              onChange={(e) => setForm({ ...form, connector_count: e.target.value })}
            />
            <div className="flex gap-2">
              <Button type="submit" variant="primary" disabled={register.isPending}>
                Register
              </Button>
              <Button onClick={onDone}>Close</Button>
            </div>
          </form>
        )}
      </QueryState>
      {register.error ? <ErrorBox error={register.error} /> : null}
      {created ? (
        <p className="mt-3 text-sm" data-testid="registered-station">
          Registered <strong>{created.name}</strong>. The charger connects to{" "}
          <code className="break-all">{created.connection_url}</code>.{" "}
          <Link className="underline" href={`/console/t/${tenantId}/stations/${created.id}`}>
            Open it
          </Link>
        </p>
      ) : null}
    </Card>
  );
}
