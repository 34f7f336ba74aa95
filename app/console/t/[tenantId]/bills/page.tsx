import { notFound } from "next/navigation";
import { BillsPage } from "@/components/console/pages/bills";

export const metadata = { title: "Bills · Charge Cloud" };

export default async function Page({ params }: { params: Promise<{ tenantId: string }> }) {
  const p = await params;
  if (!/^[1-9][0-9]{0,9}$/.test(p.tenantId)) notFound();
  return <BillsPage tenantId={Number(p.tenantId)} />;
}
