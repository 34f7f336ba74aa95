import { defineCronJob } from "../jobs/define-job";
import { expireReservations } from "./reservations";

export const RESERVATION_SWEEP_MS = 5_000;

/** Expires open reservations past their time, every 5 s, once across all processes. */
export function reservationSweepJob() {
  return defineCronJob({
    id: "reservations.expire",
    everyMs: RESERVATION_SWEEP_MS,
    handler: async (_slot, ctx) => {
      await expireReservations(ctx.db);
    },
  });
}
