"use client";

import { useQuery } from "@tanstack/react-query";
import { useState } from "react";
import { PROJECT_SCOPES, type Scope } from "@/server/keys/scopes";
import { API_VERSIONS, type ApiVersion } from "@/server/versions";
import { EVENT_TYPES } from "@/server/webhooks/webhook-schema";
import { useProject } from "../context";
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
  SecretOnce,
  SelectField,
  oneOf,
  Table,
  td,
  TextField,
  when,
} from "../ui";
import { TransactionRows } from "./station";

function Pager({
  page,
  cursors,
  setCursors,
}: {
  page: { next_cursor: number | string | null; has_more: boolean };
  cursors: number[];
  setCursors: (c: number[]) => void;
}) {
  return (
    <div className="mt-3 flex gap-2">
      <Button disabled={cursors.length === 1} onClick={() => setCursors(cursors.slice(0, -1))}>
        Previous
      </Button>
      <Button
        disabled={!page.has_more || page.next_cursor === null}
        onClick={() => setCursors([...cursors, Number(page.next_cursor)])}
      >
        Next
      </Button>
    </div>
  );
}

export function LocationsPage({ tenantId }: { tenantId: number }) {
  const trpc = useTRPC();
  const project = useProject(tenantId);
  const [cursors, setCursors] = useState([0]);
  const locations = useQuery(
    trpc.v1.listLocations.queryOptions({
      params: { tenant_id: tenantId },
      query: { after: cursors[cursors.length - 1], limit: 20 },
    }),
  );
  const create = useV1Mutation(trpc.v1.createLocation);
  const [form, setForm] = useState({
    name: "",
    street: "",
    city: "",
    country: "US",
    latitude: "0",
    longitude: "0",
    time_zone: "UTC",
  });
  const set = (k: keyof typeof form) => (e: React.ChangeEvent<HTMLInputElement>) =>
    setForm({ ...form, [k]: e.target.value });
  return (
    <>
      <PageHeader title="Locations" description="Sites where stations stand." />
      <Card title="New location">
        <form
          className="grid gap-3 sm:grid-cols-4 sm:items-end"
          onSubmit={(e) => {
            e.preventDefault();
            void create
              .run({
                params: { tenant_id: tenantId },
                idempotencyKey: newRequestKey(),
                body: {
                  name: form.name,
                  address: { street: form.street, city: form.city, country: form.country },
                  coordinates: {
                    latitude: Number(form.latitude),
                    longitude: Number(form.longitude),
                  },
                  time_zone: form.time_zone,
                },
              })
              .then(
                () => setForm({ ...form, name: "" }),
                () => undefined,
              );
          }}
        >
          <TextField label="Name" value={form.name} onChange={set("name")} required />
          <TextField label="Street" value={form.street} onChange={set("street")} required />
          <TextField label="City" value={form.city} onChange={set("city")} required />
          <TextField
            label="Country (ISO code)"
            value={form.country}
            onChange={set("country")}
            required
            maxLength={2}
          />
          <TextField
            label="Latitude"
            type="number"
            step="any"
            value={form.latitude}
            onChange={set("latitude")}
          />
          <TextField
            label="Longitude"
            type="number"
            step="any"
            value={form.longitude}
            onChange={set("longitude")}
          />
          <TextField label="Time zone" value={form.time_zone} onChange={set("time_zone")} />
          <Button
            type="submit"
            variant="primary"
            disabledReason={project.denied("stations:write")}
            disabled={create.isPending}
          >
            Create location
          </Button>
        </form>
        {create.error ? <ErrorBox error={create.error} /> : null}
      </Card>
      <QueryState
        query={locations}
        isEmpty={(d) => d.data.length === 0}
        empty={<Empty title="No locations yet" />}
      >
        {(d) => (
          <>
            <Table head={["Name", "Address", "Time zone", "Created"]}>
              {d.data.map((l) => (
                <tr key={l.id} data-testid="location-row">
                  <td className={td}>{l.name}</td>
                  <td className={td}>
                    {[l.address.street, l.address.city, l.address.country]
                      .filter(Boolean)
                      .join(", ")}
                  </td>
                  <td className={td}>{l.time_zone}</td>
                  <td className={td}>{when(l.created_at)}</td>
                </tr>
              ))}
            </Table>
            <Pager page={d} cursors={cursors} setCursors={setCursors} />
          </>
        )}
      </QueryState>
    </>
  );
}

