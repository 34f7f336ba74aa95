import { notFound } from "next/navigation";
import { TransactionsPage } from "@/components/console/pages/transactions";

export const metadata = { title: "Transactions · Charge Cloud" };

export default async function Page({ params }: { params: Promise<{ tenantId: string }> }) {
  const p = await params;
  if (!Object.values(p).every((v) => /^[1-9][0-9]{0,9}$/.test(v))) notFound();
  return <TransactionsPage tenantId={Number(p.tenantId)} />;
}
