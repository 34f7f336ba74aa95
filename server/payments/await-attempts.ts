import type { Db } from "../db";
import { runJobNow } from "../jobs/run-now";
import { waitFor } from "../jobs/wait";
import { log } from "../log";
import { attemptJobId, paymentAttemptJob } from "./payment-attempt-job";
import { paymentInclude, presentPayment } from "./present-payment";

/** How long a payment answer waits after its commit for the processor call it journaled. */
export const PAYMENT_WAIT_MS = 3_000;

/**
 * A payment route's `afterCommit`: runs the payment's pending attempts at once (the kernel's
 * claim, so a runner that got there first keeps them), waits up to PAYMENT_WAIT_MS for their
 * outcomes, and answers the payment in whatever state it is then (a client reads again later).
 */
export async function awaitPaymentAttempts({ body, rootDb }: { body: unknown; rootDb: Db }) {
  const paymentId = (body as { id: string }).id;
  const pendingAttempts = () =>
    rootDb.paymentAttempt.findMany({
      where: { paymentId, status: "pending" },
      select: { id: true },
    });
  for (const attempt of await pendingAttempts()) {
    await runJobNow({
      db: rootDb,
      definitions: [paymentAttemptJob],
      jobId: attemptJobId(attempt.id),
    }).catch((error: unknown) =>
      log.warn("payment attempt fast path failed", { attempt_id: attempt.id, error }),
    );
  }
  await waitFor(pendingAttempts, (pending) => pending.length === 0, PAYMENT_WAIT_MS);
  const payment = await rootDb.payment.findUnique({
    where: { id: paymentId },
    include: paymentInclude,
  });
  return payment ? presentPayment(payment) : body;
}
