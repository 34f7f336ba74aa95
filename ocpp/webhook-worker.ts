import pg from "pg";
import type { Db } from "../server/db";
import { log } from "../server/log";
import { systemResolver } from "../server/webhooks/destination";
import { runDueDeliveries } from "../server/webhooks/run-deliveries";

/**
 * Webhook delivery in the `ocpp` process: woken by NOTIFY `webhooks` when an event is queued, and
 * every second for retries that fall due. The queue is PostgreSQL (server/webhooks/run-deliveries.ts).
 */
export async function startWebhookWorker({
  db,
  databaseUrl,
  allowPrivate,
}: {
  db: Db;
  databaseUrl: string;
  allowPrivate: boolean;
}) {
  const listener = new pg.Client({ connectionString: databaseUrl });
  listener.on("error", (error) => log.error("webhook listener failed", { error }));
  await listener.connect();
  await listener.query("LISTEN webhooks");
  let running = false;
  let again = false;
  let stopped = false;
  const drain = async () => {
    if (stopped) return;
    if (running) {
      again = true;
      return;
    }
    running = true;
    try {
      do {
        again = false;
        while (
          !stopped &&
          (await runDueDeliveries({ db, allowPrivate, resolve: systemResolver })) > 0
        ) {
          /* keep going while there is due work */
        }
      } while (again && !stopped);
    } catch (error) {
      log.error("webhook delivery run failed", { error });
    } finally {
      running = false;
    }
  };
  listener.on("notification", () => void drain());
  const timer = setInterval(() => void drain(), 1_000);
  timer.unref();
  void drain(); // what fell due while no worker ran
  return {
    stop: async () => {
      stopped = true;
      clearInterval(timer);
      await listener.end().catch(() => {});
    },
  };
}
