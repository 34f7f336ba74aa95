import { db as defaultDb, type Db, type DbTx } from "../../db";
import { inTransaction } from "../../db/retry";
import { randomBase62, sha256Hex } from "../../lib/ids";
import { createSimulatorCheckout, type SimulatorCheckout } from "./simulator-checkout";
import {
  CHECKOUT_LIFETIME_MS,
  intentStateOf,
  type IntentRow,
  lockIntent,
  noSuchIntent,
  settleLapses,
  unexpectedState,
} from "./simulator-intents";
import {
  isProcessorError,
  ProcessorError,
  type MerchantAccount,
  type PaymentProcessor,
  type ProcessorErrorKind,
} from "./types";

/**
 * The built-in `simulator` processor: the same interface and the same rules as Stripe (holds
 * with manual capture, idempotency keys replayed per tenant, objects invisible to other
 * tenants, lapses with time), kept in the product's own database, so simulated payments go
 * through the same journal and reconciliation as card payments. It needs no keys.
 *
 * The payer acts on its hosted page (/pay/simulator/<checkout_token>: approve, decline, abandon
 * or leave 3-D Secure unfinished, see simulator-checkout.ts). It sends no webhooks: after a checkout action the payments
 * service reads the intent (readCheckout/readIntent), as it does on any payment read; the page's
 * handler is expected to trigger that read.
 *
 * Every change runs in one transaction that first inserts the idempotency record, so a second
 * call with the same key waits for the first to commit and then replays its stored outcome.
 * Definitive refusals are stored too (as Stripe stores them); an error that rolls the
 * transaction back stores nothing, and is `uncertain` to the caller.
 */
export type SimulatorProcessor = PaymentProcessor & SimulatorCheckout;

export type SimulatorOptions = {
  /** the product's origin: hosted checkout pages are under it */
  publicBaseUrl: string;
  db?: () => Db;
  /** tests move time to make checkouts and holds lapse */
  clock?: () => Date;
};

type Stored =
  { ok: unknown } | { error: { kind: ProcessorErrorKind; code: string | null; message: string } };

