/**
 * One job runner process for the benchmarks (DATABASE_URL and SECRET_KEY from the parent):
 * `webhooks` runs the product's webhook delivery job, `noop` bench/jobs.ts's no-op job. Prints a
 * line once running; stops on SIGTERM.
 */
import { db } from "../server/db";
import { startJobRunner } from "../server/jobs/runner";
import { deliverWebhook } from "../server/webhooks/deliver-webhook";
import { loadDeliveries } from "../server/webhooks/load-deliveries";
import { noopJob } from "./job-definitions";

const definitions = process.argv[2] === "noop" ? [noopJob] : [deliverWebhook];
// Warm up before saying ready: the first queries load the client and the modules a
// job imports, a one-off cost per process that is not the steady rate being measured.
await loadDeliveries(db(), [
  { deliveryId: "warm-up", event: { id: "warm-up", type: "warm-up", createdAt: new Date() } },
]);
await db().$queryRaw`SELECT 1`;
const runner = await startJobRunner({
  db: db(),
  databaseUrl: process.env.DATABASE_URL!,
  definitions,
  ...(process.env.BENCH_CONCURRENCY ? { concurrency: Number(process.env.BENCH_CONCURRENCY) } : {}),
});
process.on("SIGTERM", () => void runner.stop().then(() => process.exit(0)));
process.stdout.write("ready\n");
