import type { JobDefinition } from "./jobs/define-job";
import { releaseDeadGatewaysJob, retentionJob } from "./maintenance/maintenance-jobs";
import { accountUpdatedJob } from "./payments/accounts/account-updated-job";
import { paymentAttemptJob } from "./payments/payment-attempt-job";
import { expireHoldsJob, flagUnknownPaymentsJob } from "./payments/payment-sweeps";
import { processorEventJob } from "./payments/processor-event-job";
import { deliverWebhook } from "./webhooks/deliver-webhook";

/** Every job definition the product runs; the `ocpp` process starts one runner for them all. */
export const BACKGROUND_JOBS: readonly JobDefinition[] = [
  deliverWebhook,
  retentionJob,
  releaseDeadGatewaysJob,
  paymentAttemptJob,
  flagUnknownPaymentsJob,
  expireHoldsJob,
  processorEventJob,
  accountUpdatedJob,
];
