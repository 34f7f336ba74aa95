import crypto from "node:crypto";
import { beforeAll, describe, expect, it } from "vitest";
import {
  ProcessorError,
  type Checkout,
  type MerchantAccount,
  type PaymentProcessor,
  type ProcessorErrorKind,
} from "../server/payments/processors/types";

/**
 * The behaviour every payment processor shares, run against each (`card` through the real
 * Stripe SDK against the Stripe fake, and the simulator over PostgreSQL), so the payments
 * service can rely on one set of rules whichever it calls.
 */
export type ProcessorHarness = {
  processor: PaymentProcessor;
  /** a merchant ready to take payments */
  account: MerchantAccount;
  /** another merchant: none of the first one's objects exist for it */
  otherAccount: MerchantAccount;
  /** the payer on the hosted page, with a card that succeeds or is declined for `decline` */
  pay(checkout: Checkout, outcome: "success" | { decline: "insufficient_funds" }): Awaitable;
  /** the checkout's time runs out */
  expireCheckout(checkout: Checkout): Awaitable;
  /** the hold lapses uncaptured */
  expireAuthorization(intentRef: string): Awaitable;
};

type Awaitable = void | Promise<void>;

export const newKey = () => `pat_${crypto.randomBytes(9).toString("hex")}`;

/** The ProcessorError a call rejects with (fails the test when it resolves). */
export async function refusal(call: Promise<unknown>): Promise<ProcessorError> {
  const error = await call.then(
    () => null,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(ProcessorError);
  return error as ProcessorError;
}

export async function expectRefusal(
  call: Promise<unknown>,
  kind: ProcessorErrorKind,
  code?: string,
): Promise<ProcessorError> {
  const error = await refusal(call);
  expect({ kind: error.kind, ...(code && { code: error.code }) }).toEqual({
    kind,
    ...(code && { code }),
  });
  return error;
}

export function describeProcessorBehaviour(
  name: string,
  setup: () => ProcessorHarness | Promise<ProcessorHarness>,
) {
  describe(`${name}: the payment processor behaviour`, () => {
    let h: ProcessorHarness;
    beforeAll(async () => {
      h = await setup();
    });

    const checkout = (amountMinor = 5000, key = newKey(), account = h.account) =>
      h.processor.createCheckout({
        idempotencyKey: key,
        account,
        amountMinor,
        currency: "usd",
        description: "Charging session",
        metadata: { payment_id: "pay_test" },
        successUrl: "https://cp.example.test/paid",
        cancelUrl: "https://cp.example.test/cancelled",
      });

    /** a checkout paid with a good card: its intent holds `amountMinor` */
    async function authorized(amountMinor = 5000) {
      const c = await checkout(amountMinor);
      await h.pay(c, "success");
      const state = await h.processor.readCheckout(c.checkoutRef, h.account);
      expect(state.intentRef).toBeTruthy();
      return { checkout: c, intentRef: state.intentRef as string };
    }

    it("holds the amount on a hosted checkout, captures exactly the amount asked, and refunds it", async () => {
      const c = await checkout(5000);
      expect(new URL(c.checkoutUrl).protocol).toMatch(/^https?:$/);
      expect(c.expiresAt.getTime()).toBeGreaterThan(Date.now() + 3600_000);
      expect(await h.processor.readCheckout(c.checkoutRef, h.account)).toMatchObject({
        status: "open",
      });

      await h.pay(c, "success");
      const read = await h.processor.readCheckout(c.checkoutRef, h.account);
      expect(read.status).toBe("complete");
      const intentRef = read.intentRef as string;
      if (c.intentRef) expect(intentRef).toBe(c.intentRef);
      expect(await h.processor.readIntent(intentRef, h.account)).toMatchObject({
        status: "requires_capture",
        currency: "usd",
        amountMinor: 5000,
        amountCapturableMinor: 5000,
        amountReceivedMinor: 0,
        lastError: null,
      });

      const captured = await h.processor.capture({
        idempotencyKey: newKey(),
        account: h.account,
        intentRef,
        amountMinor: 1234,
      });
      expect(captured).toMatchObject({
        status: "succeeded",
        amountReceivedMinor: 1234,
        amountCapturableMinor: 0,
      });
      expect(await h.processor.readIntent(intentRef, h.account)).toEqual(captured);

      const refund = await h.processor.refund({
        idempotencyKey: newKey(),
        account: h.account,
        intentRef,
        amountMinor: 1234,
      });
      expect(refund).toMatchObject({ status: "succeeded", amountMinor: 1234 });
      expect(refund.refundRef).toBeTruthy();
      expect(await h.processor.readIntent(intentRef, h.account)).toMatchObject({
        amountReceivedMinor: 1234,
        amountRefundedMinor: 1234,
      });
      await expectRefusal(
        h.processor.refund({
          idempotencyKey: newKey(),
          account: h.account,
          intentRef,
          amountMinor: 1,
        }),
        "invalid",
        "charge_already_refunded",
      );
    });

    it("keeps a declined checkout payable, with the issuer's reason on the intent", async () => {
      const c = await checkout(2500);
      await h.pay(c, { decline: "insufficient_funds" });
      const read = await h.processor.readCheckout(c.checkoutRef, h.account);
      expect(read.status).toBe("open");
      const intentRef = read.intentRef as string;
      const declined = await h.processor.readIntent(intentRef, h.account);
      expect(declined).toMatchObject({
        status: "requires_payment_method",
        amountCapturableMinor: 0,
        lastError: { code: "card_declined", declineCode: "insufficient_funds" },
      });
      expect(declined.lastError?.message).toMatch(/insufficient funds/i);
      await expectRefusal(
        h.processor.capture({
          idempotencyKey: newKey(),
          account: h.account,
          intentRef,
          amountMinor: 100,
        }),
        "invalid",
        "payment_intent_unexpected_state",
      );

      await h.pay(c, "success");
      expect(await h.processor.readIntent(intentRef, h.account)).toMatchObject({
        status: "requires_capture",
        amountCapturableMinor: 2500,
        lastError: null,
      });
    });

    it("releases a hold on cancel; a canceled intent can be neither captured nor canceled again", async () => {
      const { intentRef } = await authorized(3000);
      const canceled = await h.processor.cancel({
        idempotencyKey: newKey(),
        account: h.account,
        intentRef,
      });
      expect(canceled).toMatchObject({
        status: "canceled",
        amountCapturableMinor: 0,
        amountReceivedMinor: 0,
      });
      await expectRefusal(
        h.processor.capture({
          idempotencyKey: newKey(),
          account: h.account,
          intentRef,
          amountMinor: 3000,
        }),
        "invalid",
        "payment_intent_unexpected_state",
      );
      await expectRefusal(
        h.processor.cancel({ idempotencyKey: newKey(), account: h.account, intentRef }),
        "invalid",
        "payment_intent_unexpected_state",
      );
    });

    it("shows an expired checkout as expired and a lapsed hold as canceled automatically", async () => {
      const unpaid = await checkout(1000);
      await h.expireCheckout(unpaid);
      expect(await h.processor.readCheckout(unpaid.checkoutRef, h.account)).toMatchObject({
        status: "expired",
      });

      const { intentRef } = await authorized(1000);
      await h.expireAuthorization(intentRef);
      expect(await h.processor.readIntent(intentRef, h.account)).toMatchObject({
        status: "canceled",
        canceledReason: "automatic",
        amountCapturableMinor: 0,
      });
      await expectRefusal(
        h.processor.capture({
          idempotencyKey: newKey(),
          account: h.account,
          intentRef,
          amountMinor: 1000,
        }),
        "invalid",
        "payment_intent_unexpected_state",
      );
    });

    it("refuses to capture more than the hold, and leaves the hold as it was", async () => {
      const { intentRef } = await authorized(2000);
      await expectRefusal(
        h.processor.capture({
          idempotencyKey: newKey(),
          account: h.account,
          intentRef,
          amountMinor: 2001,
        }),
        "invalid",
        "amount_too_large",
      );
      expect(await h.processor.readIntent(intentRef, h.account)).toMatchObject({
        status: "requires_capture",
        amountCapturableMinor: 2000,
      });
    });

    it("keeps each merchant's objects invisible to another merchant", async () => {
      const { checkout: c, intentRef } = await authorized(1500);
      await expectRefusal(h.processor.readCheckout(c.checkoutRef, h.otherAccount), "not_found");
      await expectRefusal(h.processor.readIntent(intentRef, h.otherAccount), "not_found");
      await expectRefusal(
        h.processor.capture({
          idempotencyKey: newKey(),
          account: h.otherAccount,
          intentRef,
          amountMinor: 1500,
        }),
        "not_found",
      );
      await expectRefusal(
        h.processor.cancel({ idempotencyKey: newKey(), account: h.otherAccount, intentRef }),
        "not_found",
      );
      expect(await h.processor.readIntent(intentRef, h.account)).toMatchObject({
        status: "requires_capture",
        amountCapturableMinor: 1500,
      });
      await expectRefusal(h.processor.readIntent(`${intentRef}x`, h.account), "not_found");
    });

    it("replays a call made again with the same key, and refuses that key for another request", async () => {
      const key = newKey();
      const first = await checkout(4000, key);
      expect(await checkout(4000, key)).toEqual(first);
      await expectRefusal(checkout(4001, key), "uncertain", "idempotency_error");

      await h.pay(first, "success");
      const intentRef = (await h.processor.readCheckout(first.checkoutRef, h.account))
        .intentRef as string;
      const captureKey = newKey();
      const capture = (amountMinor: number) =>
        h.processor.capture({
          idempotencyKey: captureKey,
          account: h.account,
          intentRef,
          amountMinor,
        });
      const captured = await capture(1000);
      // A second capture would be refused (the intent is no longer capturable): a replay is not.
      expect(await capture(1000)).toEqual(captured);
      await expectRefusal(capture(2000), "uncertain", "idempotency_error");

      const refundKey = newKey();
      const refund = () =>
        h.processor.refund({
          idempotencyKey: refundKey,
          account: h.account,
          intentRef,
          amountMinor: 400,
        });
      const refunded = await refund();
      expect(await refund()).toEqual(refunded);
      expect(await h.processor.readIntent(intentRef, h.account)).toMatchObject({
        amountReceivedMinor: 1000,
        amountRefundedMinor: 400,
      });
    });

    it("scopes idempotency keys to the merchant: the same key elsewhere is another request", async () => {
      const key = newKey();
      const mine = await checkout(1000, key, h.account);
      const theirs = await checkout(2000, key, h.otherAccount);
      expect(theirs.checkoutRef).not.toBe(mine.checkoutRef);
      await expectRefusal(h.processor.readCheckout(theirs.checkoutRef, h.account), "not_found");
    });
  });
}
