import { notFound } from "next/navigation";
import { LocationsPage } from "@/components/console/pages/locations";

export const metadata = { title: "Locations · Charge Cloud" };

export default async function Page({ params }: { params: Promise<{ tenantId: string }> }) {
  const p = await params;
  if (!Object.values(p).every((v) => /^[1-9][0-9]{0,9}$/.test(v))) notFound();
  return <LocationsPage tenantId={Number(p.tenantId)} />;
}
