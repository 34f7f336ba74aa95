import { defineConfig } from "@playwright/test";
import { PUBLIC_HOST } from "./fixtures/product";

/**
 * The specs that start products of their own (`npm start` in this checkout or a copy of it, a build
 * from nothing, kills and restarts, with bounds on how long those take): they run one at a time
 * once the others are done, so no other spec's load moves their figures.
 */
const ALONE = [
  "first-start.spec.ts",
  "kill-and-restart.spec.ts",
  "persistence.spec.ts",
  "readme-sandbox.spec.ts",
  "readme.spec.ts",
  "supervisor.spec.ts",
];

/**
 * End-to-end tests against the real product: `npm start`'s own script (production build, embedded
 * PostgreSQL, web and ocpp processes), driven over HTTP and in Debian's Chromium. The other specs
 * share the product the global setup starts, each in tenants, stations and people of its own, two
 * at a time (a file's tests in order): one spec's browser and product kept 0.6–0.8 of a core busy
 * on a 2-core machine, and these specs took 487 s two at a time instead of ~560 s (one run each).
 */
export default defineConfig({
  testDir: ".",
  outputDir: "../test-results/e2e-artifacts",
  globalSetup: "./fixtures/global-setup.ts",
  timeout: 60_000,
  workers: 2,
  projects: [
    { name: "shared", testIgnore: ALONE },
    { name: "alone", testMatch: ALONE, dependencies: ["shared"], workers: 1 },
  ],
  reporter: [["list"], ["json", { outputFile: "../test-results/playwright.json" }]],
  use: {
    launchOptions: {
      executablePath: process.env.CHROMIUM_PATH ?? "/usr/bin/chromium",
      args: [
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-quic",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        // The product's public name (fixtures/product.ts) resolves to this machine, any port.
        `--host-resolver-rules=MAP ${PUBLIC_HOST} 127.0.0.1`,
        // Production is served over https, a secure context (clipboard, crypto.randomUUID); the
        // plain-http test name is treated as one too.
        `--unsafely-treat-insecure-origin-as-secure=${PUBLIC_HOST.replace(/^[^.]+/, "*")}`,
      ],
    },
    screenshot: "only-on-failure",
  },
});
