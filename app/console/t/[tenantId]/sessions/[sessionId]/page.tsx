import { notFound } from "next/navigation";
import { SessionPage } from "@/components/console/pages/session";

export const metadata = { title: "Charging session · Charge Cloud" };

export default async function Page({
  params,
}: {
  params: Promise<{ tenantId: string; sessionId: string }>;
}) {
  const { tenantId, sessionId } = await params;
  if (!/^[1-9][0-9]{0,9}$/.test(tenantId) || !/^cs_[0-9A-Za-z]{1,40}$/.test(sessionId)) notFound();
  return <SessionPage tenantId={Number(tenantId)} sessionId={sessionId} />;
}
