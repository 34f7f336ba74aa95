import type { DbTx } from "../db";
import { enqueue } from "../jobs/enqueue";
import { newId } from "../lib/ids";
import { attemptJobId, paymentAttemptJob } from "./payment-attempt-job";
import type { AttemptKind } from "./payment-schema";

/**
 * Journals a processor call in the request's transaction: the attempt row and the job that makes
 * the call, keyed by the attempt's id (also the processor's Idempotency-Key). Both commit or
 * neither does; nothing is called here.
 */
export async function newAttempt(
  tx: DbTx,
  paymentId: string,
  kind: Exclude<AttemptKind, "read">,
  amountMinor: number,
  request: Record<string, unknown> = {},
) {
  const id = newId("pat");
  const attempt = await tx.paymentAttempt.create({
    data: {
      id,
      paymentId,
      kind,
      amountMinor,
      request: { amount_minor: amountMinor, ...request },
      jobId: attemptJobId(id),
    },
  });
  await enqueue(tx, paymentAttemptJob, { attempt_id: attempt.id }, { key: attempt.id });
  return attempt;
}
