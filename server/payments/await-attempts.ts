import type { Db } from "../db";
import { startJobNow, untilDone } from "../jobs/run-now";
import { waitFor } from "../jobs/wait";
import { paymentAttemptJob } from "./payment-attempt-job";
import { paymentInclude, presentPayment } from "./present-payment";

/** How long a payment answer waits after its commit for the processor call it journaled. */
export const PAYMENT_WAIT_MS = 3_000;

/**
 * A payment route's `afterCommit`: starts the payment's pending attempts at once (the kernel's
 * claim, so a runner that got there first keeps them), waits up to PAYMENT_WAIT_MS for their
 * outcomes, and answers the payment in whatever state it is then (a client reads again later).
 * The wait is the answer's, not the call's: a processor slower than that keeps its call (and the
 * job's lease) after the answer went out, and records its outcome when it comes.
 */
export async function awaitPaymentAttempts({ body, rootDb }: { body: unknown; rootDb: Db }) {
  const deadline = Date.now() + PAYMENT_WAIT_MS;
  const paymentId = (body as { id: string }).id;
  const pendingAttempts = () =>
    rootDb.paymentAttempt.findMany({
      where: { paymentId, status: "pending" },
      select: { id: true, jobId: true },
    });
  const runs = (await pendingAttempts()).map((attempt) =>
    startJobNow({ db: rootDb, definitions: [paymentAttemptJob], jobId: attempt.jobId }),
  );
  // Our own runs first (they end with what follows their call, e.g. a refusal's read), then
  // whatever a runner that claimed first records; both within the one deadline.
  await untilDone(runs, deadline);
  await waitFor(
    pendingAttempts,
    (pending) => pending.length === 0,
    Math.max(0, deadline - Date.now()),
  );
  const payment = await rootDb.payment.findUnique({
    where: { id: paymentId },
    include: paymentInclude,
  });
  return payment ? presentPayment(payment) : body;
}
