"use client";

import { useQuery, useQueryClient } from "@tanstack/react-query";
import Link from "next/link";
import { useState } from "react";
import { useProject } from "../context";
import { ExportCsv, type CsvColumn } from "../csv";
import { STATION_STATES, type StationState } from "../station-states";
import { useV1Mutation, type V1 } from "../hooks";
import { newRequestKey, useTRPC } from "../trpc";
import { WithLocations } from "../with-locations";
import { RegisterMany } from "./stations-bulk";
import {
  Badge,
  Button,
  buttonStyles,
  Card,
  apiError,
  Empty,
  errorMessage,
  Field,
  fieldErrors,
  inputStyles,
  PageHeader,
  QueryState,
  SelectField,
  selectStyles,
  Table,
  td,
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
  const [showMany, setShowMany] = useState(false);

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
            <Link className={buttonStyles.secondary} href={`/console/t/${tenantId}/device-batches`}>
              Firmware &amp; diagnostics for many…
            </Link>
            <Button
              onClick={() => setShowMany((s) => !s)}
              disabledReason={project.denied("stations:write")}
            >
              Register many…
            </Button>
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
      {showMany ? <RegisterMany tenantId={tenantId} onDone={() => setShowMany(false)} /> : null}
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

/** The rules of a station's fields in words, shown before submit and beside a refused field. */
const RULES = {
  name: "Letters, digits, - and _; starts with a letter or digit; at most 36 characters.",
  connector_count: "A whole number from 1 to 16.",
  password:
    "Optional: 16 to 40 characters, printable, no spaces. The charger sends it with HTTP Basic auth; leave it empty to set it later.",
  location_id: "Choose one of the project's locations.",
};
type RegisterKey = keyof typeof RULES;
type RegisterErrors = Partial<Record<RegisterKey, string>>;

/** The form's values checked before sending: each broken rule said beside its field. */
function checkStation(v: { name: string; connector_count: string; password: string }) {
  const errors: RegisterErrors = {};
  if (!/^[A-Za-z0-9][A-Za-z0-9_-]{0,35}$/.test(v.name)) errors.name = `The name: ${RULES.name}`;
  else if (/^p[0-9]+-/i.test(v.name) || /^sbx-/i.test(v.name))
    errors.name = "Names starting with p<digits>- or sbx- are reserved; choose another.";
  if (!/^[0-9]+$/.test(v.connector_count) || +v.connector_count < 1 || +v.connector_count > 16)
    errors.connector_count = `Connectors: ${RULES.connector_count}`;
  if (v.password !== "") {
    if (v.password.length < 16)
      errors.password = `The password has ${v.password.length} characters; it needs 16 to 40.`;
    else if (v.password.length > 40)
      errors.password = `The password has ${v.password.length} characters; it needs 16 to 40.`;
    else if (!/^[\x21-\x7e]+$/.test(v.password))
      errors.password = "The password may hold printable characters only, without spaces.";
  }
  return errors;
}

/** The API's refusal of a registration, beside the field it names, in words. */
function stationRefusal(error: unknown): { fields: RegisterErrors; other: string | null } {
  const fields: RegisterErrors = {};
  for (const f of fieldErrors(error)) {
    const key = f.field.split(/[.[\]]/).filter(Boolean)[0];
    if (key === "name" || key === "connector_count" || key === "location_id")
      fields[key] = RULES[key];
  }
  const api = apiError(error);
  if (api?.code === "location_not_found")
    fields.location_id = "That location is no longer the project's; choose another.";
  if (api?.code === "station_name_taken")
    fields.name = "A station with this name is already registered; choose another name.";
  if (Object.keys(fields).length) return { fields, other: null };
  return { fields, other: errorMessage(error) };
}

function RegisterStation({ tenantId, onDone }: { tenantId: number; onDone: () => void }) {
  const trpc = useTRPC();
  const register = useV1Mutation(trpc.v1.registerStation);
  const credentials = useV1Mutation(trpc.v1.setStationCredentials);
  // one key per filled-in form: a retry after a lost answer replays, the next station gets its own
  const [key, setKey] = useState(newRequestKey);
  const empty = { name: "", location_id: "", connector_count: "2", password: "" };
  const [form, setForm] = useState(empty);
  const [errors, setErrors] = useState<RegisterErrors>({});
  const [other, setOther] = useState<string | null>(null);
  const [created, setCreated] = useState<{
    id: number;
    name: string;
    connection_url: string;
    password: "none" | "set" | "failed";
  } | null>(null);
  const set = (k: keyof typeof form, value: string) => {
    setForm({ ...form, [k]: value });
    if (k in errors) setErrors({ ...errors, [k]: undefined });
  };
  return (
    <Card title="Register a station" testId="register-station">
      <WithLocations tenantId={tenantId}>
        {(locations) => (
          <form
            noValidate
            className="grid gap-3 sm:grid-cols-2 lg:grid-cols-4 sm:items-start"
            onSubmit={(e) => {
              e.preventDefault();
              const found = checkStation(form);
              setErrors(found);
              setOther(null);
              if (Object.keys(found).length) return;
              void (async () => {
                try {
                  const station = await register.run({
                    params: { tenant_id: tenantId },
                    idempotencyKey: `${key}-${form.name}`,
                    body: {
                      name: form.name,
                      location_id: Number(form.location_id || locations[0]?.id),
                      connector_count: Number(form.connector_count),
                    },
                  });
                  let password: "none" | "set" | "failed" = "none";
                  if (form.password) {
                    password = await credentials
                      .run({
                        params: { tenant_id: tenantId, station_id: station.id },
                        body: { password: form.password },
                        idempotencyKey: `${key}-${form.name}-password`,
                      })
                      .then(
                        () => "set" as const,
                        () => "failed" as const,
                      );
                  }
                  setCreated({
                    id: station.id,
                    name: station.name,
                    connection_url: station.connection_url,
                    password,
                  });
                  // cleared for the next station (the location stays, it is usually the same)
                  setForm({ ...empty, location_id: form.location_id });
                  setKey(newRequestKey());
                } catch (error) {
                  const refused = stationRefusal(error);
                  setErrors(refused.fields);
                  setOther(refused.other);
                }
              })();
            }}
          >
            <Field label="Name" hint={RULES.name} error={errors.name}>
              {(a) => (
                <input
                  {...a}
                  className={inputStyles}
                  value={form.name}
                  maxLength={36}
                  autoComplete="off"
                  onChange={(e) => set("name", e.target.value)}
                />
              )}
            </Field>
            <Field label="Location" error={errors.location_id}>
              {(a) => (
                <select
                  {...a}
                  className={selectStyles}
                  value={form.location_id}
                  onChange={(e) => set("location_id", e.target.value)}
                >
                  {locations.map((l) => (
                    <option key={l.id} value={l.id}>
                      {l.name}
                    </option>
                  ))}
                </select>
              )}
            </Field>
            <Field label="Connectors" hint={RULES.connector_count} error={errors.connector_count}>
              {(a) => (
                <input
                  {...a}
                  className={inputStyles}
                  type="number"
                  min={1}
                  max={16}
                  value={form.connector_count}
                  onChange={(e) => set("connector_count", e.target.value)}
                />
              )}
            </Field>
            <Field label="Password (optional)" hint={RULES.password} error={errors.password}>
              {(a) => (
                <input
                  {...a}
                  className={inputStyles}
                  type="password"
                  autoComplete="new-password"
                  value={form.password}
                  onChange={(e) => set("password", e.target.value)}
                />
              )}
            </Field>
            <div className="flex gap-2 sm:col-span-2 lg:col-span-4">
              <Button
                type="submit"
                variant="primary"
                disabled={register.isPending || credentials.isPending}
              >
                Register
              </Button>
              <Button onClick={onDone}>Close</Button>
            </div>
          </form>
        )}
      </WithLocations>
      {other ? (
        <p role="alert" className="mt-3 text-sm text-red-700 dark:text-red-300">
          {other}
        </p>
      ) : null}
      {created ? <Registered tenantId={tenantId} created={created} /> : null}
    </Card>
  );
}

function Registered({
  tenantId,
  created,
}: {
  tenantId: number;
  created: {
    id: number;
    name: string;
    connection_url: string;
    password: "none" | "set" | "failed";
  };
}) {
  const [copied, setCopied] = useState(false);
  return (
    <div role="status" className="mt-4 text-sm" data-testid="registered-station">
      <p>
        Registered <strong>{created.name}</strong>.{" "}
        {created.password === "set"
          ? "Its password is stored for its first connection."
          : created.password === "failed"
            ? "Its password was not stored: set it on the station's page, under Credentials."
            : "Give it a password on its page, under Credentials, before it connects."}{" "}
        <Link className="underline" href={`/console/t/${tenantId}/stations/${created.id}`}>
          Open {created.name}
        </Link>
      </p>
      <p className="mt-2">The charger connects to:</p>
      <div className="mt-1 flex flex-wrap items-center gap-2">
        <code
          data-testid="connection-url"
          className="rounded bg-slate-100 px-2 py-1 break-all dark:bg-slate-800"
        >
          {created.connection_url}
        </code>
        <Button
          onClick={() => {
            void navigator.clipboard?.writeText(created.connection_url).then(
              () => setCopied(true),
              () => setCopied(false),
            );
          }}
        >
          {copied ? "Copied" : "Copy URL"}
        </Button>
      </div>
    </div>
  );
}
