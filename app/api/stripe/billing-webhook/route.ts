import { receiveStripeBillingWebhook } from "@/server/http/stripe-billing-webhook";

// The platform account's own signed events (team billing): verified, deduplicated, read again.
export const dynamic = "force-dynamic";
export const runtime = "nodejs";

export const POST = (request: Request) => receiveStripeBillingWebhook(request);