export function createSimulatorProcessor(options: SimulatorOptions): SimulatorProcessor {
  const db = options.db ?? defaultDb;
  const clock = options.clock ?? (() => new Date());

  async function idempotent<T>(
    account: MerchantAccount,
    key: string,
    request: Record<string, unknown>,
    work: (tx: DbTx, now: Date) => Promise<T>,
  ): Promise<T> {
    const tenantId = tenantOf(account);
    const requestHash = sha256Hex(JSON.stringify(request));
    let stored: Stored;
    try {
      stored = await inTransaction(db(), async (tx) => {
        const inserted = await tx.$executeRaw`
          INSERT INTO simulated_idempotency_records (tenant_id, key, request_hash, response)
          VALUES (${tenantId}, ${key}, ${requestHash}, '{}'::jsonb)
          ON CONFLICT DO NOTHING`;
        if (inserted === 0) {
          const record = await tx.simulatedIdempotencyRecord.findUniqueOrThrow({
            where: { tenantId_key: { tenantId, key } },
          });
          if (record.requestHash !== requestHash) {
            // a request under this key was made before: what it did is unknown to this caller
            return {
              error: {
                kind: "uncertain",
                code: "idempotency_error",
                message: `Keys for idempotent requests can only be used with the same parameters they were first used with. Try using a key other than '${key}' if you meant to execute a different request.`,
              },
            } satisfies Stored;
          }
          return record.response as Stored;
        }
        let outcome: Stored;
        try {
          outcome = { ok: await work(tx, clock()) };
        } catch (error) {
          if (!isProcessorError(error) || error.kind === "uncertain") throw error;
          outcome = { error: { kind: error.kind, code: error.code, message: error.message } };
        }
        await tx.simulatedIdempotencyRecord.update({
          where: { tenantId_key: { tenantId, key } },
          data: { response: JSON.parse(JSON.stringify(outcome)) as object },
        });
        return outcome;
      });
    } catch (error) {
      throw uncertain(error);
    }
    if ("error" in stored) {
      throw new ProcessorError(stored.error.kind, stored.error.message, {
        code: stored.error.code,
      });
    }
    return stored.ok as T;
  }

  /** An idempotent change to one of the account's intents, made under the intent's row lock. */
  function changeIntent<T>(
    input: { account: MerchantAccount; idempotencyKey: string; intentRef: string },
    request: Record<string, unknown>,
    change: (tx: DbTx, row: IntentRow) => Promise<T>,
  ): Promise<T> {
    const { account, intentRef } = input;
    return idempotent(account, input.idempotencyKey, request, async (tx, now) => {
      const row = await lockIntent(tx, { tenantId: tenantOf(account), id: intentRef }, now);
      if (!row) throw noSuchIntent(intentRef);
      return change(tx, row);
    });
  }

  async function read<T>(fn: (db: Db) => Promise<T>): Promise<T> {
    try {
      return await fn(db());
    } catch (error) {
      throw uncertain(error);
    }
  }

  return {
    service: "simulator",
    availability: () => ({ available: true }),

    async createCheckout(input) {
      if (input.currency !== "usd") throw new ProcessorError("invalid", "USD only");
      if (!Number.isSafeInteger(input.amountMinor) || input.amountMinor < 50) {
        throw new ProcessorError(
          "invalid",
          "The amount must be a whole number of cents, at least 50",
          {
            code: "amount_too_small",
          },
        );
      }
      const { amountMinor, description, metadata, successUrl, cancelUrl } = input;
      const request = { op: "checkout", amountMinor, description, metadata, successUrl, cancelUrl };
      const created = await idempotent(
        input.account,
        input.idempotencyKey,
        request,
        async (tx, now) => {
          const row = await tx.simulatedIntent.create({
            data: {
              id: `sim_pi_${randomBase62(24)}`,
              tenantId: tenantOf(input.account),
              amountMinor,
              currency: "usd",
              description,
              metadata,
              status: "requires_payment_method",
              checkoutStatus: "open",
              checkoutToken: randomBase62(32),
              successUrl,
              cancelUrl,
              checkoutExpiresAt: new Date(now.getTime() + CHECKOUT_LIFETIME_MS),
            },
          });
          return {
            ref: row.id,
            url: `${options.publicBaseUrl}/pay/simulator/${row.checkoutToken}`,
            expiresAt: row.checkoutExpiresAt.toISOString(),
          };
        },
      );
      // One row is both the checkout and its intent: both refs are its id.
      return {
        checkoutRef: created.ref,
        checkoutUrl: created.url,
        intentRef: created.ref,
        expiresAt: new Date(created.expiresAt),
      };
    },

    async readCheckout(checkoutRef, account) {
      const row = await read(async (db) => {
        const found = await db.simulatedIntent.findFirst({
          where: { id: checkoutRef, tenantId: tenantOf(account) },
        });
        return found && settleLapses(db, found, clock());
      });
      if (!row) {
        throw new ProcessorError("not_found", `No such checkout.session: '${checkoutRef}'`, {
          code: "resource_missing",
        });
      }
      return {
        checkoutRef: row.id,
        status: row.checkoutStatus as "open" | "complete" | "expired",
        intentRef: row.id,
      };
    },

    async readIntent(intentRef, account) {
      const row = await read(async (db) => {
        const found = await db.simulatedIntent.findFirst({
          where: { id: intentRef, tenantId: tenantOf(account) },
        });
        return found && settleLapses(db, found, clock());
      });
      if (!row) throw noSuchIntent(intentRef);
      return intentStateOf(row);
    },

    capture(input) {
      const { intentRef, amountMinor } = input;
      return changeIntent(input, { op: "capture", intentRef, amountMinor }, async (tx, row) => {
        if (!Number.isSafeInteger(amountMinor) || amountMinor < 1) {
          throw new ProcessorError("invalid", "Invalid amount_to_capture", {
            code: "parameter_invalid",
          });
        }
        if (row.status !== "requires_capture") {
          throw unexpectedState(
            `This PaymentIntent could not be captured because it has a status of ${row.status}. Only a PaymentIntent with one of the following statuses may be captured: requires_capture.`,
          );
        }
        if (amountMinor > row.amountCapturable) {
          throw new ProcessorError(
            "invalid",
            "The amount_to_capture cannot be greater than the amount_capturable.",
            {
              code: "amount_too_large",
            },
          );
        }
        const captured = await tx.simulatedIntent.update({
          where: { id: row.id },
          data: { status: "succeeded", amountCaptured: amountMinor, amountCapturable: 0 },
        });
        return intentStateOf(captured);
      });
    },

    cancel(input) {
      const { intentRef } = input;
      return changeIntent(input, { op: "cancel", intentRef }, async (tx, row) => {
        const cancelable = ["requires_payment_method", "requires_action", "requires_capture"];
        if (!cancelable.includes(row.status)) {
          throw unexpectedState(
            `You cannot cancel this PaymentIntent because it has a status of ${row.status}. Only a PaymentIntent with one of the following statuses may be canceled: ${cancelable.join(", ")}.`,
          );
        }
        const canceled = await tx.simulatedIntent.update({
          where: { id: row.id },
          data: {
            status: "canceled",
            amountCapturable: 0,
            // nobody can pay a canceled intent: its checkout closes with it
            ...(row.checkoutStatus === "open" && { checkoutStatus: "expired" }),
          },
        });
        return intentStateOf(canceled);
      });
    },

    refund(input) {
      const { intentRef, amountMinor } = input;
      return changeIntent(input, { op: "refund", intentRef, amountMinor }, async (tx, row) => {
        if (!Number.isSafeInteger(amountMinor) || amountMinor < 1) {
          throw new ProcessorError("invalid", "Invalid refund amount", {
            code: "parameter_invalid",
          });
        }
        if (row.status !== "succeeded") {
          throw unexpectedState(
            `This PaymentIntent (${row.id}) does not have a successful charge to refund.`,
          );
        }
        const remaining = row.amountCaptured - row.amountRefunded;
        if (remaining === 0) {
          throw new ProcessorError(
            "invalid",
            `PaymentIntent ${row.id} has already been refunded.`,
            {
              code: "charge_already_refunded",
            },
          );
        }
        if (amountMinor > remaining) {
          throw new ProcessorError(
            "invalid",
            `Refund amount is greater than the unrefunded amount (${remaining})`,
            {
              code: "amount_too_large",
            },
          );
        }
        await tx.simulatedIntent.update({
          where: { id: row.id },
          data: { amountRefunded: { increment: amountMinor } },
        });
        return {
          refundRef: `sim_re_${randomBase62(24)}`,
          status: "succeeded" as const,
          amountMinor,
        };
      });
    },

    ...createSimulatorCheckout({ db, clock }),
  };
}

/** The simulator keeps each tenant's objects apart; it has no connected accounts. */
function tenantOf(account: MerchantAccount): number {
  if (account.accountRef !== null) {
    throw new ProcessorError(
      "invalid",
      "the simulator takes no connected account (accountRef must be null)",
    );
  }
  return account.tenantId;
}

function uncertain(error: unknown): unknown {
  if (isProcessorError(error)) return error;
  const message = error instanceof Error ? error.message : String(error);
  return new ProcessorError("uncertain", `simulator call failed: ${message}`);
}
