import { z } from "zod";
import { db as defaultDb, type Db, type DbTx } from "../db";
import type { Prisma, TeamBillingCall } from "../generated/prisma/client";
import { defineJob, leaseForCalls, stepBackoff, type JobContext } from "../jobs/define-job";
import { enqueue } from "../jobs/enqueue";
import { recordOutcome } from "../jobs/external-call";
import { startJobNow, untilDone } from "../jobs/run-now";
import { waitFor } from "../jobs/wait";
import { newId } from "../lib/ids";
import { STRIPE_CALL_BUDGET_MS } from "../payments/processors/stripe";
import { isProcessorError, ProcessorError } from "../payments/processors/types";
import {
  teamBilling,
  type InvoicingMode,
  type MethodKind,
  type TeamBillingConfig,
} from "./stripe-billing";

/**
 * The journal of calls to the platform's Stripe account about a team (`team_billing_calls`), the
 * external-call pattern of server/jobs/README.md: the call row and its job are written in the
 * request's (or the usage job's) transaction, the job calls Stripe outside any transaction with
 * the row's id as the Idempotency-Key, and records the outcome fenced by its lease; an uncertain
 * outcome (timeout, reset, 5xx, 409, 429, a reused key) is asked again after the backoff with the
 * same key, so Stripe acts once however often it is asked and whoever dies between its answer and
 * our write.
 *
 * Kinds (`request` is the call's input):
 * - `setup_session` { method, success_url, cancel_url }: a Checkout Session in `setup` mode for the
 *   team's Customer (made first, under the key `team-<id>-customer`, when the team has none yet).
 * - `set_default` { payment_method }: the Customer's default for invoices; then the Subscription
 *   to the metered price, made once per team (`team-<id>-subscription`) when there is none.
 * - `detach` { payment_method }: the card or bank account leaves the Customer.
 * - `sync_subscription` { mode }: the Subscription's collection method follows the team's
 *   invoicing mode (made, with a Customer, when there is none yet: invoicing needs one).
 * - `meter_event` { value, timestamp }: a usage record's billable chargers, sent to the meter with
 *   the id as its `identifier` too.
 */
export type CallKind =
  "setup_session" | "set_default" | "detach" | "sync_subscription" | "meter_event";

export const teamBillingCallJob = defineJob({
  id: "team-billing.call",
  payload: z.object({ call_id: z.string() }),
  retry: {
    maxAttempts: 8,
    backoff: stepBackoff([1_000, 5_000, 30_000, 120_000, 600_000], 3_600_000),
  },
  // a run makes up to three calls one after another (customer, the call, subscription)
  leaseMs: leaseForCalls(3, STRIPE_CALL_BUDGET_MS),
  handler: ({ call_id }, ctx) => runCall(call_id, ctx),
  // The last run's runner died: nobody knows what Stripe did.
  onFailed: async (tx, { call_id }, failure) => {
    await tx.teamBillingCall.updateMany({
      where: { id: call_id, status: "pending" },
      data: { status: "unknown", error: { kind: "uncertain", message: failure.error } },
    });
  },
});

/** Stripe's Idempotency-Keys of the team's one Customer and one Subscription. */
export const customerKey = (teamId: number) => `team-${teamId}-customer`;
export const subscriptionKey = (teamId: number) => `team-${teamId}-subscription`;

export const callJobId = (callId: string) => `${teamBillingCallJob.id}:${callId}`;

/** Journals a call in `tx`: the row and its job. Nothing is called here. */
export async function newCall(
  tx: DbTx,
  input: {
    teamId: number;
    kind: CallKind;
    request: Prisma.InputJsonObject;
    month?: Date;
    value?: number;
  },
): Promise<TeamBillingCall> {
  const id = newId("tbc");
  const call = await tx.teamBillingCall.create({ data: { id, ...input, jobId: callJobId(id) } });
  await enqueue(tx, teamBillingCallJob, { call_id: id }, { key: id });
  return call;
}

/** Calls are asked again for this long after they began (Stripe keeps a key 24 hours). */
export const CALL_FOLLOW_LIMIT_MS = 23 * 3_600_000;

/** How long a request waits for its calls before answering what it has. */
export const CALL_WAIT_MS = 3_000;

