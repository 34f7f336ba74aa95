#!/usr/bin/env node
// `npm test`: format, types, lint, migration drift, unit and integration tests (Vitest, real
// PostgreSQL), then end-to-end tests (Playwright in Debian's Chromium against a production build).
// The four checks run at once (each is one process, mostly on one core); then Vitest with the
// console's build beside it; then the end-to-end tests. Stops at the first failing step and ends
// with one summary line.
import { spawn } from "node:child_process";
import fs from "node:fs";

/**
 * Each entry a step, or a list of steps run at once: a step's output is shown as it comes when it
 * is the one step of its list not marked `beside`, otherwise kept and shown when the step ends.
 */
const steps = [
  [
    ["format", "npx", ["prettier", "--check", "--log-level", "warn", "."]],
    ["typecheck", "npm", ["run", "--silent", "typecheck"]],
    ["lint", "npx", ["eslint", "--max-warnings", "0", "."]],
    ["migrations", "npx", ["tsx", "--conditions=react-server", "scripts/migrations.ts", "check"]],
  ],
  [
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
    // the e2e step's build, made while Vitest's files wait on PostgreSQL, sockets and timers
    [
      "console-build",
      "npx",
      ["tsx", "--conditions=react-server", "scripts/build-console.ts"],
      { beside: true },
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

/** Runs one step: `alone`, its output as it comes; otherwise kept and shown when it ends. */
function run([name, cmd, args], alone) {
  const started = Date.now();
  if (alone) console.log(`\n== ${name}`);
  const child = spawn(cmd, args, {
    stdio: alone ? "inherit" : ["ignore", "pipe", "pipe"],
    env: {
      ...process.env,
      NEXT_TELEMETRY_DISABLED: "1",
      CHECKPOINT_DISABLE: "1",
      // e2e specs import server modules (marked server-only); the product they start sets its own
      ...(name === "e2e" ? { NODE_OPTIONS: "--conditions=react-server" } : {}),
    },
  });
  let output = "";
  child.stdout?.on("data", (d) => (output += d));
  child.stderr?.on("data", (d) => (output += d));
  return new Promise((resolve) => {
    child.on("error", (error) => (output += `${error}\n`));
    child.on("close", (status, signal) => {
      if (!alone) process.stdout.write(`\n== ${name}\n${output}`);
      const seconds = ((Date.now() - started) / 1000).toFixed(1);
      // Belt and braces: a runner's own report of failures counts even if its exit code says 0.
      const reported =
        name === "unit+integration"
          ? reportFailed(
              "test-results/vitest.json",
              (r) => r.numFailedTests + r.numFailedTestSuites,
            )
          : name === "e2e"
            ? reportFailed(
                "test-results/playwright.json",
                (r) => (r.stats?.unexpected ?? 0) + (r.errors?.length ?? 0),
              )
            : 0;
      const ok = status === 0 && reported === 0;
      if (ok) console.log(`== ${name} ok (${seconds} s)`);
      else console.error(`\n== ${name} failed (exit ${status ?? signal}) after ${seconds} s`);
      resolve(ok);
    });
  });
}

for (const f of ["test-results/vitest.json", "test-results/playwright.json"])
  fs.rmSync(f, { force: true });
for (const step of steps) {
  const group = (Array.isArray(step[0]) ? step : [step]).filter(
    ([name]) => !only.length || only.includes(name),
  );
  if (group.length === 0) continue;
  const shown = group.filter(([, , , options]) => !options?.beside);
  const results = await Promise.all(group.map((s) => run(s, shown.length === 1 && shown[0] === s)));
  if (results.includes(false)) {
    count();
    console.log(`\ntests: ${passed} passed, ${Math.max(failed, 1)} failed`);
    process.exit(1);
  }
}
count();
console.log(`\ntests: ${passed} passed, ${failed} failed`);
process.exit(failed ? 1 : 0);
