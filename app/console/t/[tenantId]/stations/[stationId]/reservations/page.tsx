import { notFound } from "next/navigation";
import { StationReservationsPage } from "@/components/console/pages/station-reservations";

export const metadata = { title: "Station reservations · Charge Cloud" };

export default async function Page({
  params,
}: {
  params: Promise<{ tenantId: string; stationId: string }>;
}) {
  const p = await params;
  if (!Object.values(p).every((v) => /^[1-9][0-9]{0,9}$/.test(v))) notFound();
  return <StationReservationsPage tenantId={Number(p.tenantId)} stationId={Number(p.stationId)} />;
}
