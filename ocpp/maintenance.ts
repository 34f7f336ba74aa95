import type { Db } from "../server/db";
import { log } from "../server/log";
import { applyRetention } from "../server/maintenance/retention";

/** Retention sweeps in the `ocpp` process, every 10 minutes (and once shortly after start). */
export function startMaintenance({ db }: { db: Db }) {
  const sweep = () =>
    applyRetention({ db })
      .then((deleted) => log.info("retention sweep", deleted))
      .catch((error: unknown) => log.error("retention sweep failed", { error }));
  const first = setTimeout(() => void sweep(), 30_000);
  const timer = setInterval(() => void sweep(), 10 * 60_000);
  first.unref();
  timer.unref();
  return {
    stop: () => {
      clearTimeout(first);
      clearInterval(timer);
    },
  };
}
