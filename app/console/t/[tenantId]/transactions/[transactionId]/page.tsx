import { notFound } from "next/navigation";
import { TransactionPage } from "@/components/console/pages/transaction";

export const metadata = { title: "Transaction · Charge Cloud" };

export default async function Page({
  params,
}: {
  params: Promise<{ tenantId: string; transactionId: string }>;
}) {
  const p = await params;
  if (!Object.values(p).every((v) => /^[1-9][0-9]{0,9}$/.test(v))) notFound();
  return <TransactionPage tenantId={Number(p.tenantId)} transactionId={Number(p.transactionId)} />;
}