/** Runs the calls now (a runner that holds one keeps it) and waits for them, up to CALL_WAIT_MS. */
export async function runCallsNow(db: Db, calls: TeamBillingCall[]): Promise<TeamBillingCall[]> {
  const deadline = Date.now() + CALL_WAIT_MS;
  const runs = calls.map((c) =>
    startJobNow({ db, definitions: [teamBillingCallJob], jobId: c.jobId }),
  );
  await untilDone(runs, deadline);
  return Promise.all(
    calls.map((c) =>
      waitFor(
        () => db.teamBillingCall.findUniqueOrThrow({ where: { id: c.id } }),
        (row) => row.status !== "pending",
        Math.max(0, deadline - Date.now()),
      ),
    ),
  );
}

const SETTLED = ["succeeded", "failed"];

export async function runCall(callId: string, ctx: JobContext, db: Db = ctx.db ?? defaultDb()) {
  const call = await db.teamBillingCall.findUniqueOrThrow({ where: { id: callId } });
  if (SETTLED.includes(call.status)) return;
  const config = teamBilling();
  if (!config) {
    await recordOutcome(db, ctx, { ok: false, error: "team billing is off", retry: false }, (tx) =>
      settleCall(tx, callId, "failed", null, {
        kind: "unavailable",
        message: "team billing is off",
      }),
    );
    return;
  }
  let effects: (tx: DbTx) => Promise<Prisma.InputJsonObject>;
  try {
    effects = await perform(db, config, call);
  } catch (error) {
    const e = isProcessorError(error)
      ? error
      : new ProcessorError("uncertain", error instanceof Error ? error.message : String(error));
    const uncertain = e.kind === "uncertain";
    await recordOutcome(
      db,
      ctx,
      { ok: false, error: e.message, retry: uncertain },
      async (tx, settled) =>
        settleCall(
          tx,
          callId,
          uncertain ? (settled.status === "failed" ? "unknown" : "pending") : "failed",
          null,
          { ...e.toJSON() },
        ),
    );
    return;
  }
  await recordOutcome(db, ctx, { ok: true }, async (tx) => {
    const response = await effects(tx);
    await settleCall(tx, callId, "succeeded", response, null);
  });
}

async function settleCall(
  tx: DbTx,
  id: string,
  status: string,
  response: Prisma.InputJsonObject | null,
  error: Prisma.InputJsonObject | null,
) {
  await tx.teamBillingCall.update({
    where: { id },
    data: {
      status,
      ...(response && { response }),
      ...(error && { error }),
      ...(status !== "pending" && { completedAt: new Date() }),
    },
  });
}

/**
 * Makes the call (and the Customer or Subscription it needs first), outside any transaction;
 * answers what to write when the outcome is recorded (under the job's fence).
 */
