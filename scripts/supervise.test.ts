import { spawn } from "node:child_process";
import { afterEach, describe, expect, it } from "vitest";
import { waitUntil } from "../testing/ocpp";
import { restartDelay, supervise, type Backoff, type Supervised } from "./supervise";

/**
 * A real Node process: says goodbye on SIGTERM unless told to ignore it, then prints "up <pid>"
 * (after its handler is in place, so a test that saw the line knows how it answers SIGTERM).
 */
const script = (onTerm: string) => `
  process.on("SIGTERM", () => { ${onTerm} });
  console.log("up " + process.pid);
  setInterval(() => {}, 1000);
`;
const GOODBYE = `console.log("goodbye " + process.pid); process.exit(0);`;

const running: Supervised[] = [];
afterEach(async () => {
  await Promise.all(running.splice(0).map((child) => child.stop()));
});

function aChild(options: { backoff?: Backoff; onTerm?: string; graceMs?: number } = {}) {
  const lines: string[] = [];
  const child = supervise({
    name: "demo",
    labelWidth: 5,
    log: (line) => lines.push(line),
    start: () =>
      spawn(process.execPath, ["-e", script(options.onTerm ?? GOODBYE)], {
        stdio: ["ignore", "pipe", "pipe"],
      }),
    ...(options.backoff ? { backoff: options.backoff } : {}),
    ...(options.graceMs ? { graceMs: options.graceMs } : {}),
  });
  running.push(child);
  const pid = () => child.current()?.pid;
  const upLine = (p: number | undefined) => lines.includes(`demo  | up ${p}`);
  return { child, lines, pid, upLine };
}

describe("restartDelay", () => {
  it("doubles from 1 s and stops at 30 s", () => {
    expect([0, 1, 2, 3, 4, 5, 6, 12].map((n) => restartDelay(n))).toEqual([
      1_000, 2_000, 4_000, 8_000, 16_000, 30_000, 30_000, 30_000,
    ]);
  });
});

describe("supervise", () => {
  it("starts a killed process again after the backoff, longer each quick time, and logs each", async () => {
    const { child, lines, pid, upLine } = aChild({
      backoff: { initialMs: 200, maxMs: 400, resetAfterMs: 60_000 },
    });
    await waitUntil(() => upLine(pid()));
    child.keepUp();
    const delays: number[] = [];
    for (let round = 0; round < 3; round++) {
      const before = pid()!;
      const killedAt = Date.now();
      process.kill(before, "SIGKILL");
      await waitUntil(() => pid() !== undefined && pid() !== before && upLine(pid()));
      delays.push(Date.now() - killedAt);
      expect(lines).toContain(`demo started (pid ${pid()})`);
    }
    const deaths = lines.filter((line) => line.includes("stopped unexpectedly"));
    expect(deaths).toHaveLength(3);
    expect(deaths[0]).toMatch(
      /^demo \(pid \d+\) stopped unexpectedly \(killed by SIGKILL\) after [\d.]+ s; restarting in 0\.2 s \(restart 1\)$/,
    );
    expect(deaths[1]).toMatch(/restarting in 0\.4 s \(restart 2\)$/);
    expect(deaths[2]).toMatch(/restarting in 0\.4 s \(restart 3\)$/); // capped
    expect(delays[0]).toBeGreaterThanOrEqual(200);
    expect(delays[1]).toBeGreaterThanOrEqual(400);
    expect(child.deaths()).toBe(3);
  });

  it("starts over at the first delay once a process has stayed up long enough", async () => {
    const { child, lines, pid, upLine } = aChild({
      backoff: { initialMs: 100, maxMs: 10_000, resetAfterMs: 1_000 },
    });
    await waitUntil(() => upLine(pid()));
    child.keepUp();
    for (const wait of [0, 0, 1_200]) {
      await new Promise((r) => setTimeout(r, wait));
      const before = pid()!;
      process.kill(before, "SIGKILL");
      await waitUntil(() => pid() !== undefined && pid() !== before && upLine(pid()));
    }
    const delays = lines
      .filter((line) => line.includes("stopped unexpectedly"))
      .map((line) => /restarting in ([\d.]+) s/.exec(line)?.[1]);
    expect(delays).toEqual(["0.1", "0.2", "0.1"]);
  });

  it("does not start again a process that dies before keepUp (a failed start)", async () => {
    const lines: string[] = [];
    const child = supervise({
      name: "broken",
      log: (line) => lines.push(line),
      start: () => spawn(process.execPath, ["-e", "process.exit(3)"], { stdio: "pipe" }),
      backoff: { initialMs: 50, maxMs: 50, resetAfterMs: 1_000 },
    });
    running.push(child);
    await waitUntil(() => child.deaths() === 1);
    await new Promise((r) => setTimeout(r, 300));
    expect(lines.filter((line) => line.startsWith("broken started"))).toHaveLength(1);
    expect(lines).toContainEqual(
      expect.stringMatching(/^broken \(pid \d+\) exited during start-up \(exit code 3\)$/),
    );
    expect(child.current()).toBeUndefined();
  });

  it("stop() sends SIGTERM, keeps the process's last lines, and starts nothing again", async () => {
    const { child, lines, pid, upLine } = aChild({
      backoff: { initialMs: 50, maxMs: 50, resetAfterMs: 1_000 },
    });
    await waitUntil(() => upLine(pid()));
    child.keepUp();
    const last = pid();
    await child.stop();
    expect(lines).toContain(`demo  | goodbye ${last}`);
    await new Promise((r) => setTimeout(r, 200));
    expect(child.current()).toBeUndefined();
    expect(lines.filter((line) => line.startsWith("demo started"))).toHaveLength(1);
    expect(lines.some((line) => line.includes("stopped unexpectedly"))).toBe(false);
  });

  it("stop() kills a process that ignores SIGTERM after the grace period", async () => {
    const { child, lines, pid, upLine } = aChild({ onTerm: "", graceMs: 300 });
    await waitUntil(() => upLine(pid()));
    const last = pid()!;
    const asked = Date.now();
    await child.stop();
    expect(Date.now() - asked).toBeGreaterThanOrEqual(300);
    expect(lines).toContain(`demo (pid ${last}) did not stop within 0.3 s; killing it`);
    expect(() => process.kill(last, 0)).toThrow();
  });
});
