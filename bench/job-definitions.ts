import { z } from "zod";
import { defineJob } from "../server/jobs/define-job";

/** The job bench/jobs.ts measures: the kernel's own cost, a handler that does nothing. */
export const noopJob = defineJob({
  id: "bench.noop",
  payload: z.object({ n: z.number() }),
  handler: () => Promise.resolve(),
});
