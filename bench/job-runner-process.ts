/**
 * One job runner process for the benchmarks (DATABASE_URL and SECRET_KEY from the parent):
 * `webhooks` runs the product's webhook delivery job, `noop` bench/jobs.ts's no-op job. Prints a
 * line once running; stops on SIGTERM.
 */
import { db } from "../server/db";
import { startJobRunner } from "../server/jobs/runner";
import { deliverWebhook } from "../server/webhooks/deliver-webhook";
import { noopJob } from "./job-definitions";

const definitions = process.argv[2] === "noop" ? [noopJob] : [deliverWebhook];
// Warm up before saying ready: the first queries load Prisma's query compiler and the modules a
// job imports, a one-off cost per process that is not the steady rate being measured.
await db().webhookDelivery.findUnique({ where: { id: "warm-up" }, include: { endpoint: true } });
await db().event.findFirst({ where: { id: "warm-up" } });
await db().$queryRaw`SELECT 1`;
const runner = await startJobRunner({
  db: db(),
  databaseUrl: process.env.DATABASE_URL!,
  definitions,
  ...(process.env.BENCH_CONCURRENCY ? { concurrency: Number(process.env.BENCH_CONCURRENCY) } : {}),
});
process.on("SIGTERM", () => void runner.stop().then(() => process.exit(0)));
process.stdout.write("ready\n");
