import { defineConfig } from "@playwright/test";
import { PUBLIC_HOST } from "./fixtures/product";

/**
 * End-to-end tests against the real product: `npm start`'s own script (production build, embedded
 * PostgreSQL, web and ocpp processes), driven over HTTP and in Debian's Chromium.
 */
export default defineConfig({
  testDir: ".",
  outputDir: "../test-results/e2e-artifacts",
  globalSetup: "./fixtures/global-setup.ts",
  timeout: 60_000,
  workers: 1,
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
