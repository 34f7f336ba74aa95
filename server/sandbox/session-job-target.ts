import { z } from "zod";
import { DEFAULT_QUEUE } from "../jobs/define-job";
import type { JobTarget } from "../jobs/enqueue";

/**
 * What enqueuing the settlement job needs (`session-job.ts` defines its handler): the status
 * moves that queue it (`session-status.ts`) would otherwise import the services it drives.
 */
export const sandboxSessionJob: JobTarget<{ session_id: string }> = {
  id: "sandbox.session",
  payload: z.object({ session_id: z.string() }),
  queue: DEFAULT_QUEUE,
};
