import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";

const ROOT = path.resolve(import.meta.dirname, "..");
const pkg = JSON.parse(fs.readFileSync(path.join(ROOT, "package.json"), "utf8")) as {
  scripts: Record<string, string>;
};

describe("npm scripts", () => {
  it("every script's own file exists", () => {
    for (const [name, command] of Object.entries(pkg.scripts)) {
      for (const file of command.match(/\S+\.(?:ts|mjs|js)\b/g) ?? [])
        expect(fs.existsSync(path.join(ROOT, file)), `${name}: ${file}`).toBe(true);
    }
  });

  it("npm run bench lists every benchmark (each file that writes bench/results/, itself or through the harness) and how to run it", () => {
    const benchmarks = fs
      .readdirSync(path.join(ROOT, "bench"))
      .filter((f) => f.endsWith(".ts") && f !== "run.ts" && f !== "harness.ts")
      .filter((f) => {
        const text = fs.readFileSync(path.join(ROOT, "bench", f), "utf8");
        return text.includes("bench/results/") || text.includes("writeResult(");
      })
      .map((f) => f.replace(/\.ts$/, ""));
    expect(benchmarks.length).toBeGreaterThanOrEqual(4);
    const listed = spawnSync(path.join(ROOT, "node_modules", ".bin", "tsx"), ["bench/run.ts"], {
      cwd: ROOT,
      encoding: "utf8",
    });
    expect(listed.status, listed.stderr).toBe(0);
    for (const name of benchmarks) expect(listed.stdout).toContain(`npm run bench -- ${name}`);
    const unknown = spawnSync(
      path.join(ROOT, "node_modules", ".bin", "tsx"),
      ["bench/run.ts", "nope"],
      { cwd: ROOT, encoding: "utf8" },
    );
    expect(unknown.status).toBe(1);
    expect(unknown.stderr).toContain('no benchmark named "nope"');
  });
});
