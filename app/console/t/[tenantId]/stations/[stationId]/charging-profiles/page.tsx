import { notFound } from "next/navigation";
import { StationChargingProfilesPage } from "@/components/console/pages/station-charging-profiles";

export const metadata = { title: "Station charging profiles · Charge Cloud" };

export default async function Page({
  params,
}: {
  params: Promise<{ tenantId: string; stationId: string }>;
}) {
  const p = await params;
  if (!Object.values(p).every((v) => /^[1-9][0-9]{0,9}$/.test(v))) notFound();
  return (
    <StationChargingProfilesPage tenantId={Number(p.tenantId)} stationId={Number(p.stationId)} />
  );
}
