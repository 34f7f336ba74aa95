import { notFound } from "next/navigation";
import { ApiKeysPage } from "@/components/console/pages/api-keys";

export const metadata = { title: "API keys · Charge Cloud" };

export default async function Page({ params }: { params: Promise<{ tenantId: string }> }) {
  const p = await params;
  if (!Object.values(p).every((v) => /^[1-9][0-9]{0,9}$/.test(v))) notFound();
  return <ApiKeysPage tenantId={Number(p.tenantId)} />;
}
