import { notFound } from "next/navigation";
import { OverviewPage } from "@/components/console/pages/overview";

export const metadata = { title: "Overview · Charge Cloud" };

export default async function Page({ params }: { params: Promise<{ tenantId: string }> }) {
  const p = await params;
  if (!Object.values(p).every((v) => /^[1-9][0-9]{0,9}$/.test(v))) notFound();
  return <OverviewPage tenantId={Number(p.tenantId)} />;
}
