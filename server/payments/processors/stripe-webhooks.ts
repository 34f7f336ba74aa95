import Stripe from "stripe";
import { z } from "zod";
import { PROCESSOR_EVENT_TYPES, type ParsedWebhook, type ProcessorEventType } from "./types";

/**
 * Verifies a Stripe Connect webhook delivery with the SDK (`Stripe-Signature`: `t=…,v1=…`, HMAC
 * over the raw body with the endpoint's secret, at most 5 minutes old) and names what it is about.
 * Nothing here trusts the payload's state: the payments service reads the object again.
 */
const eventShape = z.object({
  id: z.string().min(1),
  type: z.string().min(1),
  created: z.number().int(),
  account: z.string().nullish(),
  data: z.object({
    object: z.object({
      id: z.string().min(1),
      object: z.string(),
      payment_intent: z.union([z.string(), z.object({ id: z.string() })]).nullish(),
    }),
  }),
});

const HANDLED: readonly string[] = PROCESSOR_EVENT_TYPES;

export function parseStripeWebhook(
  rawBody: string | Buffer,
  signatureHeader: string | null,
  secret: string | null,
): ParsedWebhook {
  if (!secret) {
    return { kind: "refused", reason: "STRIPE_CONNECT_WEBHOOK_SECRET is not set" };
  }
  if (!signatureHeader) return { kind: "refused", reason: "no Stripe-Signature header" };
  let verified: unknown;
  try {
    verified = Stripe.webhooks.constructEvent(rawBody, signatureHeader, secret);
  } catch (error) {
    return { kind: "refused", reason: error instanceof Error ? error.message : String(error) };
  }
  const parsed = eventShape.safeParse(verified);
  if (!parsed.success) {
    return { kind: "refused", reason: "the signed body is not a Stripe event" };
  }
  const event = parsed.data;
  if (!HANDLED.includes(event.type)) return { kind: "ignored", id: event.id, type: event.type };
  const object = event.data.object;
  const linkedIntent = object.payment_intent;
  const intentRef =
    object.object === "payment_intent"
      ? object.id
      : typeof linkedIntent === "string"
        ? linkedIntent
        : (linkedIntent?.id ?? null);
  return {
    kind: "event",
    event: {
      id: event.id,
      type: event.type as ProcessorEventType,
      account: event.account ?? null,
      objectId: object.id,
      checkoutRef: object.object === "checkout.session" ? object.id : null,
      intentRef,
      refundRef: object.object === "refund" ? object.id : null,
      created: new Date(event.created * 1000),
    },
  };
}
