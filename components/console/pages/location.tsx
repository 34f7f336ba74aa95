"use client";

import { useQuery } from "@tanstack/react-query";
import Link from "next/link";
import { useRouter } from "next/navigation";
import { useState } from "react";
import { ConfirmButton } from "../confirm-button";
import { useProject } from "../context";
import { useV1Mutation, type V1 } from "../hooks";
import { paths } from "../links";
import { LocationForm, valuesOf } from "../location-form";
import { LocationPowerLimit } from "./location-power";
import { countryName, inZone, tileAt } from "../location-places";
import { newRequestKey, useTRPC } from "../trpc";
import { apiError, Badge, Button, Card, Empty, PageHeader, QueryState, Table, td } from "../ui";

type Station = V1["listStations"]["data"][number];
type Location = V1["getLocation"];
export type MapTiles = { url: string; attribution: string | null } | null;

/** A station's state by the overview's rule: faulted, charging, online or offline. */
function stateOf(s: Station): "faulted" | "charging" | "online" | "offline" {
  if (s.open_faults.length > 0 || s.connectors.some((c) => c.status === "Faulted"))
    return "faulted";
  if (s.connectors.some((c) => c.status === "Charging")) return "charging";
  return s.online ? "online" : "offline";
}

/**
 * One location: its address, coordinates and time zone, its dates in that zone, a map tile when
 * MAP_TILE_URL is set, its power limit with each session's share (`location-power.tsx`), and its
 * stations with their live states (read every 2 s); edit, and delete
 * behind a confirmation (the API refuses while stations stand there: 409 location_has_stations).
 */
export function LocationPage({
  tenantId,
  locationId,
  mapTiles,
}: {
  tenantId: number;
  locationId: number;
  mapTiles: MapTiles;
}) {
  const trpc = useTRPC();
  const project = useProject(tenantId);
  const router = useRouter();
  const location = useQuery(
    trpc.v1.getLocation.queryOptions(
      { params: { tenant_id: tenantId, location_id: locationId } },
      { retry: (n, e) => n < 2 && apiError(e)?.code !== "not_found" },
    ),
  );
  const stations = useQuery(
    trpc.v1.listStations.queryOptions(
      { params: { tenant_id: tenantId }, query: { location_id: locationId, limit: 100 } },
      { refetchInterval: 2_000 },
    ),
  );
  const update = useV1Mutation(trpc.v1.updateLocation);
  const remove = useV1Mutation(trpc.v1.deleteLocation);
  const [editing, setEditing] = useState(false);
  const count = stations.data?.data.length ?? 0;
  const writeDenied = project.denied("stations:write");

  return (
    <QueryState query={location}>
      {(l) => (
        <>
          <PageHeader title={l.name} description="A site where stations stand." />
          <p className="mb-4 text-sm">
            <Link
              href={`/console/t/${tenantId}/locations`}
              className="text-teal-800 underline dark:text-teal-300"
            >
              All locations
            </Link>
          </p>
          <div className="grid gap-4 lg:grid-cols-2">
            <Card title="Details">
              {editing ? (
                <LocationForm
                  initial={valuesOf(l)}
                  submitLabel="Save changes"
                  onCancel={() => setEditing(false)}
                  disabledReason={writeDenied}
                  onSubmit={async (body) => {
                    await update.run({
                      params: { tenant_id: tenantId, location_id: locationId },
                      idempotencyKey: newRequestKey(),
                      body,
                    });
                    setEditing(false);
                  }}
                />
              ) : (
                <LocationDetails location={l} />
              )}
              {editing ? null : (
                <div className="mt-4 flex flex-wrap gap-2">
                  <Button onClick={() => setEditing(true)} disabledReason={writeDenied}>
                    Edit location
                  </Button>
                  <ConfirmButton
                    label="Delete location"
                    title={`Delete ${l.name}?`}
                    confirmLabel="Delete location"
                    testId="delete-location"
                    disabledReason={
                      writeDenied ??
                      (count > 0
                        ? `${count === 1 ? "A station stands" : `${count} stations stand`} here: move or delete ${count === 1 ? "it" : "them"} first.`
                        : null)
                    }
                    run={async (key) => {
                      await remove.run({
                        params: { tenant_id: tenantId, location_id: locationId },
                        idempotencyKey: key,
                      });
                      router.push(`/console/t/${tenantId}/locations`);
                    }}
                  >
                    The location {l.name} and its address are removed for good; this cannot be
                    undone. A location with stations is not deleted.
                  </ConfirmButton>
                </div>
              )}
              {count > 0 && !editing ? (
                <p
                  className="mt-2 text-xs text-slate-600 dark:text-slate-400"
                  data-testid="delete-reason"
                >
                  It cannot be deleted while stations stand here: move or delete them first.
                </p>
              ) : null}
            </Card>
            <Card title="Map">
              <LocationMap location={l} tiles={mapTiles} />
            </Card>
          </div>
          <div className="mt-4">
            <LocationPowerLimit
              tenantId={tenantId}
              locationId={locationId}
              locationName={l.name}
              timeZone={l.time_zone}
              stations={stations.data?.data ?? []}
            />
          </div>
          <div className="mt-4">
            <Card title="Stations here">
              <QueryState
                query={stations}
                isEmpty={(d) => d.data.length === 0}
                empty={<Empty title="No station stands here yet" />}
              >
                {(d) => (
                  <Table
                    head={["Station", "State", "Connectors", "Open faults"]}
                    label="Stations here"
                  >
                    {d.data.map((s) => (
                      <tr key={s.id} data-testid="location-station-row">
                        <td className={`${td} break-words`}>
                          <Link
                            href={paths.station(tenantId, s.id)}
                            className="break-words text-teal-800 underline dark:text-teal-300"
                            data-testid="station-link"
                          >
                            {s.name}
                          </Link>
                        </td>
                        <td className={td}>
                          <Badge value={stateOf(s)} testId="station-state" />
                        </td>
                        <td className={td}>
                          <span className="flex flex-wrap gap-1">
                            {s.connectors.map((c) => (
                              <Badge key={c.id} value={c.status ?? "unknown"} />
                            ))}
                          </span>
                        </td>
                        <td className={td}>{s.open_faults.length}</td>
                      </tr>
                    ))}
                  </Table>
                )}
              </QueryState>
            </Card>
          </div>
        </>
      )}
    </QueryState>
  );
}

