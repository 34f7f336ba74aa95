import { notFound } from "next/navigation";
import { StationsPage } from "@/components/console/pages/stations";
import { STATION_STATES } from "@/components/console/station-states";

export const metadata = { title: "Stations · Charge Cloud" };

export default async function Page({
  params,
  searchParams,
}: {
  params: Promise<{ tenantId: string }>;
  searchParams: Promise<{ state?: string | string[] }>;
}) {
  const p = await params;
  if (!Object.values(p).every((v) => /^[1-9][0-9]{0,9}$/.test(v))) notFound();
  const { state } = await searchParams;
  const initialState = STATION_STATES.find((s) => s === state);
  return <StationsPage tenantId={Number(p.tenantId)} initialState={initialState} />;
}
