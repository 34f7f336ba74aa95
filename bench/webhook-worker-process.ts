/** One webhook worker process for bench/webhooks.ts (DATABASE_URL and SECRET_KEY from the parent). */
import { db } from "../server/db";
import { startWebhookWorker } from "../ocpp/webhook-worker";

const worker = await startWebhookWorker({
  db: db(),
  databaseUrl: process.env.DATABASE_URL!,
  allowPrivate: true,
});
process.on("SIGTERM", () => void worker.stop().then(() => process.exit(0)));
process.stdout.write("ready\n");
