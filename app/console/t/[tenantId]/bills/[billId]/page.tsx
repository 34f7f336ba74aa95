import { notFound } from "next/navigation";
import { BillPage } from "@/components/console/pages/bill";

export const metadata = { title: "Bill · Charge Cloud" };

export default async function Page({
  params,
}: {
  params: Promise<{ tenantId: string; billId: string }>;
}) {
  const p = await params;
  if (!/^[1-9][0-9]{0,9}$/.test(p.tenantId) || !/^bill_[0-9A-Za-z]{1,40}$/.test(p.billId)) {
    notFound();
  }
  return <BillPage tenantId={Number(p.tenantId)} billId={p.billId} />;
}
