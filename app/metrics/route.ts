import { metricsAnswer } from "@/server/http/metrics-endpoint";
import { watchQueue } from "@/server/metrics/job-queues";
import { deliverWebhook } from "@/server/webhooks/deliver-webhook";

// This process's metrics (Prometheus text, behind METRICS_TOKEN: server/http/metrics-endpoint.ts). Not
// under /v1: it is no part of the public API, its document or its versions. The web process runs
// no job runner; it reports the webhook delivery queue, which its requests and events fill.
watchQueue(deliverWebhook.queue, deliverWebhook.id);

export const dynamic = "force-dynamic";
export const runtime = "nodejs";

export async function GET(request: Request): Promise<Response> {
  const { status, headers, body } = await metricsAnswer(request.headers.get("authorization"));
  return new Response(body, { status, headers });
}
