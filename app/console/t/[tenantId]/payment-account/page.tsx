import { notFound } from "next/navigation";
import { PaymentAccountPage } from "@/components/console/pages/payment-account";

export const metadata = { title: "Payment account · Charge Cloud" };

export default async function Page({
  params,
  searchParams,
}: {
  params: Promise<{ tenantId: string }>;
  searchParams: Promise<{ onboarding?: string | string[] }>;
}) {
  const p = await params;
  if (!/^[1-9][0-9]{0,9}$/.test(p.tenantId)) notFound();
  const { onboarding } = await searchParams;
  // Stripe sends people back here: `return` after onboarding, `refresh` when a link was spent
  const back = onboarding === "return" || onboarding === "refresh" ? onboarding : null;
  return <PaymentAccountPage tenantId={Number(p.tenantId)} back={back} />;
}
