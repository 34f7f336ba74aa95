import { notFound } from "next/navigation";
import { StationDevicePage } from "@/components/console/pages/station-device";

export const metadata = { title: "Station firmware and diagnostics · Charge Cloud" };

export default async function Page({
  params,
}: {
  params: Promise<{ tenantId: string; stationId: string }>;
}) {
  const p = await params;
  if (!Object.values(p).every((v) => /^[1-9][0-9]{0,9}$/.test(v))) notFound();
  return <StationDevicePage tenantId={Number(p.tenantId)} stationId={Number(p.stationId)} />;
}
