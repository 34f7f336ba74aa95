import { notFound } from "next/navigation";
import { EventsPage } from "@/components/console/pages/events";

export const metadata = { title: "Events · Charge Cloud" };

export default async function Page({ params }: { params: Promise<{ tenantId: string }> }) {
  const p = await params;
  if (!Object.values(p).every((v) => /^[1-9][0-9]{0,9}$/.test(v))) notFound();
  return <EventsPage tenantId={Number(p.tenantId)} />;
}
