import { receiveStripeWebhook } from "@/server/http/stripe-webhook";

// Stripe Connect's signed events: verified over the raw body, deduplicated, then read again.
export const dynamic = "force-dynamic";
export const runtime = "nodejs";

export const POST = (request: Request) => receiveStripeWebhook(request);
