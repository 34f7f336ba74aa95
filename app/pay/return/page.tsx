export const dynamic = "force-static";

/** Where a payer lands after a hosted checkout when the payment named no return URL. */
export default function PaymentReturnPage() {
  return (
    <main className="mx-auto max-w-md px-4 py-12">
      <h1 className="text-2xl font-semibold tracking-tight">Thank you</h1>
      <p className="mt-2 text-slate-600 dark:text-slate-400">
        Your payment details were sent. You can close this page; the operator confirms the payment
        with the processor.
      </p>
    </main>
  );
}
