import type { DbTx } from "../../db";
import type { SimulatedIntent } from "../../generated/prisma/client";
import { ProcessorError, type CardError, type IntentState, type IntentStatus } from "./types";

/**
 * Rows of `simulated_intents`: the simulator's processor-side state. Lapses happen as they do at
 * a processor, with time: an open checkout stops taking payment after 24 hours, an uncaptured
 * hold lapses 7 days after authorization (canceled, reason `automatic`). They are applied when a
 * row is next read or acted on, by updates conditional on the state read, so two readers apply
 * a lapse once and nothing moves backwards.
 */
export const CHECKOUT_LIFETIME_MS = 24 * 3600 * 1000;
export const HOLD_LIFETIME_MS = 7 * 24 * 3600 * 1000;

export type IntentRow = SimulatedIntent;

export async function settleLapses(db: DbTx, row: IntentRow, now: Date): Promise<IntentRow> {
  let changed = false;
  if (row.checkoutStatus === "open" && row.checkoutExpiresAt <= now) {
    await db.simulatedIntent.updateMany({
      where: { id: row.id, checkoutStatus: "open" },
      data: { checkoutStatus: "expired" },
    });
    await db.simulatedIntent.updateMany({
      where: { id: row.id, status: { in: ["requires_payment_method", "requires_action"] } },
      data: { status: "canceled", cancellationReason: "abandoned" },
    });
    changed = true;
  }
  if (
    row.status === "requires_capture" &&
    row.authorizationExpiresAt &&
    row.authorizationExpiresAt <= now
  ) {
    await db.simulatedIntent.updateMany({
      where: { id: row.id, status: "requires_capture" },
      data: { status: "canceled", cancellationReason: "automatic", amountCapturable: 0 },
    });
    changed = true;
  }
  return changed ? db.simulatedIntent.findUniqueOrThrow({ where: { id: row.id } }) : row;
}

/**
 * The row, locked for the rest of the transaction and with its lapses applied; null when the
 * tenant holds no such intent (another tenant's reads as absent).
 */
export async function lockIntent(
  tx: DbTx,
  where: { tenantId: number; id: string } | { checkoutToken: string },
  now: Date,
): Promise<IntentRow | null> {
  const locked =
    "id" in where
      ? await tx.$queryRaw<{ id: string }[]>`
          SELECT id FROM simulated_intents
          WHERE id = ${where.id} AND tenant_id = ${where.tenantId} FOR UPDATE`
      : await tx.$queryRaw<{ id: string }[]>`
          SELECT id FROM simulated_intents WHERE checkout_token = ${where.checkoutToken} FOR UPDATE`;
  const id = locked[0]?.id;
  if (!id) return null;
  return settleLapses(tx, await tx.simulatedIntent.findUniqueOrThrow({ where: { id } }), now);
}

export function intentStateOf(row: IntentRow): IntentState {
  return {
    intentRef: row.id,
    status: row.status as IntentStatus,
    currency: row.currency,
    amountMinor: row.amountMinor,
    amountCapturableMinor: row.amountCapturable,
    amountReceivedMinor: row.amountCaptured,
    amountRefundedMinor: row.amountRefunded,
    canceledReason: row.cancellationReason,
    lastError: cardErrorOf(row.lastError),
    captureBefore: row.status === "requires_capture" ? row.authorizationExpiresAt : null,
  };
}

function cardErrorOf(value: unknown): CardError | null {
  if (!value || typeof value !== "object") return null;
  const { code, decline_code, message } = value as Record<string, unknown>;
  return {
    code: typeof code === "string" ? code : "card_declined",
    declineCode: typeof decline_code === "string" ? decline_code : null,
    message: typeof message === "string" ? message : "",
  };
}

export const noSuchIntent = (id: string) =>
  new ProcessorError("not_found", `No such payment_intent: '${id}'`, { code: "resource_missing" });

export const unexpectedState = (message: string) =>
  new ProcessorError("invalid", message, { code: "payment_intent_unexpected_state" });
