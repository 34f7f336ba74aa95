import type { DbTx } from "../db";

export type JobState = {
  id: string;
  status: "queued" | "running" | "succeeded" | "failed";
  attempt: number;
  lastError: string | null;
  finishedAt: Date | null;
};

/**
 * Polls `read` until `done` holds or `timeoutMs` passes (20 ms, doubling to 200 ms), and returns
 * the last value read: the API's way to wait briefly, after its transaction committed, for an
 * outcome a job records (an attempt row, the job itself). Never waits inside a transaction.
 */
export async function waitFor<T>(
  read: () => Promise<T>,
  done: (value: T) => boolean,
  timeoutMs: number,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (let delay = 20; ; delay = Math.min(delay * 2, 200)) {
    const value = await read();
    if (done(value) || Date.now() >= deadline) return value;
    await new Promise((resolve) => setTimeout(resolve, Math.min(delay, deadline - Date.now())));
  }
}

/** The job's state once it finished (succeeded or failed), or as it is after `timeoutMs`. */
export async function waitForJob(
  db: DbTx,
  jobId: string,
  timeoutMs = 3_000,
): Promise<JobState | null> {
  return waitFor(
    async () =>
      (await db.job.findUnique({
        where: { id: jobId },
        select: { id: true, status: true, attempt: true, lastError: true, finishedAt: true },
      })) as JobState | null,
    (job) => !job || job.status === "succeeded" || job.status === "failed",
    timeoutMs,
  );
}
