import { notFound } from "next/navigation";
import { StationConfigurationPage } from "@/components/console/pages/station-configuration";

export const metadata = { title: "Station configuration · Charge Cloud" };

export default async function Page({
  params,
}: {
  params: Promise<{ tenantId: string; stationId: string }>;
}) {
  const p = await params;
  if (!Object.values(p).every((v) => /^[1-9][0-9]{0,9}$/.test(v))) notFound();
  return <StationConfigurationPage tenantId={Number(p.tenantId)} stationId={Number(p.stationId)} />;
}
