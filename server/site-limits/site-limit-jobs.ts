import { defineCronJob, defineJob } from "../jobs/define-job";
import { recomputeLocation, requestAllRecomputes } from "./recompute";
import { recomputeTarget } from "./trigger";

/**
 * Recomputes one location's shares (`recomputeLocation`). Asked for by a transaction starting or
 * ending under the limit, a material change of a session's draw, the limit set or changed, a
 * charger's answer to a site-limit profile, the sweep and the gateway's start. Each run drops the
 * location's other queued runs first and reads after them, so changes arriving while one runs
 * cause one more run after it, not one each. A conflict is retried at once, then after 200 ms.
 */
export const recomputeJob = defineJob({
  ...recomputeTarget,
  retry: { maxAttempts: 5, backoff: (attempt) => 200 * attempt },
  handler: async ({ locationId, after }, ctx) => {
    await recomputeLocation(ctx.db, locationId, {
      jobId: ctx.jobId,
      followUp: after !== undefined,
    });
  },
});

export const SITE_LIMIT_SWEEP_MS = 30_000;

/**
 * Every limited location recomputed every 30 s, once across all processes: what a missed trigger
 * (a batch of MeterValues, a lost job) left stale is put right within the period.
 */
export function siteLimitSweepJob() {
  return defineCronJob({
    id: "site_limits.sweep",
    everyMs: SITE_LIMIT_SWEEP_MS,
    handler: async (_slot, ctx) => {
      await requestAllRecomputes(ctx.db);
    },
  });
}
