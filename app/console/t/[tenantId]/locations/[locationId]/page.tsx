import { notFound } from "next/navigation";
import { LocationPage } from "@/components/console/pages/location";
import { env } from "@/server/env";

export const metadata = { title: "Location · Charge Cloud" };

export default async function Page({
  params,
}: {
  params: Promise<{ tenantId: string; locationId: string }>;
}) {
  const p = await params;
  if (!Object.values(p).every((v) => /^[1-9][0-9]{0,9}$/.test(v))) notFound();
  return (
    <LocationPage
      tenantId={Number(p.tenantId)}
      locationId={Number(p.locationId)}
      mapTiles={env().mapTiles}
    />
  );
}
