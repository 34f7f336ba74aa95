"use client";

import { useQuery } from "@tanstack/react-query";
import Link from "next/link";
import type { ReactNode } from "react";
import type { V1 } from "../hooks";
import { useTRPC } from "../trpc";
import { Badge, PageHeader, QueryState } from "../ui";

const TABS = [
  { id: "overview", label: "Overview", title: "Overview", path: "" },
  { id: "configuration", label: "Configuration", title: "Configuration", path: "/configuration" },
  {
    id: "charging-profiles",
    label: "Profiles",
    title: "Charging profiles",
    path: "/charging-profiles",
  },
  {
    id: "device",
    label: "Firmware & diagnostics",
    title: "Firmware & diagnostics",
    path: "/device",
  },
  {
    id: "reservations",
    label: "Reservations & local list",
    title: "Reservations & local list",
    path: "/reservations",
  },
] as const;

/**
 * The station page's tabs: each one a page of its own, so a tab can be linked to. They wrap onto
 * a second line rather than widen the page at a phone's width.
 */
export function StationTabs({
  tenantId,
  stationId,
  current,
}: {
  tenantId: number;
  stationId: number;
  current: (typeof TABS)[number]["id"];
}) {
  return (
    <nav
      aria-label="Station"
      className="mb-4 flex flex-wrap gap-x-1 border-b border-slate-200 dark:border-slate-800"
    >
      {TABS.map((tab) => (
        <Link
          key={tab.id}
          href={`/console/t/${tenantId}/stations/${stationId}${tab.path}`}
          aria-current={tab.id === current ? "page" : undefined}
          data-testid={`station-tab-${tab.id}`}
          className={`-mb-px border-b-2 px-3 py-2 text-sm ${
            tab.id === current
              ? "border-teal-700 font-semibold text-teal-800 dark:text-teal-300"
              : "border-transparent text-slate-600 hover:text-slate-900 dark:text-slate-400"
          }`}
        >
          {tab.label}
        </Link>
      ))}
    </nav>
  );
}

const LIVE_MS = 2_000;

/**
 * A station tab's page frame: the station read live, its name as the title, the breadcrumb
 * (Stations / the station, linked / the tab), its connection badge and the tabs; the tab's own
 * content is `children(station)`.
 */
export function StationTabFrame({
  tenantId,
  stationId,
  current,
  children,
}: {
  tenantId: number;
  stationId: number;
  current: (typeof TABS)[number]["id"];
  children: (station: V1["getStation"]) => ReactNode;
}) {
  const trpc = useTRPC();
  const station = useQuery(
    trpc.v1.getStation.queryOptions(
      { params: { tenant_id: tenantId, station_id: stationId } },
      { refetchInterval: LIVE_MS },
    ),
  );
  const tab = TABS.find((t) => t.id === current)!;
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
                /{" "}
                <Link className="underline" href={`/console/t/${tenantId}/stations/${s.id}`}>
                  {s.name}
                </Link>{" "}
                / {tab.title}
              </>
            }
            actions={<Badge testId="station-connection" value={s.online ? "online" : "offline"} />}
          />
          <StationTabs tenantId={tenantId} stationId={stationId} current={current} />
          {children(s)}
        </>
      )}
    </QueryState>
  );
}
