import { notFound } from "next/navigation";
import { SettingsPage } from "@/components/console/pages/settings";

export const metadata = { title: "Settings · Charge Cloud" };

export default async function Page({ params }: { params: Promise<{ tenantId: string }> }) {
  const p = await params;
  if (!Object.values(p).every((v) => /^[1-9][0-9]{0,9}$/.test(v))) notFound();
  return <SettingsPage tenantId={Number(p.tenantId)} />;
}
