#!/usr/bin/env node
// Runs the Prisma CLI offline: `node scripts/prisma.mjs generate`. Setting
// PRISMA_SCHEMA_ENGINE_BINARY stops the CLI from trying to download its native engine, which is
// unreachable here (generate does not need it). Migrations are made and checked by
// scripts/migrations.ts with Prisma's Wasm engine instead.
import { spawnSync } from "node:child_process";
import { createRequire } from "node:module";
import path from "node:path";

const require = createRequire(import.meta.url);
const cli = path.join(path.dirname(require.resolve("prisma/package.json")), "build", "index.js");
const result = spawnSync(process.execPath, [cli, ...process.argv.slice(2)], {
  stdio: "inherit",
  env: {
    ...process.env,
    PRISMA_SCHEMA_ENGINE_BINARY: process.env.PRISMA_SCHEMA_ENGINE_BINARY ?? process.execPath,
    CHECKPOINT_DISABLE: "1",
    PRISMA_HIDE_UPDATE_MESSAGE: "1",
  },
});
process.exit(result.status ?? 1);
