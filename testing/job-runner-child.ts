/**
 * A job runner child process for the kernel's tests (./jobs.ts `spawnRunner`): serves the
 * definitions of the kind named on its command line against DATABASE_URL, prints its runner id
 * once running, and stops on SIGTERM.
 */
import { closeDb, db } from "../server/db";
import { startJobRunner } from "../server/jobs/runner";
import { CHILD_DEFINITIONS } from "./jobs";

const kind = process.argv[2] as keyof typeof CHILD_DEFINITIONS;
const runner = await startJobRunner({
  db: db(),
  databaseUrl: process.env.DATABASE_URL!,
  definitions: CHILD_DEFINITIONS[kind],
  concurrency: 8,
  pollMs: 100,
});
process.on("SIGTERM", () => {
  void runner
    .stop(1_000)
    .then(() => closeDb())
    .then(() => process.exit(0));
});
process.stdout.write(`${runner.id}\n`);
