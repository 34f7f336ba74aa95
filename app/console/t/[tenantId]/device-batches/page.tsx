import { notFound } from "next/navigation";
import { DeviceBatchesPage } from "@/components/console/pages/device-batches";

export const metadata = { title: "Firmware & diagnostics for many stations · Charge Cloud" };

export default async function Page({ params }: { params: Promise<{ tenantId: string }> }) {
  const p = await params;
  if (!/^[1-9][0-9]{0,9}$/.test(p.tenantId)) notFound();
  return <DeviceBatchesPage tenantId={Number(p.tenantId)} />;
}
