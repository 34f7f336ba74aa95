import type { Db } from "../db";
import { inTransaction } from "../db/retry";
import { DomainError } from "../errors";
import { finalizeBill } from "../bills/finalize-bill";
import { startBill } from "../bills/start-bill";
import { defineJob, stepBackoff } from "../jobs/define-job";
import { startJobNow } from "../jobs/run-now";
import { log } from "../log";
import { createCommand } from "../operations/create-command";
import { awaitPaymentAttempts } from "../payments/await-attempts";
import { capturePayment } from "../payments/capture-payment";
import { paymentAttemptJob } from "../payments/payment-attempt-job";
import { releasePayment } from "../payments/release-payment";
import { actOnSimulatorCheckout } from "../payments/simulator-page";
import { loadSessionFacts, lockSandboxSession, type SessionFacts } from "./session-facts";
import { sandboxSessionJob } from "./session-job-target";
import {
  failSandboxSession,
  syncSandboxSession,
  type DrivePhase,
  type SessionError,
} from "./session-status";

/** A session that has not started charging this long after its creation fails (`start_timeout`). */
export const START_TIMEOUT_MS = 60_000;
/** How long one run drives a session before it hands over to the job's next attempt. */
const RUN_MS = 4_000;
/** Pause between two looks at a session within one run. */
const STEP_PAUSE_MS = 50;
/** Starts of one bill tried before the session fails (`start_refused`). */
const MAX_STARTS = 3;

type Step = "done" | "wait";

/** A capture another run of the settlement asked for first (`repeatedChange`). */
const REPEATED = new Set([
  "payment_change_in_progress",
  "payment_already_captured",
  "payment_already_released",
]);

/** A step found the session not ready to move on yet; the job runs again after its backoff. */
class NotYet extends Error {
  constructor(what: string) {
    super(`NotYet: ${what}`);
  }
}

/**
 * The settlement job of a sandbox session (server/sandbox/README.md, Settlement): what a developer
 * would do by hand in the managed flow, done for them, each step through the production service
 * and each external call (the simulator, the charger) outside any transaction. Queued per phase
 * (`enqueueDrive`): `starting` approves the simulator hold (its hosted checkout, as the payer's
 * Approve), then once the virtual charger is connected starts the bill (`bill.start`: Request/
 * RemoteStartTransaction); `stopping` resends a stop the charger refused, finalizes the bill with
 * the ended transaction, captures the payment (a zero bill releases it) and settles the session;
 * `refund` waits for the refund to settle. Each run looks again every 50 ms for up to 4 s, then
 * the job runs again after its backoff (about 4 minutes in all). A session still `starting` a
 * minute after creation fails (`start_timeout`), its hold released.
 */
export const sandboxSessionJobDefinition = defineJob({
  ...sandboxSessionJob,
  retry: { maxAttempts: 60, backoff: stepBackoff([100, 250, 500, 1_000], 2_000) },
  handler: async ({ session_id }, ctx) => {
    const deadline = Date.now() + RUN_MS;
    for (;;) {
      const facts = await loadSessionFacts(ctx.db, { id: session_id });
      if (!facts) return;
      const step = await drive(ctx.db, facts);
      if (step === "done") return;
      if (Date.now() >= deadline) throw new NotYet(`session ${session_id} is ${facts.row.status}`);
      await new Promise((r) => setTimeout(r, STEP_PAUSE_MS));
    }
  },
  onFailed: async (tx, { session_id }, failure) => {
    await failSandboxSession(tx, session_id, {
      code: "start_timeout",
      message: "The session did not start in time.",
      details: { error: failure.error },
    });
  },
});

async function drive(db: Db, f: SessionFacts): Promise<Step> {
  switch (f.row.status) {
    case "starting":
      return starting(db, f);
    case "stopping":
      return stopping(db, f);
    case "settled":
      return refunding(db, f);
    default:
      return "done";
  }
}

async function starting(db: Db, f: SessionFacts): Promise<Step> {
  if (f.bill.transactionId !== null) return sync(db, f);
  const payment = f.payment;
  if (Date.now() - f.row.createdAt.getTime() > START_TIMEOUT_MS)
    return fail(db, f, {
      code: "start_timeout",
      message: f.station.online
        ? "The virtual charger did not start the transaction in time; start a new session."
        : "The virtual charger did not connect in time; start a new session.",
      details: { bill_status: f.bill.status, payment_status: payment?.status ?? null },
    });
  if (!payment) return "wait";
  if (payment.status === "pending") {
    if (payment.checkoutUrl) {
      // the payer's Approve on the simulator's hosted page: the hold is placed, then read
      await actOnSimulatorCheckout(payment.checkoutUrl.split("/").pop()!, "approve", db);
    } else {
      await awaitPaymentAttempts({ body: { id: payment.id }, rootDb: db });
    }
    return "wait";
  }
  if (payment.status !== "authorized")
    return fail(db, f, {
      code: "payment_failed",
      message: `The simulator hold is ${payment.status}; start a new session.`,
      details: { payment_id: payment.id, payment_status: payment.status },
    });
  if (f.bill.status === "start_unknown")
    return fail(db, f, {
      code: "start_unknown",
      message: "The virtual charger gave no answer to the start; start a new session.",
      details: { start_operation_id: f.bill.startOperationId },
    });
  if (f.bill.status !== "open" || !f.station.online) return "wait";
  const starts = await db.operation.findMany({
    where: {
      stationId: f.row.stationId,
      scope: "bill.start",
      request: { path: ["bill_id"], equals: f.bill.id },
    },
    orderBy: { createdAt: "desc" },
    select: { id: true, result: true },
  });
  if (starts.length >= MAX_STARTS)
    return fail(db, f, {
      code: "start_refused",
      message: "The virtual charger refused the start; start a new session.",
      details: { start_operation_id: starts[0]!.id, result: starts[0]!.result },
    });
  await inTransaction(db, async (tx) => {
    const locked = await lockSandboxSession(tx, { id: f.row.id });
    if (locked?.row.status !== "starting" || locked.bill.status !== "open") return;
    const operation = await startBill({
      tenantId: f.row.tenantId,
      billId: f.bill.id,
      apiKeyId: f.row.createdBy,
      db: tx,
    });
    await tx.sandboxSession.update({
      where: { id: f.row.id },
      data: { startOperationId: operation.id },
    });
  });
  return "wait";
}

