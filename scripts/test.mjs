#!/usr/bin/env node
// `npm test`: format, types, lint, migration drift, unit and integration tests (Vitest, real
// PostgreSQL), then end-to-end tests (Playwright in Debian's Chromium against a production build).
// Stops at the first failing step and ends with one summary line.
import { spawnSync } from "node:child_process";
import fs from "node:fs";

const steps = [
  ["format", "npx", ["prettier", "--check", "--log-level", "warn", "."]],
  ["typecheck", "npx", ["tsc", "--noEmit", "-p", "tsconfig.json"]],
  ["lint", "npx", ["eslint", "--max-warnings", "0", "."]],
  ["migrations", "npx", ["tsx", "--conditions=react-server", "scripts/migrations.ts", "check"]],
  [
    "unit+integration",
    "npx",
    [
      "vitest",
      "run",
      "--reporter=default",
      "--reporter=json",
      "--outputFile.json=test-results/vitest.json",
    ],
  ],
  ["e2e", "npx", ["playwright", "test", "-c", "e2e/playwright.config.ts"]],
];

const only = process.argv.slice(2);
fs.mkdirSync("test-results", { recursive: true });
let passed = 0;
let failed = 0;

function count() {
  try {
    const v = JSON.parse(fs.readFileSync("test-results/vitest.json", "utf8"));
    passed += v.numPassedTests ?? 0;
    failed += v.numFailedTests ?? 0;
  } catch {
    /* step did not run */
  }
  try {
    const p = JSON.parse(fs.readFileSync("test-results/playwright.json", "utf8"));
    passed += p.stats?.expected ?? 0;
    failed += (p.stats?.unexpected ?? 0) + (p.stats?.flaky ?? 0);
  } catch {
    /* step did not run */
  }
}

function reportFailed(file, count) {
  try {
    return count(JSON.parse(fs.readFileSync(file, "utf8"))) || 0;
  } catch {
    return 1; // no report: the runner did not finish
  }
}

for (const f of ["test-results/vitest.json", "test-results/playwright.json"])
  fs.rmSync(f, { force: true });
for (const [name, cmd, args] of steps) {
  if (only.length && !only.includes(name)) continue;
  const started = Date.now();
  console.log(`\n== ${name}`);
  const result = spawnSync(cmd, args, {
    stdio: "inherit",
    env: {
      ...process.env,
      NEXT_TELEMETRY_DISABLED: "1",
      CHECKPOINT_DISABLE: "1",
      // e2e specs import server modules (marked server-only); the product they start sets its own
      ...(name === "e2e" ? { NODE_OPTIONS: "--conditions=react-server" } : {}),
    },
  });
  const seconds = ((Date.now() - started) / 1000).toFixed(1);
  // Belt and braces: a runner's own report of failures counts even if its exit code says 0.
  const reported =
    name === "unit+integration"
      ? reportFailed("test-results/vitest.json", (r) => r.numFailedTests + r.numFailedTestSuites)
      : name === "e2e"
        ? reportFailed(
            "test-results/playwright.json",
            (r) => (r.stats?.unexpected ?? 0) + (r.errors?.length ?? 0),
          )
        : 0;
  if (result.status !== 0 || reported > 0) {
    console.error(
      `\n== ${name} failed (exit ${result.status ?? result.signal}) after ${seconds} s`,
    );
    count();
    console.log(`\ntests: ${passed} passed, ${Math.max(failed, 1)} failed`);
    process.exit(1);
  }
  console.log(`== ${name} ok (${seconds} s)`);
}
count();
console.log(`\ntests: ${passed} passed, ${failed} failed`);
process.exit(failed ? 1 : 0);
