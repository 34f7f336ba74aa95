import { notFound } from "next/navigation";
import { OcppDomainsPage } from "@/components/console/pages/ocpp-domains";

export const metadata = { title: "OCPP domains · Charge Cloud" };

export default async function Page({ params }: { params: Promise<{ tenantId: string }> }) {
  const p = await params;
  if (!Object.values(p).every((v) => /^[1-9][0-9]{0,9}$/.test(v))) notFound();
  return <OcppDomainsPage tenantId={Number(p.tenantId)} />;
}