async function perform(
  db: Db,
  config: TeamBillingConfig,
  call: TeamBillingCall,
): Promise<(tx: DbTx) => Promise<Prisma.InputJsonObject>> {
  const { stripe } = config;
  const teamId = call.teamId;
  const profile = await db.teamBilling.findUniqueOrThrow({ where: { teamId } });
  const request = call.request as Record<string, unknown>;
  // A team has one Customer and one Subscription: each is made under a key of the team's own, so
  // two calls that need it at once (a card and a bank account saved together) get the same object
  // from Stripe, and asking again replays it. Its parameters may differ between two such calls
  // (the team renamed, the invoicing switched): Stripe then refuses the second (a reused key,
  // uncertain), whose retry finds the first one's object stored and uses it.
  const customerRef = async () => {
    if (profile.customerRef) return profile.customerRef;
    const team = await db.team.findUniqueOrThrow({
      where: { id: teamId },
      select: {
        name: true,
        members: {
          where: { role: "owner" },
          select: { user: { select: { email: true } } },
          take: 1,
        },
      },
    });
    return stripe.createCustomer(
      { teamId, name: team.name, email: team.members[0]?.user.email ?? null },
      customerKey(teamId),
    );
  };
  const subscriptionRef = async (customer: string, mode: InvoicingMode) =>
    profile.subscriptionRef ??
    stripe.createSubscription(
      { customerRef: customer, priceId: config.priceId, mode, teamId },
      subscriptionKey(teamId),
    );
  // Stored only where nothing is stored yet: a concurrent call's customer is kept, never replaced.
  const storeRefs = async (tx: DbTx, refs: { customerRef?: string; subscriptionRef?: string }) => {
    if (refs.customerRef)
      await tx.teamBilling.updateMany({
        where: { teamId, customerRef: null },
        data: { customerRef: refs.customerRef },
      });
    if (refs.subscriptionRef)
      await tx.teamBilling.updateMany({
        where: { teamId, subscriptionRef: null },
        data: { subscriptionRef: refs.subscriptionRef },
      });
  };

  switch (call.kind) {
    case "setup_session": {
      const customer = await customerRef();
      const method = request.method as MethodKind;
      const session = await stripe.createSetupSession(
        {
          customerRef: customer,
          method,
          teamId,
          successUrl: String(request.success_url),
          cancelUrl: String(request.cancel_url),
        },
        call.id,
      );
      return async (tx) => {
        await storeRefs(tx, { customerRef: customer });
        await tx.teamBilling.update({
          where: { teamId },
          data:
            method === "card"
              ? { cardSetupRef: session.sessionRef }
              : { bankSetupRef: session.sessionRef },
        });
        return {
          customer_ref: customer,
          session_ref: session.sessionRef,
          url: session.url,
          expires_at: session.expiresAt.toISOString(),
        };
      };
    }
    case "set_default": {
      const customer = await customerRef();
      const methodRef = String(request.payment_method);
      await stripe.setDefaultMethod(customer, methodRef, call.id);
      const sub = await subscriptionRef(customer, profile.invoicingMode as InvoicingMode);
      return async (tx) => {
        await storeRefs(tx, { customerRef: customer, subscriptionRef: sub });
        return { customer_ref: customer, subscription_ref: sub, payment_method: methodRef };
      };
    }
    case "detach": {
      const methodRef = String(request.payment_method);
      await stripe.detachMethod(methodRef, call.id).catch((error: unknown) => {
        // already gone from the customer (detached before, or by Stripe): the outcome we wanted
        if (
          isProcessorError(error) &&
          (error.kind === "not_found" || error.code === "payment_method_unexpected_state")
        )
          return;
        throw error;
      });
      return () => Promise.resolve({ payment_method: methodRef });
    }
    case "sync_subscription": {
      const mode = request.mode as InvoicingMode;
      const customer = await customerRef();
      const existing = profile.subscriptionRef;
      const sub = await subscriptionRef(customer, mode);
      if (existing) await stripe.updateSubscription(existing, mode, call.id);
      return async (tx) => {
        await storeRefs(tx, { customerRef: customer, subscriptionRef: sub });
        return { customer_ref: customer, subscription_ref: sub, mode };
      };
    }
    case "meter_event": {
      if (!profile.customerRef)
        throw new ProcessorError("invalid", "the team has no Stripe customer");
      const timestamp = new Date(String(request.timestamp));
      await stripe.sendMeterEvent(
        {
          eventName: config.meterEvent,
          customerRef: profile.customerRef,
          value: Number(request.value),
          timestamp,
        },
        call.id,
      );
      return () => Promise.resolve({ identifier: call.id, value: Number(request.value) });
    }
    default:
      throw new ProcessorError("invalid", `unknown call kind ${call.kind}`);
  }
}

/**
 * Calls still `pending` or `unknown` whose job ended (its tries ran out, or its runner died on
 * the last one) get a new job for the same call, so the same key: every call is followed until
 * Stripe settles it, for 23 hours. Stripe keeps a key 24 hours: asked later, the same key could
 * act a second time, so an older call stays `unknown` for a person to look at (its id finds it
 * in Stripe's request log). Run by the usage job.
 */
export async function followCalls(db: Db, now: Date) {
  const stuck = await db.$queryRaw<{ id: string }[]>`
    SELECT c.id FROM team_billing_calls c LEFT JOIN jobs j ON j.id = c.job_id
    WHERE c.status IN ('pending', 'unknown')
      AND (j.id IS NULL OR j.status IN ('succeeded', 'failed'))
      AND c.created_at > ${new Date(now.getTime() - CALL_FOLLOW_LIMIT_MS)}
    ORDER BY c.created_at LIMIT 100`;
  for (const { id } of stuck) {
    await db.$transaction(async (tx) => {
      const key = `${id}:${now.getTime()}`;
      await enqueue(tx, teamBillingCallJob, { call_id: id }, { key });
      await tx.teamBillingCall.update({
        where: { id },
        data: { jobId: `${teamBillingCallJob.id}:${key}`, status: "pending" },
      });
    });
  }
  return stuck.length;
}
