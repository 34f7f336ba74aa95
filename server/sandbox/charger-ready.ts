import type { SandboxChargerHooks } from "./charger-hooks";
import { driveNow } from "./session-job";

/**
 * The sandbox sessions' ready hook (server/sandbox/charger-hooks.ts): once a station's virtual
 * charger is connected and booted, each of its sessions still `starting` gets its settlement job
 * run now (it starts the bill, `bill.start`) rather than at the job's next backoff. Not awaited:
 * the job's run may wait on the very charger that called the hook.
 */
export const startSessionsOnReady: SandboxChargerHooks = {
  onChargerReady: async (db, { stationId }) => {
    const starting = await db.sandboxSession.findMany({
      where: { stationId, status: "starting" },
      select: { id: true },
    });
    for (const session of starting) void driveNow(db, session.id, "starting");
  },
};