export function TransactionsPage({ tenantId }: { tenantId: number }) {
  const trpc = useTRPC();
  const [cursors, setCursors] = useState([0]);
  const [status, setStatus] = useState<"" | "active" | "ended">("");
  const transactions = useQuery(
    trpc.v1.listTransactions.queryOptions(
      {
        params: { tenant_id: tenantId },
        query: {
          after: cursors[cursors.length - 1],
          order: "desc",
          limit: 25,
          ...(status ? { status } : {}),
        },
      },
      { refetchInterval: 5_000 },
    ),
  );
  return (
    <>
      <PageHeader
        title="Transactions"
        description="Charging sessions reported by chargers, newest first."
      />
      <div className="mb-4 max-w-xs">
        <SelectField
          label="Status"
          value={status}
          onChange={(e) => {
            setStatus(oneOf(["", "active", "ended"], e.target.value, ""));
            setCursors([0]);
          }}
        >
          <option value="">All</option>
          <option value="active">Active</option>
          <option value="ended">Ended</option>
        </SelectField>
      </div>
      <QueryState
        query={transactions}
        isEmpty={(d) => d.data.length === 0}
        empty={<Empty title="No transactions yet" />}
      >
        {(d) => (
          <>
            <TransactionRows rows={d.data} />
            <Pager page={d} cursors={cursors} setCursors={setCursors} />
          </>
        )}
      </QueryState>
    </>
  );
}

export function EventsPage({ tenantId }: { tenantId: number }) {
  const trpc = useTRPC();
  const [type, setType] = useState("");
  const [station, setStation] = useState("");
  const [filters, setFilters] = useState<{ type?: string; station_id?: number }>({});
  const [cursors, setCursors] = useState([0]);
  const events = useQuery(
    trpc.v1.listEvents.queryOptions(
      {
        params: { tenant_id: tenantId },
        query: { after: cursors[cursors.length - 1], limit: 25, ...filters },
      },
      { refetchInterval: 5_000 },
    ),
  );
  return (
    <>
      <PageHeader
        title="Event log"
        description="Everything that happened in this project, in order."
      />
      <form
        className="mb-4 flex flex-wrap items-end gap-3"
        onSubmit={(e) => {
          e.preventDefault();
          setFilters({
            ...(type.trim() ? { type: type.trim() } : {}),
            ...(station.trim() ? { station_id: Number(station) } : {}),
          });
          setCursors([0]);
        }}
      >
        <TextField
          label="Types"
          placeholder="connector.status_changed,station.connected"
          list="event-types"
          value={type}
          onChange={(e) => setType(e.target.value)}
        />
        <datalist id="event-types">
          {Object.keys(EVENT_TYPES).map((t) => (
            <option key={t} value={t} />
          ))}
        </datalist>
        <TextField
          label="Station ID"
          inputMode="numeric"
          value={station}
          onChange={(e) => setStation(e.target.value)}
        />
        <Button type="submit">Filter</Button>
      </form>
      <QueryState
        query={events}
        isEmpty={(d) => d.data.length === 0}
        empty={<Empty title="No events match" />}
      >
        {(d) => (
          <>
            <Table head={["#", "Type", "Station", "When", "Data"]}>
              {d.data.map((ev) => (
                <tr key={ev.id} data-testid="event-row">
                  <td className={td}>{ev.sequence}</td>
                  <td className={td}>{ev.type}</td>
                  <td className={td}>{ev.station_id ?? ""}</td>
                  <td className={td}>{when(ev.created_at)}</td>
                  <td className={`${td} max-w-md text-xs`}>
                    <code className="break-all">{JSON.stringify(ev.data)}</code>
                  </td>
                </tr>
              ))}
            </Table>
            <Pager page={d} cursors={cursors} setCursors={setCursors} />
          </>
        )}
      </QueryState>
    </>
  );
}

