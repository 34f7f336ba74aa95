"use client";

import { useQuery, useQueryClient } from "@tanstack/react-query";
import Link from "next/link";
import type { ReactNode } from "react";
import { useTRPC } from "./trpc";

/**
 * Links between the console's objects, named as people know them: a station by its name, a tariff
 * by its name and version, a transaction, session, bill or payment by its id. Names are read with
 * the object's own /v1 read (cached a minute, one request per object however many rows name it);
 * without access to it, or before it answers, the link says "Station 12".
 */
/**
 * At least 24 px tall (a tap target); a name wraps between words (hyphenated where the language
 * allows), an id anywhere.
 */
const linkStyle = "inline-block min-h-6 text-teal-800 underline dark:text-teal-300";
const wraps = { name: "break-words hyphens-auto", id: "break-all" };
const NAME_STALE_MS = 60_000;

export const paths = {
  location: (tenantId: number, id: number) => `/console/t/${tenantId}/locations/${id}`,
  station: (tenantId: number, id: number) => `/console/t/${tenantId}/stations/${id}`,
  tariff: (tenantId: number, id: number) => `/console/t/${tenantId}/tariffs#tariff-${id}`,
  transaction: (tenantId: number, id: number) => `/console/t/${tenantId}/transactions/${id}`,
  session: (tenantId: number, id: string) => `/console/t/${tenantId}/sessions/${id}`,
  bill: (tenantId: number, id: string) => `/console/t/${tenantId}/bills/${id}`,
  /** a payment is shown on its bill's page */
  payment: (tenantId: number, billId: string) => `/console/t/${tenantId}/bills/${billId}#payment`,
};

function A({
  href,
  testId,
  wrap = "id",
  children,
}: {
  href: string;
  testId?: string;
  wrap?: keyof typeof wraps;
  children: ReactNode;
}) {
  return (
    <Link href={href} className={`${linkStyle} ${wraps[wrap]}`} data-testid={testId}>
      {children}
    </Link>
  );
}

/**
 * The time zone of a station's location (its dates are shown in it), through the same cached reads
 * as the links; undefined while loading, without a location or without access (the browser's zone
 * is used then).
 */
export function useStationZone(tenantId: number, stationId: number | null | undefined) {
  const trpc = useTRPC();
  const station = useQuery(
    trpc.v1.getStation.queryOptions(
      { params: { tenant_id: tenantId, station_id: stationId ?? 0 } },
      { staleTime: NAME_STALE_MS, retry: false, enabled: !!stationId },
    ),
  );
  const locationId = station.data?.location_id ?? null;
  const location = useQuery(
    trpc.v1.getLocation.queryOptions(
      { params: { tenant_id: tenantId, location_id: locationId ?? 0 } },
      { staleTime: NAME_STALE_MS, retry: false, enabled: locationId !== null },
    ),
  );
  return location.data?.time_zone;
}

export function StationLink({ tenantId, stationId }: { tenantId: number; stationId: number }) {
  const trpc = useTRPC();
  const station = useQuery(
    trpc.v1.getStation.queryOptions(
      { params: { tenant_id: tenantId, station_id: stationId } },
      { staleTime: NAME_STALE_MS, retry: false },
    ),
  );
  return (
    <A href={paths.station(tenantId, stationId)} testId="station-link" wrap="name">
      {station.data?.name ?? `Station ${stationId}`}
    </A>
  );
}

/**
 * The names the links show, for a CSV export: read through the same cached queries as the links
 * (one request per object), the same words ("Station 12" without access).
 */
export function useNames(tenantId: number) {
  const trpc = useTRPC();
  const client = useQueryClient();
  return {
    station: (stationId: number) =>
      client
        .fetchQuery(
          trpc.v1.getStation.queryOptions(
            { params: { tenant_id: tenantId, station_id: stationId } },
            { staleTime: NAME_STALE_MS, retry: false },
          ),
        )
        .then(
          (s) => s.name,
          () => `Station ${stationId}`,
        ),
    tariff: (tariffId: number, version?: number) =>
      client
        .fetchQuery(
          trpc.v1.getTariff.queryOptions(
            { params: { tenant_id: tenantId, tariff_id: tariffId } },
            { staleTime: NAME_STALE_MS, retry: false },
          ),
        )
        .then(
          (t) => t.name || `Tariff ${tariffId} (unnamed)`,
          () => `Tariff ${tariffId}`,
        )
        .then((name) => (version === undefined ? name : `${name}, version ${version}`)),
  };
}

export function LocationLink({ tenantId, locationId }: { tenantId: number; locationId: number }) {
  const trpc = useTRPC();
  const location = useQuery(
    trpc.v1.getLocation.queryOptions(
      { params: { tenant_id: tenantId, location_id: locationId } },
      { staleTime: NAME_STALE_MS, retry: false },
    ),
  );
  return (
    <A href={paths.location(tenantId, locationId)} testId="location-link" wrap="name">
      {location.data?.name ?? `Location ${locationId}`}
    </A>
  );
}

export function TariffLink({
  tenantId,
  tariffId,
  version,
}: {
  tenantId: number;
  tariffId: number;
  /** the version a bill or session fixed */
  version?: number;
}) {
  const trpc = useTRPC();
  const tariff = useQuery(
    trpc.v1.getTariff.queryOptions(
      { params: { tenant_id: tenantId, tariff_id: tariffId } },
      { staleTime: NAME_STALE_MS, retry: false },
    ),
  );
  const name = tariff.data
    ? tariff.data.name || `Tariff ${tariffId} (unnamed)`
    : `Tariff ${tariffId}`;
  return (
    <A href={paths.tariff(tenantId, tariffId)} testId="tariff-link" wrap="name">
      {name}
      {version === undefined ? "" : `, version ${version}`}
    </A>
  );
}

export function TransactionLink({ tenantId, id }: { tenantId: number; id: number }) {
  return (
    <A href={paths.transaction(tenantId, id)} testId="transaction-link" wrap="name">
      Transaction {id}
    </A>
  );
}

export function SessionLink({ tenantId, id }: { tenantId: number; id: string }) {
  return (
    <A href={paths.session(tenantId, id)} testId="session-link">
      <code>{id}</code>
    </A>
  );
}

export function BillLink({ tenantId, id }: { tenantId: number; id: string }) {
  return (
    <A href={paths.bill(tenantId, id)} testId="bill-link">
      <code>{id}</code>
    </A>
  );
}

export function PaymentLink({
  tenantId,
  billId,
  id,
  children,
}: {
  tenantId: number;
  billId: string;
  id: string;
  children?: ReactNode;
}) {
  return (
    <A href={paths.payment(tenantId, billId)} testId="payment-link">
      {children ?? <code>{id}</code>}
    </A>
  );
}
