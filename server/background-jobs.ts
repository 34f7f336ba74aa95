import type { JobDefinition } from "./jobs/define-job";
import { releaseDeadGatewaysJob, retentionJob } from "./maintenance/maintenance-jobs";
import { deliverWebhook } from "./webhooks/deliver-webhook";

/** Every job definition the product runs; the `ocpp` process starts one runner for them all. */
export const BACKGROUND_JOBS: readonly JobDefinition[] = [
  deliverWebhook,
  retentionJob,
  releaseDeadGatewaysJob,
];
