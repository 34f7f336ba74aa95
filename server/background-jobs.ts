// every domain's operation kinds and charger-transaction hooks, before anything uses them
import "./domains";
import { capSweepJob } from "./bills/cap-sweep";
import { displaySyncJob } from "./displays/sync-displays";
import type { JobDefinition } from "./jobs/define-job";
import {
  partitionsJob,
  releaseDeadGatewaysJob,
  retentionJob,
} from "./maintenance/maintenance-jobs";
import { orderJobDefinition } from "./ocpp-domains/certificate-order";
import { domainSweepJobDefinition } from "./ocpp-domains/domain-sweep";
import { tlsCheckJobDefinition } from "./ocpp-domains/tls-check";
import { OPERATION_CALL_TIMEOUT_MS, operationSweepJob } from "./operations/operation-jobs";
import { localListSyncJob } from "./local-lists/auto-sync";
import { profileResendJob } from "./charging-profiles/resend-after-boot";
import { accountAttemptJob } from "./payments/accounts/account-attempt-job";
import { accountUpdatedJob } from "./payments/accounts/account-updated-job";
import { paymentAttemptJob } from "./payments/payment-attempt-job";
import { paymentReadJob } from "./payments/payment-read-job";
import {
  expireHoldsJob,
  flagUnknownPaymentsJob,
  followInFlightPaymentsJob,
} from "./payments/payment-sweeps";
import { processorEventJob } from "./payments/processor-event-job";
import { reservationSweepJob } from "./reservations/reservation-jobs";
import { sandboxSessionJobDefinition } from "./sandbox/session-job";
import { recomputeJob, siteLimitSweepJob } from "./site-limits/site-limit-jobs";
import { teamBillingCallJob } from "./team-billing/billing-calls";
import { billingEventJob, standingSweepJob } from "./team-billing/standing-update";
import { usageJob } from "./team-billing/usage";
import { deliverWebhook } from "./webhooks/deliver-webhook";

/**
 * Every job definition on the shared `default` queue; the `ocpp` process starts one runner for
 * them and for its gateway's own jobs (`Gateway.jobs`, on the gateway's queue).
 */
export const BACKGROUND_JOBS: readonly JobDefinition[] = [
  deliverWebhook,
  retentionJob,
  partitionsJob,
  releaseDeadGatewaysJob,
  operationSweepJob({ callTimeoutMs: OPERATION_CALL_TIMEOUT_MS }),
  capSweepJob(),
  paymentAttemptJob,
  followInFlightPaymentsJob,
  flagUnknownPaymentsJob,
  expireHoldsJob,
  paymentReadJob,
  processorEventJob,
  accountUpdatedJob,
  accountAttemptJob,
  sandboxSessionJobDefinition,
  displaySyncJob(),
  teamBillingCallJob,
  billingEventJob,
  standingSweepJob,
  usageJob,
  domainSweepJobDefinition,
  tlsCheckJobDefinition,
  orderJobDefinition,
  reservationSweepJob(),
  localListSyncJob,
  profileResendJob,
  recomputeJob,
  siteLimitSweepJob(),
];
