import { notFound } from "next/navigation";
import { StationsPage } from "@/components/console/pages/stations";

export const metadata = { title: "Stations · Charge Cloud" };

export default async function Page({ params }: { params: Promise<{ tenantId: string }> }) {
  const p = await params;
  if (!Object.values(p).every((v) => /^[1-9][0-9]{0,9}$/.test(v))) notFound();
  return <StationsPage tenantId={Number(p.tenantId)} />;
}
