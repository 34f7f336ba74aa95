import { notFound } from "next/navigation";
import { PaymentsPage } from "@/components/console/pages/payments";

export const metadata = { title: "Payments · Charge Cloud" };

export default async function Page({ params }: { params: Promise<{ tenantId: string }> }) {
  const p = await params;
  if (!/^[1-9][0-9]{0,9}$/.test(p.tenantId)) notFound();
  return <PaymentsPage tenantId={Number(p.tenantId)} />;
}