function LocationDetails({ location: l }: { location: Location }) {
  const row = (term: string, value: string, testId?: string) => (
    <div className="grid gap-1 sm:grid-cols-3">
      <dt className="font-medium">{term}</dt>
      <dd className="break-words sm:col-span-2" data-testid={testId}>
        {value}
      </dd>
    </div>
  );
  return (
    <dl className="grid gap-2 text-sm">
      {row(
        "Address",
        [l.address.street, l.address.postal_code, l.address.city].filter(Boolean).join(", "),
        "location-address",
      )}
      {row("Country", countryName(l.address.country), "location-country")}
      {row("Time zone", l.time_zone, "location-time-zone")}
      {row(
        "Coordinates",
        `${l.coordinates.latitude.toFixed(5)}, ${l.coordinates.longitude.toFixed(5)}`,
      )}
      {l.external_reference ? row("External reference", l.external_reference) : null}
      {row("Created", inZone(l.created_at, l.time_zone), "location-created")}
      {row("Last changed", inZone(l.updated_at, l.time_zone), "location-updated")}
    </dl>
  );
}

function LocationMap({ location: l, tiles }: { location: Location; tiles: MapTiles }) {
  if (!tiles)
    return (
      <p className="text-sm text-slate-600 dark:text-slate-400" data-testid="no-map">
        No map is configured (an administrator sets <code>MAP_TILE_URL</code>). The coordinates are{" "}
        {l.coordinates.latitude.toFixed(5)}, {l.coordinates.longitude.toFixed(5)}.
      </p>
    );
  const t = tileAt(tiles.url, l.coordinates.latitude, l.coordinates.longitude);
  return (
    <figure data-testid="location-map">
      <div className="relative mx-auto aspect-square w-full max-w-64 overflow-hidden rounded border border-slate-200 dark:border-slate-800">
        <img
          src={t.url}
          alt={`Map around ${l.name}`}
          width={256}
          height={256}
          className="h-full w-full"
        />
        <span
          aria-hidden="true"
          className="absolute h-3 w-3 -translate-x-1/2 -translate-y-1/2 rounded-full border-2 border-white bg-red-600"
          style={{ left: `${t.left * 100}%`, top: `${t.top * 100}%` }}
        />
      </div>
      <figcaption className="mt-1 text-xs text-slate-600 dark:text-slate-400">
        {tiles.attribution ?? "Map tiles from the configured tile server."}
      </figcaption>
    </figure>
  );
}
