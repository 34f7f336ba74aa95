import { notFound } from "next/navigation";
import { DeviceBatchPage } from "@/components/console/pages/device-batch";

export const metadata = { title: "Batch progress · Charge Cloud" };

export default async function Page({
  params,
}: {
  params: Promise<{ tenantId: string; batchId: string }>;
}) {
  const p = await params;
  if (!/^[1-9][0-9]{0,9}$/.test(p.tenantId) || !/^djb_[A-Za-z0-9]{1,60}$/.test(p.batchId))
    notFound();
  return <DeviceBatchPage tenantId={Number(p.tenantId)} batchId={p.batchId} />;
}
