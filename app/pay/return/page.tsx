import { returnPageBranding } from "@/server/payments/simulator-page";

export const dynamic = "force-dynamic";

/**
 * Where a payer lands after a hosted checkout when the payment named no return URL
 * (`/pay/return?payment=<id>`), with the payment's team's branding (PUT /v1/branding): its name
 * as escaped text, its colour only as a validated #rrggbb, its logo as an https image without a
 * referrer.
 */
export default async function PaymentReturnPage({
  searchParams,
}: {
  searchParams: Promise<{ payment?: string | string[] }>;
}) {
  const { payment } = await searchParams;
  const brand = await returnPageBranding(typeof payment === "string" ? payment : undefined);
  return (
    <main className="mx-auto max-w-md px-4 py-12">
      {brand?.logoUrl && (
        <img
          src={brand.logoUrl}
          alt=""
          referrerPolicy="no-referrer"
          data-testid="brand-logo"
          className="mb-4 h-10 w-auto"
        />
      )}
      <h1
        className="text-2xl font-semibold tracking-tight"
        style={brand?.accent ? { borderBottom: `4px solid ${brand.accent}` } : undefined}
      >
        Thank you
      </h1>
      {brand && (
        <p className="mt-2 font-medium" data-testid="brand-name">
          {brand.displayName}
        </p>
      )}
      <p className="mt-2 text-slate-600 dark:text-slate-400">
        Your payment details were sent. You can close this page; the operator confirms the payment
        with the processor.
      </p>
    </main>
  );
}