export function ApiKeysPage({ tenantId }: { tenantId: number }) {
  const trpc = useTRPC();
  const project = useProject(tenantId);
  const manages = project.may.manage_project_keys;
  const keys = useQuery(
    trpc.v1.listProjectApiKeys.queryOptions(
      { params: { tenant_id: tenantId } },
      { enabled: manages },
    ),
  );
  const create = useV1Mutation(trpc.v1.createProjectApiKey);
  const revoke = useV1Mutation(trpc.v1.revokeProjectApiKey);
  const [name, setName] = useState("");
  const [scopes, setScopes] = useState<Scope[]>(["stations:read"]);
  const [version, setVersion] = useState<ApiVersion | "">("");
  const [confirming, setConfirming] = useState<string | null>(null);
  if (!project.loading && !manages) {
    return (
      <>
        <PageHeader title="API keys" />
        <Empty title="Only owners, admins and developers manage API keys">
          Your role: {project.who}.
        </Empty>
      </>
    );
  }
  return (
    <>
      <PageHeader
        title="API keys"
        description="Keys for your backend. Each acts for the person who made it, within their role."
      />
      <Card title="New key">
        <form
          onSubmit={(e) => {
            e.preventDefault();
            void create
              .run({
                params: { tenant_id: tenantId },
                body: {
                  name: name || undefined,
                  scopes,
                  ...(version ? { api_version: version } : {}),
                },
              })
              .then(
                () => setName(""),
                () => undefined,
              );
          }}
        >
          <TextField
            label="Name"
            value={name}
            onChange={(e) => setName(e.target.value)}
            maxLength={100}
          />
          <fieldset className="mt-3">
            <legend className="text-sm font-medium">Scopes</legend>
            <div className="mt-1 grid gap-1 sm:grid-cols-3">
              {PROJECT_SCOPES.map((s) => (
                <label key={s} className="flex items-center gap-2 text-sm">
                  <input
                    type="checkbox"
                    checked={scopes.includes(s)}
                    disabled={!project.can(s)}
                    onChange={(e) =>
                      setScopes(e.target.checked ? [...scopes, s] : scopes.filter((x) => x !== s))
                    }
                  />
                  <span className={project.can(s) ? "" : "text-slate-400"}>{s}</span>
                </label>
              ))}
            </div>
          </fieldset>
          <div className="mt-3 max-w-xs">
            <SelectField
              label="API version"
              value={version}
              onChange={(e) => setVersion(oneOf(["", ...API_VERSIONS], e.target.value, ""))}
            >
              <option value="">Latest ({API_VERSIONS[0]}), moving with new releases</option>
              {API_VERSIONS.map((v) => (
                <option key={v} value={v}>
                  Pinned to {v}
                </option>
              ))}
            </SelectField>
          </div>
          <Button
            type="submit"
            variant="primary"
            className="mt-3"
            disabled={create.isPending || scopes.length === 0}
          >
            Create key
          </Button>
        </form>
        {create.error ? <ErrorBox error={create.error} /> : null}
        {create.data?.secret ? (
          <div className="mt-3">
            <SecretOnce
              label={`Secret of ${create.data.name ?? create.data.id}`}
              secret={create.data.secret}
            />
          </div>
        ) : null}
      </Card>
      <QueryState
        query={keys}
        isEmpty={(d) => d.data.length === 0}
        empty={<Empty title="No keys yet" />}
      >
        {(d) => (
          <Table head={["Key", "Scopes", "Owner", "Version", "Created", ""]}>
            {d.data.map((k) => (
              <tr key={k.id} data-testid="api-key-row">
                <td className={td}>
                  {k.name ?? "(unnamed)"}
                  <code className="block text-xs text-slate-500">{k.prefix}…</code>
                </td>
                <td className={`${td} text-xs`}>{k.scopes.join(", ")}</td>
                <td className={td}>{k.owner?.email ?? "—"}</td>
                <td className={td}>{k.api_version}</td>
                <td className={td}>{when(k.created_at)}</td>
                <td className={td}>
                  {k.revoked_at ? (
                    <Badge value="revoked" />
                  ) : confirming === k.id ? (
                    <span className="flex flex-wrap gap-2">
                      <Button
                        variant="danger"
                        onClick={() =>
                          void revoke.run({ params: { tenant_id: tenantId, key_id: k.id } }).then(
                            () => setConfirming(null),
                            () => undefined,
                          )
                        }
                      >
                        Revoke now
                      </Button>
                      <Button onClick={() => setConfirming(null)}>Keep it</Button>
                    </span>
                  ) : (
                    <Button
                      onClick={() => setConfirming(k.id)}
                      aria-label={`Revoke ${k.name ?? k.prefix}`}
                    >
                      Revoke…
                    </Button>
                  )}
                </td>
              </tr>
            ))}
          </Table>
        )}
      </QueryState>
      {revoke.error ? <ErrorBox error={revoke.error} /> : null}
    </>
  );
}

export function SettingsPage({ tenantId }: { tenantId: number }) {
  const trpc = useTRPC();
  const tenant = useQuery(trpc.v1.getTenant.queryOptions({ params: { tenant_id: tenantId } }));
  return (
    <>
      <PageHeader title="Project settings" />
      <QueryState query={tenant}>{(t) => <SettingsForm key={t.id} tenant={t} />}</QueryState>
    </>
  );
}

function SettingsForm({ tenant }: { tenant: V1["getTenant"] }) {
  const trpc = useTRPC();
  const project = useProject(tenant.id);
  const update = useV1Mutation(trpc.v1.updateTenant);
  const [name, setName] = useState(tenant.name);
  const [mode, setMode] = useState(tenant.authorization_mode);
  const manages = project.may.manage_team;
  return (
    <Card>
      <form
        className="grid max-w-md gap-3"
        onSubmit={(e) => {
          e.preventDefault();
          void update
            .run({ params: { tenant_id: tenant.id }, body: { name, authorization_mode: mode } })
            .catch(() => undefined);
        }}
      >
        <TextField
          label="Name"
          value={name}
          onChange={(e) => setName(e.target.value)}
          required
          maxLength={100}
        />
        <SelectField
          label="Charger Authorize requests"
          value={mode}
          onChange={(e) =>
            setMode(oneOf(["accept_all", "known_tokens"], e.target.value, "accept_all"))
          }
        >
          <option value="accept_all">Accept every token</option>
          <option value="known_tokens">Accept only tokens this service issued</option>
        </SelectField>
        <div>
          <Button
            type="submit"
            variant="primary"
            disabledReason={manages ? null : "Only owners and admins change projects."}
          >
            Save
          </Button>
        </div>
        {update.error ? <ErrorBox error={update.error} /> : null}
        {update.isSuccess ? <p className="text-sm text-emerald-700">Saved.</p> : null}
      </form>
    </Card>
  );
}
