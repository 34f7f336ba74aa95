import type { JobDefinition } from "./jobs/define-job";
import { releaseDeadGatewaysJob, retentionJob } from "./maintenance/maintenance-jobs";
import { OPERATION_CALL_TIMEOUT_MS, operationSweepJob } from "./operations/operation-jobs";
import { deliverWebhook } from "./webhooks/deliver-webhook";

/**
 * Every job definition on the shared `default` queue; the `ocpp` process starts one runner for
 * them and for its gateway's own jobs (`Gateway.jobs`, on the gateway's queue).
 */
export const BACKGROUND_JOBS: readonly JobDefinition[] = [
  deliverWebhook,
  retentionJob,
  releaseDeadGatewaysJob,
  operationSweepJob({ callTimeoutMs: OPERATION_CALL_TIMEOUT_MS }),
];
