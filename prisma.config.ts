import { defineConfig } from "prisma/config";

// The CLI is used offline: migrations are created and checked through our own schema-engine
// (scripts/schema-engine.mjs, see scripts/prisma.mjs); the app applies them itself at start.
export default defineConfig({
  schema: "prisma/schema.prisma",
  migrations: { path: "prisma/migrations" },
  datasource: { url: process.env.DATABASE_URL ?? "postgresql://localhost:5432/unused" },
});
