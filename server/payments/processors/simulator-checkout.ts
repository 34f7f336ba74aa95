import type { Db } from "../../db";
import { inTransaction } from "../../db/retry";
import { Prisma } from "../../generated/prisma/client";
import { HOLD_LIFETIME_MS, lockIntent, settleLapses, type IntentRow } from "./simulator-intents";
import { ProcessorError, type CardError, type CheckoutStatus } from "./types";

/**
 * What the simulator's hosted checkout page (/pay/simulator/<checkout_token>) does, like a
 * processor's test cards: approve places the hold (requires_capture, the whole amount capturable,
 * lapsing after 7 days); decline records the issuer's reason and leaves the checkout payable;
 * abandon closes the checkout (expired; its intent canceled, reason `abandoned`); leave
 * unfinished starts 3-D Secure and stops (requires_action: nothing is held, the checkout stays
 * open, and approving later finishes it), then sends the payer to the success URL as a 3-D Secure
 * redirect does whatever the outcome: the redirect proves nothing. Each acts only on an open
 * checkout, under the row's lock, so two clicks cannot both succeed.
 *
 * The token in the address is the only credential, as with a processor's checkout URL. These
 * actions send no webhook: the page's handler asks the payments service to read the intent.
 */
export const SIMULATED_DECLINES = {
  generic_decline: { code: "card_declined", message: "Your card was declined." },
  insufficient_funds: { code: "card_declined", message: "Your card has insufficient funds." },
  expired_card: { code: "expired_card", message: "Your card has expired." },
} as const;
export type SimulatedDecline = keyof typeof SIMULATED_DECLINES;

export type CheckoutPage = {
  tenantId: number;
  checkoutRef: string;
  amountMinor: number;
  currency: string;
  description: string;
  status: CheckoutStatus;
  /** the last declined attempt, shown so the payer can try again */
  lastError: CardError | null;
  /** 3-D Secure was started and not finished: nothing is held yet */
  awaitingAuthentication: boolean;
  expiresAt: Date;
};

export type CheckoutAction = {
  page: CheckoutPage;
  /** where the payer goes next: success_url after approve, cancel_url after abandon */
  redirectUrl: string | null;
};

export type SimulatorCheckout = {
  /** the page's content; null for an unknown token */
  checkoutPage(token: string): Promise<CheckoutPage | null>;
  approveCheckout(token: string): Promise<CheckoutAction>;
  declineCheckout(token: string, reason?: SimulatedDecline): Promise<CheckoutAction>;
  abandonCheckout(token: string): Promise<CheckoutAction>;
  leaveCheckoutUnfinished(token: string): Promise<CheckoutAction>;
};

/** Intent statuses an open checkout still takes a payer's action in. */
const PAYABLE = ["requires_payment_method", "requires_action"];

export function createSimulatorCheckout(deps: {
  db: () => Db;
  clock: () => Date;
}): SimulatorCheckout {
  async function act(
    token: string,
    change: (
      row: IntentRow,
      now: Date,
    ) => { data: Prisma.SimulatedIntentUpdateInput; redirect: string | null },
  ): Promise<CheckoutAction> {
    return inTransaction(deps.db(), async (tx) => {
      const now = deps.clock();
      const row = await lockIntent(tx, { checkoutToken: token }, now);
      if (!row)
        throw new ProcessorError("not_found", "No such checkout", { code: "resource_missing" });
      if (row.checkoutStatus !== "open" || !PAYABLE.includes(row.status)) {
        throw new ProcessorError(
          "invalid",
          `This checkout is ${row.checkoutStatus}: it takes no payment`,
          {
            code: "checkout_not_open",
          },
        );
      }
      const { data, redirect } = change(row, now);
      const updated = await tx.simulatedIntent.update({ where: { id: row.id }, data });
      return { page: pageOf(updated), redirectUrl: redirect };
    });
  }

  return {
    async checkoutPage(token) {
      const db = deps.db();
      const row = await db.simulatedIntent.findUnique({ where: { checkoutToken: token } });
      return row && pageOf(await settleLapses(db, row, deps.clock()));
    },

    approveCheckout: (token) =>
      act(token, (row, now) => ({
        data: {
          status: "requires_capture",
          checkoutStatus: "complete",
          amountCapturable: row.amountMinor,
          lastError: Prisma.DbNull,
          authorizedAt: now,
          authorizationExpiresAt: new Date(now.getTime() + HOLD_LIFETIME_MS),
        },
        redirect: row.successUrl,
      })),

    // A decline during 3-D Secure (failed authentication) leaves the intent payable again.
    declineCheckout: (token, reason = "generic_decline") =>
      act(token, () => ({
        data: {
          status: "requires_payment_method",
          lastError: { ...SIMULATED_DECLINES[reason], decline_code: reason },
        },
        redirect: null,
      })),

    leaveCheckoutUnfinished: (token) =>
      act(token, (row) => {
        if (row.status !== "requires_payment_method")
          throw new ProcessorError("invalid", "3-D Secure is already under way", {
            code: "payment_intent_unexpected_state",
          });
        return {
          data: { status: "requires_action", lastError: Prisma.DbNull },
          redirect: row.successUrl,
        };
      }),

    abandonCheckout: (token) =>
      act(token, (row) => ({
        data: { status: "canceled", checkoutStatus: "expired", cancellationReason: "abandoned" },
        redirect: row.cancelUrl,
      })),
  };
}

function pageOf(row: IntentRow): CheckoutPage {
  const error = row.lastError as { code?: string; decline_code?: string; message?: string } | null;
  return {
    tenantId: row.tenantId,
    checkoutRef: row.id,
    amountMinor: row.amountMinor,
    currency: row.currency,
    description: row.description,
    status: row.checkoutStatus as CheckoutStatus,
    lastError: error
      ? {
          code: error.code ?? "card_declined",
          declineCode: error.decline_code ?? null,
          message: error.message ?? "",
        }
      : null,
    awaitingAuthentication: row.status === "requires_action",
    expiresAt: row.checkoutExpiresAt,
  };
}
