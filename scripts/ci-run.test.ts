import { execFileSync, spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";

/**
 * `.ci/run` itself, run for real in a scratch git checkout, with `npm` (and `chromium`, so nothing
 * is installed) replaced by scripts that record their calls: an `npm install` that rewrites a
 * committed file fails the run before the tests.
 */
const ROOT = path.resolve(import.meta.dirname, "..");
const scratch: string[] = [];
afterEach(() => {
  for (const dir of scratch.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
});

function aCheckout() {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "cp-ci-"));
  scratch.push(dir);
  const checkout = path.join(dir, "checkout");
  fs.mkdirSync(path.join(checkout, ".ci"), { recursive: true });
  fs.copyFileSync(path.join(ROOT, ".ci", "run"), path.join(checkout, ".ci", "run"));
  fs.chmodSync(path.join(checkout, ".ci", "run"), 0o755);
  fs.writeFileSync(path.join(checkout, "package.json"), '{ "name": "scratch" }\n');
  fs.writeFileSync(path.join(checkout, "package-lock.json"), '{ "lockfileVersion": 3 }\n');
  const git = (...args: string[]) =>
    execFileSync("git", ["-c", "user.email=ci@example.com", "-c", "user.name=CI", ...args], {
      cwd: checkout,
      stdio: "ignore",
    });
  git("init", "-q");
  git("add", "-A");
  git("commit", "-q", "-m", "scratch");

  const bin = path.join(dir, "bin");
  fs.mkdirSync(bin);
  const calls = path.join(dir, "calls");
  fs.writeFileSync(
    path.join(bin, "npm"),
    `#!/usr/bin/env bash
echo "npm $*" >> "${calls}"
if [ "$1" = install ] && [ -n "\${REWRITE_LOCK:-}" ]; then echo '{ "rewritten": true }' > package-lock.json; fi
if [ "$1" = install ] && [ -n "\${ADD_FILE:-}" ]; then echo new > "\${ADD_FILE}"; fi
exit 0
`,
    { mode: 0o755 },
  );
  fs.writeFileSync(path.join(bin, "chromium"), "#!/bin/sh\nexit 0\n", { mode: 0o755 });
  const run = (env: Record<string, string> = {}) => {
    const result = spawnSync(path.join(checkout, ".ci", "run"), [], {
      cwd: checkout,
      encoding: "utf8",
      env: { ...process.env, HOME: dir, PATH: `${bin}:/usr/bin:/bin`, ...env },
    });
    const called = fs.existsSync(calls) ? fs.readFileSync(calls, "utf8").trim().split("\n") : [];
    return { ...result, called };
  };
  return { checkout, run };
}

describe(".ci/run", () => {
  it("installs, then tests, when the install leaves the checkout as committed", () => {
    const { run } = aCheckout();
    const result = run();
    expect(result.status, result.stderr).toBe(0);
    expect(result.called).toEqual(["npm install", "npm test"]);
  });

  it("fails before the tests when npm install rewrites the committed lock, and says which file", () => {
    const { run } = aCheckout();
    const result = run({ REWRITE_LOCK: "1" });
    expect(result.status).toBe(1);
    expect(result.stderr).toContain("npm install changed the checkout");
    expect(result.stderr).toContain("M package-lock.json");
    expect(result.called).toEqual(["npm install"]);
  });

  it("fails when npm install leaves a new file that is not ignored", () => {
    const { run } = aCheckout();
    const result = run({ ADD_FILE: "stray.json" });
    expect(result.status).toBe(1);
    expect(result.stderr).toContain("?? stray.json");
    expect(result.called).toEqual(["npm install"]);
  });

  it("lets a local edit made before the run through when the install changes nothing more", () => {
    const { checkout, run } = aCheckout();
    fs.appendFileSync(path.join(checkout, "package.json"), "\n");
    const result = run();
    expect(result.status, result.stderr).toBe(0);
    expect(result.called).toEqual(["npm install", "npm test"]);
  });
});
