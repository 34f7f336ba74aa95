"use client";

import { useQuery, useQueryClient } from "@tanstack/react-query";
import Link from "next/link";
import { useState } from "react";
import { useProject } from "../context";
import { ExportCsv, type CsvColumn } from "../csv";
import { useV1Mutation, type V1 } from "../hooks";
import { paths } from "../links";
import { emptyLocation, LocationForm } from "../location-form";
import { countryName, inZone } from "../location-places";
import { Pager } from "../pager";
import { newRequestKey, useTRPC } from "../trpc";
import { Card, Empty, PageHeader, QueryState, Table, td } from "../ui";

type Location = V1["listLocations"]["data"][number];

const address = (l: Location) =>
  [l.address.street, l.address.city, countryName(l.address.country)].filter(Boolean).join(", ");

/** The table's columns for its CSV export. */
const locationColumns: CsvColumn<Location>[] = [
  { header: "ID", value: (l) => l.id },
  { header: "Name", value: (l) => l.name },
  { header: "Address", value: (l) => address(l) },
  { header: "Time zone", value: (l) => l.time_zone },
  { header: "Created (local time)", value: (l) => inZone(l.created_at, l.time_zone) },
];

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
  const client = useQueryClient();
  const create = useV1Mutation(trpc.v1.createLocation);
  const [created, setCreated] = useState<{ id: number; name: string } | null>(null);
  return (
    <>
      <PageHeader
        title="Locations"
        description="Sites where stations stand."
        actions={
          <ExportCsv
            filename={`locations-${tenantId}.csv`}
            columns={locationColumns}
            load={(after: number | undefined) =>
              client.fetchQuery(
                trpc.v1.listLocations.queryOptions({
                  params: { tenant_id: tenantId },
                  query: { after: after ?? 0, limit: 100 },
                }),
              )
            }
          />
        }
      />
      <Card title="New location">
        <LocationForm
          initial={emptyLocation}
          submitLabel="Create location"
          resetAfter
          disabledReason={project.denied("stations:write")}
          onSubmit={async (body) => {
            setCreated(null);
            const made = await create.run({
              params: { tenant_id: tenantId },
              idempotencyKey: newRequestKey(),
              body,
            });
            setCreated({ id: made.id, name: made.name });
          }}
        />
        {created ? (
          <p role="status" className="mt-3 text-sm">
            Created{" "}
            <Link
              href={paths.location(tenantId, created.id)}
              className="text-teal-800 underline dark:text-teal-300"
            >
              {created.name}
            </Link>
            .
          </p>
        ) : null}
      </Card>
      <QueryState
        query={locations}
        isEmpty={(d) => d.data.length === 0}
        empty={<Empty title="No locations yet" />}
      >
        {(d) => (
          <>
            <Table head={["Name", "Address", "Time zone", "Created (local time)"]}>
              {d.data.map((l) => (
                <tr key={l.id} data-testid="location-row">
                  <td className={td}>
                    <Link
                      href={paths.location(tenantId, l.id)}
                      className="break-words text-teal-800 underline dark:text-teal-300"
                      data-testid="location-link"
                    >
                      {l.name}
                    </Link>
                  </td>
                  <td className={`${td} break-words`}>{address(l)}</td>
                  <td className={`${td} break-words`}>{l.time_zone}</td>
                  <td className={td}>{inZone(l.created_at, l.time_zone)}</td>
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
