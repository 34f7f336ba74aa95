import { notFound } from "next/navigation";
import { TeamBillingPage } from "@/components/console/pages/team-billing";

export const metadata = { title: "Billing · Charge Cloud" };

export default async function Page({
  params,
  searchParams,
}: {
  params: Promise<{ teamId: string }>;
  searchParams: Promise<{ setup?: string | string[]; result?: string | string[] }>;
}) {
  const p = await params;
  if (!/^[1-9][0-9]{0,9}$/.test(p.teamId)) notFound();
  // Stripe's setup page sends people back here (server/team-billing/setup-method.ts)
  const { setup, result } = await searchParams;
  return (
    <TeamBillingPage
      teamId={Number(p.teamId)}
      setup={setup === "card" || setup === "bank_account" ? setup : null}
      result={result === "done" || result === "canceled" ? result : null}
    />
  );
}
