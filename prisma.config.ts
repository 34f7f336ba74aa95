import { defineConfig } from "prisma/config";

// The CLI is used offline: migrations are created and checked through our own schema-engine
// (scripts/schema-engine.mjs, see scripts/prisma.mjs); the app applies them itself at start.
export default defineConfig({
  schema: "prisma/schema.prisma",
  // The events table's two sub-partitioned partitions (one per kind: meter.sampled, kept; see the
  // time_partitions migration). Prisma's differ skips leaf partitions but reads a partition that is
  // itself partitioned as a table of its own; they are the events model's, so migrations leave
  // them alone. Any leaf partition (events_kept_p202611, …) needs no entry.
  experimental: { externalTables: true },
  tables: { external: ["public.events_kept", "public.events_meter_sampled"] },
  migrations: { path: "prisma/migrations" },
  datasource: { url: process.env.DATABASE_URL ?? "postgresql://localhost:5432/unused" },
});
