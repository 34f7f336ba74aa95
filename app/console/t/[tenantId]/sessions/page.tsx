import { notFound } from "next/navigation";
import { SessionsPage } from "@/components/console/pages/sessions";

export const metadata = { title: "Charging sessions · Charge Cloud" };

export default async function Page({ params }: { params: Promise<{ tenantId: string }> }) {
  const p = await params;
  if (!Object.values(p).every((v) => /^[1-9][0-9]{0,9}$/.test(v))) notFound();
  return <SessionsPage tenantId={Number(p.tenantId)} />;
}
