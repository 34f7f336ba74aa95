import { notFound } from "next/navigation";
import { WebhooksPage } from "@/components/console/pages/webhooks";

export const metadata = { title: "Webhooks · Charge Cloud" };

export default async function Page({ params }: { params: Promise<{ tenantId: string }> }) {
  const p = await params;
  if (!Object.values(p).every((v) => /^[1-9][0-9]{0,9}$/.test(v))) notFound();
  return <WebhooksPage tenantId={Number(p.tenantId)} />;
}
