"use client";

import { useQuery } from "@tanstack/react-query";
import Link from "next/link";
import type { ReactNode } from "react";
import type { V1 } from "./hooks";
import { useTRPC } from "./trpc";
import { Empty, QueryState } from "./ui";

/**
 * The project's locations (up to 100) for a form that registers stations at one of them; while
 * there is none, a pointer to create one first instead of the form.
 */
export function WithLocations({
  tenantId,
  children,
}: {
  tenantId: number;
  children: (locations: V1["listLocations"]["data"]) => ReactNode;
}) {
  const trpc = useTRPC();
  const locations = useQuery(
    trpc.v1.listLocations.queryOptions({ params: { tenant_id: tenantId }, query: { limit: 100 } }),
  );
  return (
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
      {(d) => children(d.data)}
    </QueryState>
  );
}
