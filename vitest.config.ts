import os from "node:os";
import path from "node:path";
import { defineConfig } from "vitest/config";

export default defineConfig({
  resolve: {
    alias: {
      "@": path.resolve(import.meta.dirname),
      // server modules are marked server-only; tests run them on the server, where it is empty
      "server-only": path.resolve(import.meta.dirname, "node_modules/server-only/empty.js"),
    },
  },
  test: {
    include: [
      "server/**/*.test.ts",
      "ocpp/**/*.test.ts",
      "scripts/**/*.test.ts",
      "testing/**/*.test.ts",
    ],
    // One PostgreSQL for the whole run; every test file gets its own database cloned from a
    // migrated template (testing/setup-database.ts), so files run in parallel.
    globalSetup: ["testing/global-setup.ts"],
    setupFiles: ["testing/setup-database.ts", "testing/setup-domains.ts"],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: "forks",
    // The files mostly wait (PostgreSQL, sockets, timers), so a 2-core machine runs two at a time
    // (Vitest's default is one fewer than the cores: one file at a time there). Tests bound by time
    // hold beside a second file: their bounds allow for a busy machine (ocpp/handshake-pace.test.ts).
    maxWorkers: Math.max(2, os.availableParallelism() - 1),
    // next-auth imports "next/server" without an extension, which only a bundler resolves.
    server: { deps: { inline: ["next-auth"] } },
  },
});
