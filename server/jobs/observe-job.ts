import type { Settled } from "./define-job";
import { metrics } from "../metrics/registry";

/**
 * Times one job attempt (`run`, already started) into `chargecloud_job_duration_seconds` under
 * the job's name and what the attempt became: `succeeded`, `retry` (queued again after a
 * failure), `failed` (no attempt left), or `lost` (fenced out by another runner's claim, or its
 * outcome could not be recorded: the lease decides).
 */
export function observeJob(
  job: { name: string },
  run: Promise<Settled | null>,
): Promise<Settled | null> {
  const end = metrics().jobDuration.startTimer({ name: job.name });
  void run.then(
    (settled) =>
      end({ outcome: !settled ? "lost" : settled.status === "queued" ? "retry" : settled.status }),
    () => end({ outcome: "lost" }),
  );
  return run;
}