async function stopping(db: Db, f: SessionFacts): Promise<Step> {
  const transaction = f.transaction;
  if (!transaction?.endedAt) {
    const stop = f.operation(f.row.stopOperationId);
    const refused = stop && (stop.status === "rejected" || stop.status === "unknown");
    if (transaction && (refused || !f.row.stopOperationId) && f.station.online)
      await inTransaction(db, async (tx) => {
        const locked = await lockSandboxSession(tx, { id: f.row.id });
        if (!locked || locked.transaction?.endedAt) return;
        const again = locked.operation(locked.row.stopOperationId);
        if (again && again.status !== "rejected" && again.status !== "unknown") return;
        const operation = await createCommand({
          tenantId: f.row.tenantId,
          stationId: f.row.stationId,
          apiKeyId: f.row.createdBy,
          command: { action: "stop", transaction_id: transaction.id },
          db: tx,
        });
        await tx.sandboxSession.update({
          where: { id: f.row.id },
          data: { stopOperationId: operation.id },
        });
      });
    return "wait";
  }
  if (f.bill.status === "ended") {
    await inTransaction(db, (tx) =>
      finalizeBill({
        tenantId: f.row.tenantId,
        billId: f.bill.id,
        input: { transaction_id: transaction.id },
        db: tx,
      }),
    );
    return "wait";
  }
  const payment = f.payment;
  if (f.bill.status !== "final" || !payment) return "wait";
  if (payment.status === "authorized") {
    // another run of this session's settlement may have asked first: then it is in flight
    await inTransaction(db, (tx) =>
      capturePayment({ tenantId: f.row.tenantId, paymentId: payment.id, db: tx }),
    ).catch((error: unknown) => {
      if (!(error instanceof DomainError && REPEATED.has(error.code))) throw error;
    });
    await awaitPaymentAttempts({ body: { id: payment.id }, rootDb: db });
    return "wait";
  }
  if (payment.status === "capturing" || payment.status === "releasing") {
    await awaitPaymentAttempts({ body: { id: payment.id }, rootDb: db });
    return "wait";
  }
  return sync(db, f);
}

async function refunding(db: Db, f: SessionFacts): Promise<Step> {
  const payment = f.payment;
  if (payment?.status === "refunding") {
    await awaitPaymentAttempts({ body: { id: payment.id }, rootDb: db });
    return "wait";
  }
  return sync(db, f);
}

/** Publishes what the facts say now (e.g. `charging`, `settled`, `refunded`); nothing more to do. */
async function sync(db: Db, f: SessionFacts): Promise<Step> {
  await inTransaction(db, async (tx) => {
    await lockSandboxSession(tx, { id: f.row.id });
    await syncSandboxSession(tx, f.row.id);
  });
  return "done";
}

/** Fails a session that cannot start, and releases its hold if one was placed. */
async function fail(db: Db, f: SessionFacts, error: SessionError): Promise<Step> {
  const released = await inTransaction(db, async (tx) => {
    const locked = await lockSandboxSession(tx, { id: f.row.id });
    if (locked?.row.status !== "starting") return null;
    await failSandboxSession(tx, f.row.id, error);
    if (locked.payment?.status !== "authorized") return null;
    try {
      return await releasePayment({
        tenantId: f.row.tenantId,
        paymentId: locked.payment.id,
        db: tx,
      });
    } catch (cause) {
      log.warn("a failed sandbox session's hold was not released", { session_id: f.row.id, cause });
      return null;
    }
  });
  if (released) await awaitPaymentAttempts({ body: { id: released.id }, rootDb: db });
  return "done";
}

/**
 * Starts a session's queued settlement job in this process now, if no runner has it (the kernel's
 * claim decides); resolves when that run ends, never rejects.
 */
export function driveNow(db: Db, id: string, phase: DrivePhase) {
  return startJobNow({
    db,
    definitions: [sandboxSessionJobDefinition, paymentAttemptJob],
    jobId: `${sandboxSessionJob.id}:${id}:${phase}`,
  });
}
