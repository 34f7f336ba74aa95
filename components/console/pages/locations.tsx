"use client";

import { useQuery } from "@tanstack/react-query";
import { useState } from "react";
import { useProject } from "../context";
import { useV1Mutation } from "../hooks";
import { Pager } from "../pager";
import { newRequestKey, useTRPC } from "../trpc";
import {
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
