import { notFound } from "next/navigation";
import { TariffsPage } from "@/components/console/pages/tariffs";

export const metadata = { title: "Tariffs · Charge Cloud" };

export default async function Page({ params }: { params: Promise<{ tenantId: string }> }) {
  const p = await params;
  if (!Object.values(p).every((v) => /^[1-9][0-9]{0,9}$/.test(v))) notFound();
  return <TariffsPage tenantId={Number(p.tenantId)} />;
}
